// Package engine is Cairn's library facade: Open a data directory with a set
// of corpora, Sync them into the index, Search and Get, Close. It wires a
// storage backend (cairn.Backend, passed in Options: package sqlite's for
// the embedded index), the chunk package's structural chunker, the ingest
// package's file scanner and the search package's query planner. It names
// no storage package and links no database driver (deps_test.go keeps it
// so). It reads no configuration file and no environment variable;
// cmd/cairn does that and passes plain values.
package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/search"
)

// ftsVersion identifies the index tokenizer and identifier expansion; bump
// it with any change to search.IdentText or the FTS5 tokenizer settings
// that a schema migration does not handle (a migration can rebuild the
// full-text table from stored chunks and keep the vectors, as the move to
// the common-grams tokenizer did; a bump empties everything).
const ftsVersion = 1

// FeatureVersion names the chunker and tokenizer the index was built with.
// A change empties the index at Open so the next Sync rebuilds it.
var FeatureVersion = fmt.Sprintf("chunk=%d;fts=%d", chunk.Version, ftsVersion)

// Defaults for Options.
const (
	DefaultBatchSize = 512
	// DBFile is the index file of the SQLite backend in the data
	// directory, named in doctor's lines and by tests.
	DBFile = "index.db"
)

// Options configure an Engine. Dir and Corpora are required by most calls;
// zero values elsewhere mean defaults.
type Options struct {
	Dir string // agent data directory; the index lives in Dir/index.db
	// Backend opens the storage in Dir (required): sqlite.Backend{} for
	// the embedded index. It is passed explicitly, not found in a
	// registry, so the engine links no database driver of its own and a
	// program links only the backends it names.
	Backend cairn.Backend
	// SessionReaders add session source readers to those of package
	// ingest, or replace one with the same ID: openclawdb.Reader() reads
	// OpenClaw's SQLite-era store (cgo and a SQLite driver, kept out of
	// the engine). Without it OpenClaw is read as ingest reads it (the
	// JSONL era).
	SessionReaders []ingest.SourceReader
	Corpora        []cairn.Corpus // absolute paths
	MaxFileSize    int64          // default cairn.DefaultMaxFileSize
	BatchSize      int            // files per write transaction, default DefaultBatchSize
	Workers        int            // read+chunk workers, default GOMAXPROCS
	Chunker        cairn.Chunker  // default chunk.New()
	// Embedder, when set, embeds chunks after each sync and enables the
	// vector and hybrid search modes (hybrid becomes the default). The
	// engine closes it on Close when it has a Close method.
	Embedder cairn.Embedder
	// Location is the zone session timestamps are shown in (default UTC).
	Location *time.Location
	// AgentName names the assistant in session projections (default: the
	// source id).
	AgentName string
	// OneShot tunes the store for a process that runs one command and
	// exits (the CLI): no memory map, whose page faults cost more than
	// they save in a single query.
	OneShot bool
	// Logf, when set, hears about problems the engine works around (a
	// cache file it could not write). Nil: silent.
	Logf func(format string, args ...any)
}

// testDefaults, set by this package's tests only, fills what their Options
// leave out (the backend, the OpenClaw store reader), which production
// callers pass explicitly.
var testDefaults func(*Options)

