package cairn

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Corpus kinds.
const (
	KindFiles    = "files"
	KindSessions = "sessions"
	KindSkills   = "skills"
)

// Reserved corpus names that a configuration may not use.
var ReservedCorpusNames = []string{"all", "extracted", "memories"}

// Default limits shared by the CLI, the library and the servers.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
	DefaultGetLines    = 120
	MaxGetLines        = 1000
	MaxGetChars        = 12000
	DefaultMaxFileSize = 10 << 20 // 10 MB
	DefaultGlob        = "**/*.md"
)

// Corpus is a named set of documents. For KindFiles, Paths are directories,
// files or glob patterns (absolute; the caller resolves relative ones), Glob
// selects files under a directory path and Exclude lists glob patterns,
// relative to each root, of files to leave out.
type Corpus struct {
	Name    string
	Kind    string
	Paths   []string
	Glob    string
	Exclude []string
}

// Chunk is an exact slice of a document's text: Pos and Len are UTF-8 byte
// offsets, StartLine and EndLine 1-based inclusive line numbers.
type Chunk struct {
	Seq       int
	Pos       int
	Len       int
	StartLine int
	EndLine   int
	Tokens    int
	// Noise marks structural noise (rule-only, marker-only, whitespace-only,
	// orphan fences): stored for exact reads, never indexed for search.
	Noise bool
	// Ident is extra full-text for the identifiers in the chunk
	// (search.IdentText), filled by the engine before writing.
	Ident string
}

// Chunker splits a document's text into chunks that cover it in order.
type Chunker interface {
	Chunk(text string) []Chunk
}

// DocState is what sync needs to decide whether a file changed.
type DocState struct {
	Path    string
	Hash    string // sha256 hex of the indexed text
	Size    int64
	ModTime int64 // unix nanoseconds
}

// Document is one indexed file: its text snapshot and chunks.
type Document struct {
	Corpus  string
	Path    string // slash-separated, relative to the corpus (see engine docs)
	Title   string
	Hash    string
	Text    string
	Size    int64
	ModTime int64
	Chunks  []Chunk // nil when the store already holds content with Hash
}

// Batch is one transaction of sync changes for a corpus.
type Batch struct {
	Corpus  string
	Upserts []Document
	Touch   []DocState // same content, new size or mtime
	Remove  []string   // paths that vanished
}

// Hit is one search result. JSON names are fixed (scripts depend on them).
type Hit struct {
	Path      string   `json:"path"`
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Snippet   string   `json:"snippet"`
	Corpus    string   `json:"corpus"`
	Score     float64  `json:"score"`
	Explain   []string `json:"explain,omitempty"`
}

// SearchOptions tune one search. A nil *SearchOptions means defaults.
type SearchOptions struct {
	Corpora  []string // empty or ["all"]: every non-skill corpus
	Limit    int      // 1..MaxSearchLimit, default DefaultSearchLimit
	MinScore float64  // 0..1 on the normalized score
	Explain  bool     // fill Hit.Explain
}

// SetDefaults fills zero fields with defaults.
func (o *SearchOptions) SetDefaults() {
	if o.Limit == 0 {
		o.Limit = DefaultSearchLimit
	}
}

// Validate reports the first field outside its allowed range.
func (o *SearchOptions) Validate() error {
	if o.Limit < 1 || o.Limit > MaxSearchLimit {
		return Invalidf("limit %d out of range: allowed 1 to %d", o.Limit, MaxSearchLimit)
	}
	if o.MinScore < 0 || o.MinScore > 1 {
		return Invalidf("min-score %g out of range: allowed 0 to 1", o.MinScore)
	}
	return nil
}

// GetOptions select a line range for Get. A nil *GetOptions means defaults.
type GetOptions struct {
	From  int // 1-based, default 1
	Lines int // 1..MaxGetLines, default DefaultGetLines
}

// SetDefaults fills zero fields with defaults.
func (o *GetOptions) SetDefaults() {
	if o.From == 0 {
		o.From = 1
	}
	if o.Lines == 0 {
		o.Lines = DefaultGetLines
	}
}

// Validate reports the first field outside its allowed range.
func (o *GetOptions) Validate() error {
	if o.From < 1 {
		return Invalidf("from %d out of range: must be at least 1", o.From)
	}
	if o.Lines < 1 || o.Lines > MaxGetLines {
		return Invalidf("lines %d out of range: allowed 1 to %d", o.Lines, MaxGetLines)
	}
	return nil
}

// Get statuses.
const (
	StatusOK       = "ok"
	StatusNotFound = "not_found"
)

// GetResult is an exact read of an indexed document. JSON names are fixed.
type GetResult struct {
	Status    string `json:"status"`
	Text      string `json:"text"`
	Path      string `json:"path"`
	From      int    `json:"from"`
	Lines     int    `json:"lines"` // lines returned
	Truncated bool   `json:"truncated"`
	NextFrom  int    `json:"nextFrom,omitempty"` // present when the document goes on
}

