package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/search"
)

// MemoriesDir is the folder, under the agent's data directory, holding one
// Markdown document per memory: the memories corpus indexes it like a
// files corpus. The memories table (in memory.db, the durable store an
// index rebuild never touches) is the source of truth; these documents,
// and their rows in the index, are rebuilt from it by Sync.
const MemoriesDir = "memories"

func (e *Engine) memoriesRoot() string { return filepath.Join(e.opts.Dir, MemoriesDir) }

// memoriesCorpus is the corpus Open adds to every engine.
func memoriesCorpus() cairn.Corpus {
	return cairn.Corpus{Name: cairn.MemoriesCorpus, Kind: cairn.KindMemories}
}

// withMemories appends the memories corpus and reports whether it is
// live: a sessions corpus is configured (consolidation writes memories)
// or memories are stored. A corpus that is not live stays out of the
// corpora a search or sync selects (liveCorpora) until the first memory
// is stored, by this process (Remember) or another one; so a server
// started with neither searches a memory remembered later at once,
// without a restart, and an engine of notes alone shows no memories
// corpus.
func withMemories(ctx context.Context, corpora []cairn.Corpus, has func(context.Context) (bool, error)) ([]cairn.Corpus, bool, error) {
	if slices.ContainsFunc(corpora, func(c cairn.Corpus) bool { return c.Kind == cairn.KindMemories }) {
		return corpora, true, nil
	}
	live := slices.ContainsFunc(corpora, func(c cairn.Corpus) bool { return c.Kind == cairn.KindSessions })
	if !live {
		var err error
		if live, err = has(ctx); err != nil {
			return nil, false, err
		}
	}
	return append(slices.Clip(corpora), memoriesCorpus()), live, nil
}

// liveCorpora returns the corpora a search or sync selects from: every
// configured one, and the memories corpus once it is live. While it is
// not, each call asks the store whether memories arrived (one indexed
// row read); searchCorpora (memories_gate.go) spares a search most of
// these questions.
func (e *Engine) liveCorpora(ctx context.Context) ([]cairn.Corpus, error) {
	if !e.recall.live.Load() {
		has, err := e.store.HasMemories(ctx)
		if err != nil {
			return nil, err
		}
		if !has {
			return lessMemories(e.opts.Corpora), nil
		}
		e.recall.live.Store(true)
	}
	return e.opts.Corpora, nil
}

// ConsolidateOptions tune the worker beyond cairn.ConsolidateOptions; nil
// means the consolidate package's defaults.
type ConsolidateOptions struct {
	// Tune, when set, adjusts the worker before it runs (window sizes,
	// budgets, timeouts).
	Tune func(w *consolidate.Worker)
}

