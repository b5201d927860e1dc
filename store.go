package cairn

import "context"

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

// LexicalQuery asks the store's full-text index for chunks matching an FTS5
// MATCH expression, best BM25 first.
type LexicalQuery struct {
	Match   string   // FTS5 expression built by package search
	Corpora []string // empty: every corpus
	Limit   int
	// IDF weighs each phrase of Match, in the order the phrases appear in
	// it: a chunk scores Σ IDF[i]·tf'(i), the BM25 sum with the term
	// frequency factor tf' the store computes (k1 = 1.2, b = 0.75). Missing
	// weights are 1. Callers count terms once and cache them; the store
	// never walks a whole doclist to score.
	IDF []float64
	// Paths, when non-nil, restricts hits to these document paths (of the
	// given corpora): the sessions a session filter selected.
	Paths []string
	// PathCorpora, when non-nil, names the corpora Paths restricts:
	// documents of the other corpora stay eligible (a session filter
	// narrows session hits only, spec C11). Nil: Paths applies to all.
	PathCorpora []string
	// MaxCandidates caps how many matching chunks are scored (0: no cap).
	// Scoring costs about a microsecond per match, so an unselective query
	// over a large index scores only the newest MaxCandidates matches.
	MaxCandidates int
}

// LexicalResult is the answer to a LexicalQuery.
type LexicalResult struct {
	Candidates []Candidate // best first, at most Limit
	Scanned    int         // matching chunks scored
	Capped     bool        // more chunks matched than MaxCandidates
	Low        int64       // lowest chunk id scored (0: none)
}

// MatchCount is how many chunks an expression matches, counted newest first
// up to a cap.
type MatchCount struct {
	N   int   // matches counted, at most the cap
	Low int64 // id of the last (oldest) match counted; 0 when none
}

// IndexSpan describes the chunk ids of the full-text index: how many rows
// and their range. Counts capped at a limit are extrapolated over it.
type IndexSpan struct {
	Rows  int64
	MinID int64
	MaxID int64
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
	Lexical(ctx context.Context, q LexicalQuery) (*LexicalResult, error)
	// MatchCount counts chunks matching an FTS5 expression, newest first,
	// stopping at max.
	MatchCount(ctx context.Context, match string, max int) (MatchCount, error)
	// Span reports the row count and id range of the full-text index.
	Span(ctx context.Context) (IndexSpan, error)
	// DocumentText returns the indexed text of one document or ErrNotFound.
	DocumentText(ctx context.Context, corpus, path string) (string, error)
	// PruneCorpora deletes the documents of every corpus not in keep and
	// returns how many went.
	PruneCorpora(ctx context.Context, keep []string) (int, error)
	// Close releases the store.
	Close() error
}

// SessionStore keeps the records of projected sessions and the state of
// the transcript files they came from.
type SessionStore interface {
	PutSession(ctx context.Context, r SessionRecord) error
	DeleteSession(ctx context.Context, corpus, path string) error
	Session(ctx context.Context, corpus, path string) (SessionRecord, error)
	SessionsOf(ctx context.Context, corpus, transcript string) ([]SessionRecord, error)
	FilterSessions(ctx context.Context, corpora []string, f SessionFilter) ([]string, error)
	TranscriptStates(ctx context.Context, corpus string) (map[string]TranscriptState, error)
	PutTranscriptState(ctx context.Context, t TranscriptState) error
	DeleteTranscriptState(ctx context.Context, corpus, path string) error
}