// SyncOptions tune one sync. A nil *SyncOptions means all corpora, no progress.
type SyncOptions struct {
	Corpora  []string
	Progress func(ProgressEvent)
}

// ProgressEvent reports sync progress for one corpus.
type ProgressEvent struct {
	Corpus string
	Done   int // files examined so far
	Total  int // files found by the scan
}

// FileFailure is a file sync could not index, with the reason.
type FileFailure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// CorpusSyncResult counts what one corpus sync did. JSON names are fixed.
type CorpusSyncResult struct {
	Name      string        `json:"name"`
	Scanned   int           `json:"scanned"`
	Added     int           `json:"added"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Removed   int           `json:"removed"`
	Failed    int           `json:"failed"`
	Chunks    int           `json:"chunks"` // chunks written by this sync
	Failures  []FileFailure `json:"failures,omitempty"`
}

// SyncResult is the outcome of Sync. JSON names are fixed.
type SyncResult struct {
	Corpora []CorpusSyncResult `json:"corpora"`
	Seconds float64            `json:"seconds"`
}

// Since returns seconds elapsed, rounded to milliseconds.
func Since(t time.Time) float64 {
	return float64(time.Since(t).Milliseconds()) / 1000
}

// LexicalQuery asks the store's full-text index for chunks matching an FTS5
// MATCH expression, best BM25 first.
type LexicalQuery struct {
	Match   string   // FTS5 expression built by package search
	Corpora []string // empty: every corpus
	Limit   int
	// MaxCandidates caps how many matching chunks are scored (0: no cap).
	// Scoring costs about a microsecond per match, so an unselective query
	// over a large index scores only the newest MaxCandidates matches.
	MaxCandidates int
}

// Candidate is one chunk the lexical index matched, with its document.
type Candidate struct {
	ChunkID   int64
	Corpus    string
	Path      string
	Title     string
	Seq       int
	StartLine int
	EndLine   int
	Text      string  // the chunk's exact text
	BM25      float64 // SQLite FTS5 bm25(): lower (more negative) is better
	Capped    bool    // scored within a capped candidate set
}

// Store is the index: documents, their text snapshots, chunks and the
// full-text index. Implementations serialize writes and allow concurrent
// reads.
type Store interface {
	// DocStates returns the indexed documents of a corpus keyed by path.
	DocStates(ctx context.Context, corpus string) (map[string]DocState, error)
	// HasContent reports which of the content hashes are already stored.
	HasContent(ctx context.Context, hashes []string) (map[string]bool, error)
	// Apply writes one batch in a single transaction. Removed documents
	// leave search at once; their content stays until GC.
	Apply(ctx context.Context, b *Batch) error
	// GC deletes content, chunks and index rows no document references.
	GC(ctx context.Context) (int, error)
	// Lexical runs a full-text query.
	Lexical(ctx context.Context, q LexicalQuery) ([]Candidate, error)
	// MatchCount counts chunks matching an FTS5 expression, stopping at max.
	MatchCount(ctx context.Context, match string, max int) (int, error)
	// DocumentText returns the indexed text of one document or ErrNotFound.
	DocumentText(ctx context.Context, corpus, path string) (string, error)
	// PruneCorpora deletes the documents of every corpus not in keep and
	// returns how many went.
	PruneCorpora(ctx context.Context, keep []string) (int, error)
	// Close releases the store.
	Close() error
}

// SelectCorpora returns the corpora a selection names, in configuration
// order. nil, empty or ["all"] select every configured non-skill corpus;
// names match ignoring case and repeats count once. "all" mixed with names,
// an unknown name (skills included) or a configuration without corpora is an
// ErrInvalid error that lists the known names or says how to add one.
func SelectCorpora(configured []Corpus, names []string) ([]Corpus, error) {
	var all []Corpus
	var known []string
	for _, c := range configured {
		if c.Kind != KindSkills {
			all = append(all, c)
			known = append(known, c.Name)
		}
	}
	if len(all) == 0 {
		return nil, Invalidf("no corpus configured (add one with: cairn corpus add NAME PATH)")
	}
	if len(names) == 0 || len(names) == 1 && names[0] == "all" {
		return all, nil
	}
	want := make(map[int]bool)
	for _, n := range names {
		if n == "all" {
			return nil, Invalidf("unknown corpus: all (\"all\" cannot be combined with corpus names; known: %s)", strings.Join(known, ", "))
		}
		i := slices.IndexFunc(all, func(c Corpus) bool { return strings.EqualFold(c.Name, n) })
		if i < 0 {
			return nil, Invalidf("unknown corpus: %s (known: %s)", n, strings.Join(known, ", "))
		}
		want[i] = true
	}
	var out []Corpus
	for i, c := range all {
		if want[i] {
			out = append(out, c)
		}
	}
	return out, nil
}