func (o *Options) setDefaults() {
	if testDefaults != nil {
		testDefaults(o)
	}
	if o.MaxFileSize == 0 {
		o.MaxFileSize = cairn.DefaultMaxFileSize
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Chunker == nil {
		o.Chunker = chunk.New()
	}
}

// Engine indexes and searches the corpora of one agent. Its methods are safe
// for concurrent use; syncs are serialized, searches run in parallel.
type Engine struct {
	opts     Options
	store    cairn.Storage
	searcher *search.Searcher
	syncMu   sync.Mutex
	// sessionSyncing is set while this engine runs a session sync: a
	// running status with this process's PID is only alive then.
	sessionSyncing atomic.Bool
	vec            vectors
	recall         recallState // recall.go
	memgate        memoryGate  // memories_gate.go: a search's questions about memories while none is stored
	// bg counts the engine's background work (settling a loaded vector
	// index into memory); Close waits for it. bgMu orders starts against
	// Close: after closed is set nothing starts.
	bgMu   sync.Mutex
	bg     sync.WaitGroup
	closed bool
}

// background runs fn on a goroutine that Close awaits; after Close it
// does not run.
func (e *Engine) background(fn func()) {
	e.bgMu.Lock()
	defer e.bgMu.Unlock()
	if e.closed {
		return
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		fn()
	}()
}

// Open opens (creating if needed) the index in opts.Dir.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	opts.setDefaults()
	if opts.Dir == "" {
		return nil, cairn.Invalidf("data directory is empty: set Options.Dir")
	}
	seen := map[string]bool{}
	sessions := 0
	for _, c := range opts.Corpora {
		if c.Name == "" || seen[c.Name] {
			return nil, cairn.Invalidf("corpus name %q is blank or repeated: names must be unique", c.Name)
		}
		seen[c.Name] = true
		if c.Kind == cairn.KindSessions {
			sessions++
		}
	}
	if sessions > 1 {
		return nil, cairn.Invalidf("%d sessions corpora configured: allowed at most one", sessions)
	}
	st, err := openStorage(ctx, opts)
	if err != nil {
		return nil, err
	}
	var live bool
	if opts.Corpora, live, err = withMemories(ctx, opts.Corpora, st.HasMemories); err != nil { // memories.go
		st.Close()
		return nil, err
	}
	e := &Engine{opts: opts, store: st, searcher: &search.Searcher{Index: st}}
	e.recall.live.Store(live)
	return e, nil
}

// Reindexed reports whether Open found an index built by another chunker
// or tokenizer and emptied it; the next Sync rebuilds it.
func (e *Engine) Reindexed() bool { return e.store.FeatureChanged() }

// storageOptions are what the backend is told of opts.
func storageOptions(opts Options) cairn.StorageOptions {
	return cairn.StorageOptions{FeatureVersion: FeatureVersion, OneShot: opts.OneShot, Ident: search.IdentText, Logf: opts.Logf}
}

// openStorage opens opts.Dir's storage through opts.Backend.
func openStorage(ctx context.Context, opts Options) (cairn.Storage, error) {
	if opts.Backend == nil {
		return nil, errNoBackend
	}
	return opts.Backend.Open(ctx, opts.Dir, storageOptions(opts))
}

var errNoBackend = cairn.Invalidf("storage backend is nil: set Options.Backend (sqlite.Backend{} for the embedded index)")

// Corpora returns the configured corpora (not the memories corpus, which
// Open adds).
func (e *Engine) Corpora() []cairn.Corpus {
	return slices.DeleteFunc(slices.Clone(e.opts.Corpora), func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories })
}

// Embedder returns the configured embedder, nil without one.
func (e *Engine) Embedder() cairn.Embedder { return e.opts.Embedder }