// Consolidate reads the pending records of the sessions corpus with model
// and stores the memories that pass the gate; each committed window's
// memories are indexed at once as the memories corpus. A dry run plans the
// windows without calling the model (model may then be nil).
func (e *Engine) Consolidate(ctx context.Context, model cairn.LLM, opts *cairn.ConsolidateOptions, tune *ConsolidateOptions) (*cairn.ConsolidateResult, error) {
	c, ok := e.sessionsCorpus()
	if !ok {
		return nil, cairn.Invalidf("no sessions corpus configured: consolidation reads agent sessions (add a [[corpus]] with kind = \"sessions\")")
	}
	w := consolidate.New(model, e.store, e.store, c.Name)
	w.Location = e.opts.Location
	w.Index = e.indexAndEmbed
	if tune != nil && tune.Tune != nil {
		tune.Tune(w)
	}
	if opts == nil || !opts.DryRun {
		// Documents of memories committed by a run that stopped before
		// indexing them.
		e.syncMu.Lock()
		_, err := e.syncMemories(ctx, nil)
		e.syncMu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	return w.Run(ctx, opts)
}

func (e *Engine) sessionsCorpus() (cairn.Corpus, bool) {
	for _, c := range e.opts.Corpora {
		if c.Kind == cairn.KindSessions {
			return c, true
		}
	}
	return cairn.Corpus{}, false
}

// Memories lists stored memories, newest told first.
func (e *Engine) Memories(ctx context.Context, f cairn.MemoryFilter) ([]cairn.Memory, error) {
	if err := checkMemoryFilter(f); err != nil {
		return nil, err
	}
	if err := CanRead(ctx, cairn.MemoriesCorpus); err != nil { // scope.go
		return nil, err
	}
	return e.store.Memories(ctx, f)
}

// checkMemoryFilter refuses a kind or status no memory has.
func checkMemoryFilter(f cairn.MemoryFilter) error {
	if f.Kind != "" && !slices.Contains(allKinds(), f.Kind) {
		return cairn.Invalidf("kind %q: allowed %s", f.Kind, strings.Join(allKinds(), ", "))
	}
	if f.Status != "" && f.Status != cairn.StatusActive && f.Status != cairn.StatusSuperseded {
		return cairn.Invalidf("status %q: allowed %s, %s or empty for both", f.Status, cairn.StatusActive, cairn.StatusSuperseded)
	}
	return nil
}

// MemoryLinks lists the links from or to a memory (related, supersedes,
// merged), oldest first.
func (e *Engine) MemoryLinks(ctx context.Context, id string) ([]cairn.MemoryLink, error) {
	if err := CanRead(ctx, cairn.MemoriesCorpus); err != nil { // scope.go
		return nil, err
	}
	return e.store.MemoryLinks(ctx, strings.TrimSpace(id))
}

// SleepOptions tune the sleep pass beyond cairn.SleepOptions; nil means
// the consolidate package's defaults.
type SleepOptions struct {
	// Tune, when set, adjusts the sleeper before it runs.
	Tune func(s *consolidate.Sleeper)
}

// Sleep runs the sleep pass over the stored memories with the fast model:
// near-duplicates merged, superseded memories marked, related ones linked.
// The memories corpus is brought up to date afterwards (superseded
// memories leave it). A dry run lists the candidate groups without calling
// the model (model may then be nil).
func (e *Engine) Sleep(ctx context.Context, model cairn.LLM, opts *cairn.SleepOptions, tune *SleepOptions) (*cairn.SleepResult, error) {
	s := consolidate.NewSleeper(model, e.store)
	if tune != nil && tune.Tune != nil {
		tune.Tune(s)
	}
	res, err := s.Run(ctx, opts)
	if err != nil || opts != nil && opts.DryRun {
		return res, err
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	if e.opts.Embedder != nil {
		defer e.afterSync(-1, true) // memory chunks came and went
	}
	if _, err := e.syncMemories(ctx, nil); err != nil {
		return res, err
	}
	return res, nil
}

// Memory returns one memory by id, or an error matching cairn.ErrNotFound.
func (e *Engine) Memory(ctx context.Context, id string) (cairn.Memory, error) {
	if err := CanRead(ctx, cairn.MemoriesCorpus); err != nil { // scope.go
		return cairn.Memory{}, err
	}
	m, err := e.store.Memory(ctx, strings.TrimSpace(id))
	if errors.Is(err, cairn.ErrNotFound) {
		return m, fmt.Errorf("read memory %q: %w", id, err)
	}
	return m, err
}

// indexMemories writes the documents of committed memories and indexes
// them in one batch, without scanning the folder. When a commit changed
// other memories too (removed those of a window read again, undid sleep
// decisions) the folder is rebuilt from the table instead.
func (e *Engine) indexMemories(ctx context.Context, ms []cairn.Memory, other cairn.Committed) error {
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	e.recall.live.Store(true) // the memories corpus is searched from now on
	if e.opts.Embedder != nil {
		// New memory chunks have no vectors until the next sync embeds
		// them: the lane recounts what is pending before its next search.
		defer e.afterSync(-1, true)
	}
	if len(other.Removed)+len(other.Touched) > 0 {
		_, err := e.syncMemories(ctx, nil) // embeds what it indexed
		return err
	}
	b := &cairn.Batch{Corpus: cairn.MemoriesCorpus}
	var fresh []string
	for i := range ms {
		d, err := e.writeMemory(&ms[i])
		if err != nil {
			return err
		}
		b.Upserts = append(b.Upserts, d)
		fresh = append(fresh, d.Hash)
	}
	stored, err := e.store.HasContent(ctx, fresh)
	if err != nil {
		return err
	}
	for i := range b.Upserts {
		if d := &b.Upserts[i]; !stored[d.Hash] {
			d.Title = chunk.Title(d.Text)
			d.Chunks = e.chunkerFor(cairn.MemoriesCorpus).Chunk(d.Text)
			if d.Chunks == nil {
				d.Chunks = []cairn.Chunk{}
			}
			for j := range d.Chunks {
				if c := &d.Chunks[j]; !c.Noise {
					c.Ident = search.IdentText(d.Text[c.Pos : c.Pos+c.Len])
				}
			}
		}
	}
	return e.store.Apply(ctx, b)
}

// indexAndEmbed is the consolidation worker's Index: indexMemories, then
// the new keys' vectors, in the run that wrote the memories, not at the
// next sync (recall_keys.go). (Remember embeds its memory itself, to
// report what it embedded.)
func (e *Engine) indexAndEmbed(ctx context.Context, ms []cairn.Memory, other cairn.Committed) error {
	if err := e.indexMemories(ctx, ms, other); err != nil {
		return err
	}
	hashes := make([]string, 0, len(ms))
	for i := range ms {
		hashes = append(hashes, sha256Hex(consolidate.Document(&ms[i])))
	}
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	e.embedMemories(ctx, hashes)
	e.refreshNeighbours(ctx, ms) // recall_near.go
	return nil
}

// writeMemory renders a memory's document and writes it atomically, with
// the time it was told as its modification time.
// An id or kind that could name a place outside the memories folder (an
// import's or a shared store's row) is refused before any path is made.
func (e *Engine) writeMemory(m *cairn.Memory) (cairn.Document, error) {
	if err := cairn.CheckMemoryPath(m.ID, m.Kind); err != nil {
		return cairn.Document{}, fmt.Errorf("write memory: %w", err)
	}
	rel := consolidate.DocumentPath(m)
	text := consolidate.Document(m)
	path := filepath.Join(e.memoriesRoot(), filepath.FromSlash(rel))
	if err := writeFileAtomic(path, []byte(text)); err != nil {
		return cairn.Document{}, err
	}
	t := consolidate.ToldTime(m)
	_ = os.Chtimes(path, t, t)
	fi, err := os.Stat(path)
	if err != nil {
		return cairn.Document{}, fmt.Errorf("write memory %s: %w", m.ID, err)
	}
	return cairn.Document{Corpus: cairn.MemoriesCorpus, Path: rel, Hash: sha256Hex(text), Text: text,
		Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// syncMemories rebuilds the memories folder from the memories table
// (writing only documents that are missing or differ, removing those of
// memories no longer stored or no longer active) and indexes it like a
// files corpus.
func (e *Engine) syncMemories(ctx context.Context, progress func(cairn.ProgressEvent)) (cairn.CorpusSyncResult, error) {
	r := cairn.CorpusSyncResult{Name: cairn.MemoriesCorpus}
	ms, err := e.store.Memories(ctx, cairn.MemoryFilter{})
	if err != nil {
		return r, err
	}
	states, err := e.store.DocStates(ctx, cairn.MemoriesCorpus)
	if err != nil {
		return r, err
	}
	root := e.memoriesRoot()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return r, fmt.Errorf("create memories folder: %w", err)
	}
	want := map[string]bool{}
	var refused []cairn.FileFailure
	for i := range ms {
		m := &ms[i]
		if m.Status != cairn.StatusActive {
			continue // superseded: out of searches, read with cairn memories show
		}
		if err := cairn.CheckMemoryPath(m.ID, m.Kind); err != nil {
			// A stored row Cairn did not make (an old import, a shared
			// store): reported, never written, the rest go on.
			refused = append(refused, cairn.FileFailure{Path: m.ID, Reason: err.Error()})
			continue
		}
		rel := consolidate.DocumentPath(m)
		want[rel] = true
		if st, ok := states[rel]; ok && st.Hash == sha256Hex(consolidate.Document(m)) {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
				continue
			}
		}
		if _, err := e.writeMemory(m); err != nil {
			return r, err
		}
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasSuffix(rel, ".md") && !want[filepath.ToSlash(rel)] {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("prune memories folder: %w", err)
	}
	r, err = e.syncCorpus(ctx, cairn.Corpus{Name: cairn.MemoriesCorpus, Kind: cairn.KindFiles, Paths: []string{root}, Glob: cairn.DefaultGlob}, false, progress)
	r.Failures = append(r.Failures, refused...)
	r.Failed += len(refused)
	if err != nil || e.opts.Embedder == nil {
		return r, err
	}
	// The keys of what was indexed get vectors in this run (recall_keys.go).
	states, err = e.store.DocStates(ctx, cairn.MemoriesCorpus)
	if err != nil {
		return r, err
	}
	hashes := make([]string, 0, len(states))
	for _, st := range states {
		hashes = append(hashes, st.Hash)
	}
	e.embedMemories(ctx, hashes)
	return r, nil
}

// annotateMemoryHits links each hit in the memories corpus to its memory
// and the transcript lines it came from.
// The memories are read in one query (one per hit took 8% of a
// 200-result search's time at 10,000 memories); a hit whose memory is
// gone meanwhile keeps no annotation.
func (e *Engine) annotateMemoryHits(ctx context.Context, hits []cairn.Hit) error {
	var ids []string
	for _, h := range hits {
		if h.Corpus == cairn.MemoriesCorpus {
			if id := consolidate.IDFromPath(h.Path); id != "" {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ms, err := e.store.MemoriesByID(ctx, ids)
	if err != nil {
		return err
	}
	for i := range hits {
		if h := &hits[i]; h.Corpus == cairn.MemoriesCorpus {
			if m, ok := ms[consolidate.IDFromPath(h.Path)]; ok {
				h.Memory = memoryHit(&m) // recall.go
			}
		}
	}
	if len(ms) > 0 {
		// A memory another process stored, found by a search that took the
		// memories corpus in before it was live (memories_gate.go): live
		// from now on, listed by SearchCorpora.
		e.recall.live.Store(true)
	}
	return nil
}
