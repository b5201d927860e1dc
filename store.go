package cairn

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

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

// Match is a backend-neutral full-text query: a small tree of leaves
// (terms, phrases, prefixes) under all-of and any-of groups, which package
// search builds and each store compiles to its own syntax. Words are index
// words as the query gave them (package search lowercases them); the store
// tokenizes them as it tokenizes text, so a word the tokenizer splits
// matches as a phrase of its parts, and a character that is syntax in the
// store's language (a quote, a parenthesis, an asterisk) is only text.
type Match struct {
	Op MatchOp
	// Words are a leaf's words: one for MatchTerm, one or more for
	// MatchPhrase and MatchPrefix.
	Words []string
	// Weight is a leaf's weight in the score, its inverse document
	// frequency; 0 weighs 1. Groups have none.
	Weight float64
	// Of are a group's members (MatchAll, MatchAny), at least one.
	Of []Match
}

// MatchOp is what a Match node matches.
type MatchOp uint8

const (
	MatchTerm   MatchOp = iota // chunks holding the word
	MatchPhrase                // chunks holding the words in sequence
	MatchPrefix                // the words in sequence, the last one a prefix of a word
	MatchAll                   // chunks every member matches
	MatchAny                   // chunks some member matches
)

// Term matches a word.
func Term(word string) Match { return Match{Op: MatchTerm, Words: []string{word}} }

// Phrase matches words in sequence.
func Phrase(words ...string) Match { return Match{Op: MatchPhrase, Words: words} }

// Prefix matches words in sequence whose last word starts with the last
// of words.
func Prefix(words ...string) Match { return Match{Op: MatchPrefix, Words: words} }

// AllOf matches the chunks every one of ms matches.
func AllOf(ms ...Match) Match { return Match{Op: MatchAll, Of: ms} }

// AnyOf matches the chunks one of ms matches.
func AnyOf(ms ...Match) Match { return Match{Op: MatchAny, Of: ms} }

// Weighted returns the leaf m with weight w.
func (m Match) Weighted(w float64) Match {
	m.Weight = w
	return m
}

// Leaf reports whether m is a term, phrase or prefix.
func (m Match) Leaf() bool { return m.Op <= MatchPrefix }

// Leaves returns m's leaves in order: the order the scores' weights and a
// store's per-leaf factors follow.
func (m Match) Leaves() []Match {
	if m.Leaf() {
		return []Match{m}
	}
	var out []Match
	for _, c := range m.Of {
		out = append(out, c.Leaves()...)
	}
	return out
}

// String renders m for messages and as a cache key, weights left out: a
// leaf's words as one Go-quoted string (a prefix with a trailing *), a
// group parenthesized with AND or OR between its members. Two matches
// with the same rendering match the same chunks. It is no store's syntax.
func (m Match) String() string {
	var b strings.Builder
	m.write(&b)
	return b.String()
}

func (m Match) write(b *strings.Builder) {
	switch m.Op {
	case MatchTerm, MatchPhrase, MatchPrefix:
		b.WriteString(strconv.Quote(strings.Join(m.Words, " ")))
		if m.Op == MatchPrefix {
			b.WriteByte('*')
		}
	case MatchAll, MatchAny:
		op := " AND "
		if m.Op == MatchAny {
			op = " OR "
		}
		b.WriteByte('(')
		for i, c := range m.Of {
			if i > 0 {
				b.WriteString(op)
			}
			c.write(b)
		}
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "op%d", m.Op)
	}
}

// LexicalQuery asks the store's full-text index for the chunks that
// Match matches, best first.
type LexicalQuery struct {
	// Match is the query, built by package search; each store compiles it
	// to its own syntax (SQLite to an FTS5 MATCH expression). A chunk
	// scores Σ w·tf over the leaves of Match, w being the leaf's Weight
	// (the caller's inverse document frequency) and tf the store's term
	// frequency factor for the leaf in the chunk (SQLite: BM25's, see
	// sqlite/rank.go): callers count terms once and cache them, and the
	// store never walks a whole doclist to score.
	Match   Match
	Corpora []string // empty: every corpus
	Limit   int
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
	// FewMatches says the caller knows, from exact counts of the index's
	// current generation, that at most MaxCandidates chunks match: every
	// match is scored, so the store may walk them in whichever order is
	// cheaper. It is a hint: a store that finds more matches than the cap
	// anyway (a sync in between) scans again newest first, so the answer
	// is the same with or without it.
	FewMatches bool
}

// LexicalResult is the answer to a LexicalQuery.
type LexicalResult struct {
	Candidates []Candidate // best first, at most Limit
	Scanned    int         // matching chunks scored
	Capped     bool        // more chunks matched than MaxCandidates
	Low        int64       // lowest chunk id scored (0: none)
}

// MatchCount is how many chunks a Match matches, counted newest first up
// to a cap.
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

// Candidate is one chunk a search lane matched, with its document.
type Candidate struct {
	ChunkID   int64
	Corpus    string
	Path      string
	Title     string
	Seq       int
	StartLine int
	EndLine   int
	Text      string // the chunk's exact text
	// Score is the lane's own measure, higher is better: for LaneLexical
	// the weighted sum LexicalQuery.Match describes (0 or more), for
	// LaneVector the cosine similarity to the query (-1 to 1).
	Score  float64
	Lane   Lane // the lane that scored it; empty from VectorStore.Chunks
	Capped bool // scored within a capped candidate set
}

// Lane names the search lane that scored a candidate.
type Lane string

const (
	LaneLexical Lane = "lexical" // the full-text index (Store.Lexical)
	LaneVector  Lane = "vector"  // the vector index, by cosine
)

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
	// MatchCount counts chunks that m matches, newest first, stopping at
	// max (leaf weights play no part).
	MatchCount(ctx context.Context, m Match, max int) (MatchCount, error)
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