// Search runs a lexical search over the selected corpora. A session
// filter narrows the sessions corpora to the sessions that match; the
// other selected corpora answer as without it (spec C11). Hits in sessions corpora carry their session and a message-array
// snippet.
func (e *Engine) Search(ctx context.Context, query string, opts *cairn.SearchOptions) ([]cairn.Hit, error) {
	o := cairn.SearchOptions{}
	if opts != nil {
		o = *opts
	}
	// A query over search.MaxQueryBytes is refused in every mode, one over
	// MaxQueryTerms in lexical and hybrid mode (hybrid's lexical lane
	// would leave it out quietly); vector mode takes a long paragraph of
	// many words, its cost bounded by the embedder's input, not the words.
	check := search.CheckQuery
	if o.Mode == cairn.ModeVector {
		check = search.CheckQueryBytes
	}
	if err := check(query); err != nil {
		return nil, err
	}
	live, err := e.searchCorpora(ctx, &e.memgate, o.Corpora, o.Mode) // memories_gate.go
	if err != nil {
		return nil, err
	}
	names, left := unbornMemories(ctx, live, o.Corpora) // search.go: memories asked for before the first one
	if !left {
		return []cairn.Hit{}, nil
	}
	sel, err := selectScoped(ctx, live, names, CanRead) // scope.go: a caller's corpora within its grant
	if err != nil {
		return nil, err
	} else if len(sel) == 0 {
		return []cairn.Hit{}, nil
	}
	var paths search.Scope
	if !o.Sessions.IsZero() {
		if paths, sel, err = e.sessionScope(ctx, sel, o.Sessions); err != nil {
			return nil, err
		} else if len(sel) == 0 {
			return []cairn.Hit{}, nil
		}
	}
	if paths, sel, err = e.memoryScope(ctx, sel, paths, o.Memories); err != nil { // recall.go
		return nil, err
	} else if len(sel) == 0 {
		return []cairn.Hit{}, nil
	}
	// Always filter: documents of a corpus removed from the configuration
	// stay in the index until the next full sync prunes them.
	o.Corpora = nil
	for _, c := range sel {
		o.Corpora = append(o.Corpora, c.Name)
	}
	o.SetDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkLimit(sel, o.Limit); err != nil {
		return nil, err
	}
	// With sessions, ask for more than needed: two chunks of one turn
	// overlap once expanded, and collapse below. File chunks never overlap.
	want := o.Limit
	if slices.ContainsFunc(sel, func(c cairn.Corpus) bool { return c.Kind == cairn.KindSessions }) {
		o.Limit = min(2*want, cairn.MaxSearchLimit)
	}
	if o.Mode == "" {
		o.Mode = cairn.ModeLexical
		if e.opts.Embedder != nil {
			o.Mode = cairn.ModeHybrid
		}
	}
	// The lanes return their hits uncut; the minimum score cuts the
	// calibrated score (search.Calibrate), the same scale in every mode.
	var hits []cairn.Hit
	lanes, minScore := o.Mode, o.MinScore
	o.MinScore = 0
	switch {
	case o.Mode == cairn.ModeLexical:
		hits, err = e.lexicalSearch(ctx, query, &o, paths) // one best chunk per document
	case e.opts.Embedder == nil:
		return nil, cairn.Invalidf("mode %q needs an embedder: configure [embedder] or use --mode lexical", o.Mode)
	default:
		hits, lanes, err = e.searchLanes(ctx, query, &o, paths)
	}
	if err != nil {
		// A damaged page met by a query: name the file and the remedy.
		return nil, e.store.Diagnose("search index", err)
	}
	hits = search.Calibrate(hits, lanes, minScore, o.Explain)
	if err := e.expandSessionHits(ctx, hits, o.ExpandChars); err != nil {
		return nil, err
	}
	if err := e.annotateMemoryHits(ctx, hits); err != nil {
		return nil, err
	}
	hits = dropOverlaps(hits)
	return hits[:min(len(hits), want)], nil
}

// dropOverlaps keeps the best hit of any set whose line ranges overlap in
// one document (hits come best first).
func dropOverlaps(hits []cairn.Hit) []cairn.Hit {
	out := hits[:0]
	for _, h := range hits {
		if !slices.ContainsFunc(out, func(k cairn.Hit) bool {
			return k.Path == h.Path && k.StartLine <= h.EndLine && h.StartLine <= k.EndLine
		}) {
			out = append(out, h)
		}
	}
	return out
}

func validFilter(f *cairn.SessionFilter) error {
	if !f.StartedFrom.IsZero() && !f.StartedTo.IsZero() && f.StartedFrom.After(f.StartedTo) {
		return cairn.Invalidf("startedFrom %s is after startedTo %s: give a range that starts before it ends",
			f.StartedFrom.Format(time.RFC3339), f.StartedTo.Format(time.RFC3339))
	}
	return nil
}

// Close waits for a running sync and for the engine's background work,
// then closes the index and the embedder. It drops ctx on purpose: what it
// waits for is bounded (a sync stops at its own context; settling the
// vector index is one copy of vectors.bin into memory, under a second at
// 220 MB, which cannot stop halfway), and returning before it ends would
// leave a goroutine reading a file the next process may replace.
func (e *Engine) Close(_ context.Context) error {
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	e.bgMu.Lock()
	e.closed = true
	e.bgMu.Unlock()
	e.bg.Wait()
	err := e.store.Close()
	if c, ok := e.opts.Embedder.(interface{ Close() error }); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}
