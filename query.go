package cairn

import (
	"encoding/json"
	"fmt"
)

// Hit is one search result. JSON names are fixed (scripts depend on them).
type Hit struct {
	Path      string   `json:"path"`
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Snippet   string   `json:"snippet"`
	Corpus    string   `json:"corpus"`
	Score     float64  `json:"score"`
	Explain   []string `json:"explain,omitempty"`

	// Hybrid hits: each lane's own score (normalized BM25, cosine), nil
	// when that lane did not bring the hit. Not part of the JSON hit.
	TextScore   *float64 `json:"-"`
	VectorScore *float64 `json:"-"`
	// Signals are the lane signals the calibrated Score was computed from
	// (nil before calibration). Not part of the JSON hit.
	Signals *HitSignals `json:"-"`

	// Session hits only.
	Session          *SessionInfo     `json:"session,omitempty"`
	MessageTimestamp string           `json:"messageTimestamp,omitempty"`
	Messages         []SnippetMessage `json:"-"` // serialized as "snippet"

	// Memory hits only: the memory and its source transcript lines.
	Memory *MemoryHit `json:"memory,omitempty"`
}

// MarshalJSON writes a session hit's snippet as its message array and a
// file hit's as a string.
func (h Hit) MarshalJSON() ([]byte, error) {
	type plain Hit
	if h.Messages == nil {
		return json.Marshal(plain(h))
	}
	return json.Marshal(struct {
		plain
		Snippet []SnippetMessage `json:"snippet"`
	}{plain(h), h.Messages})
}

// SearchOptions tune one search. A nil *SearchOptions means defaults.
type SearchOptions struct {
	Corpora  []string // empty or ["all"]: every configured corpus
	Limit    int      // 1..MaxSearchLimit (MaxRecallLimit for the memories corpus alone), default DefaultSearchLimit
	MinScore float64  // 0..1 on the calibrated score; 0: no cut (surfaces default to DefaultMinScore)
	Explain  bool     // fill Hit.Explain
	// Sessions narrows the search to session hits matching the filter.
	Sessions *SessionFilter
	// Memories narrows the memory hits to memories matching the filter
	// (and to active ones without it); hits from the other corpora stay
	// eligible.
	Memories *MemorySearch
	// Mode picks the lanes: "hybrid" (BM25 and vectors fused by reciprocal
	// rank; the default when an embedder is configured), "lexical" (the
	// default without one) or "vector".
	Mode string
	// ExpandChars, when positive, expands session hits within this many
	// characters, the messages written "<type>: <body>" one a line (judged
	// search's passages, C12 enhanced mode), instead of the corpus's
	// maxExpandedTokens.
	ExpandChars int
}

// DefaultMinScore is the minimum score the CLI and the MCP tools apply
// unless told otherwise. Scores are calibrated probabilities that a hit is
// a real match (see HitSignals), the same scale in every mode; at 0.3,
// nonsense and off-topic queries return nothing while the turn recall@10
// of the LoCoMo development split stays within half a point
// (docs/design.md, "Calibrated scores").
const DefaultMinScore = 0.3

// HitSignals are what the lanes measured for one hit, the inputs of its
// calibrated score. Zero values mean the lane did not bring the hit.
type HitSignals struct {
	BM25     float64 // raw BM25, positive, higher is better
	Match    float64 // BM25 over the sum of the query terms' IDFs: how much of the query the chunk matches, about 0..3
	AllWords bool    // the chunk holds every query term (the all-words plan)
	LexRank  int     // 1-based rank in the lexical lane
	Cosine   float64 // cosine similarity of the query and chunk embeddings
	VecRank  int     // 1-based rank in the vector lane
	// Terms is the share of the query's terms the chunk holds, by count;
	// Cover the same share weighed by the terms' IDFs; Miss the IDF of the
	// heaviest term the chunk lacks over the query's heaviest term's (1:
	// it lacks the query's rarest word; 0: it lacks none).
	Terms, Cover, Miss float64
	Held               int // how many of the query's terms the chunk holds
	// KnownCover is Cover over the terms some chunk holds (a term in none
	// cannot be matched); Rarest the IDF of the rarest term the chunk
	// holds over that of a term in no chunk, the largest there is.
	KnownCover, Rarest float64
	// Known is the share of the query's terms found anywhere in the index
	// (nonsense words and off-topic names are not): a property of the
	// query, which every hit carries.
	Known float64
	// Rows is how many chunks the whole index held when the query's
	// Known was counted (0 where it was not, as for a query of no terms):
	// a word in none of three notes says little against the query, a word
	// in none of ten thousand chunks much.
	Rows int64
	// CosGap is the cosine of the vector lane's first candidate less its
	// tenth's (or its last's, with fewer): a query whose embedding is near
	// nothing in particular meets a flat run of cosines. A property of the
	// query, which every hit of a search with a vector lane carries.
	CosGap float64
	// Symbols is the share of the query's characters that are markup or
	// operators (search.QuerySymbols): "<script>alert(1)</script>" is not a
	// question, whatever a sentence encoder makes of it. A property of the
	// query, which every hit of a search with a vector lane carries.
	Symbols float64
	// The query's best signals over the hits: how well the query is
	// answered at all, which every hit of the query shares.
	TopMatch, TopCosine, TopTerms float64
	// NextCosine is the second best cosine over the hits: in a small
	// index, a query that is near one note stands out from the rest, and
	// one near nothing in particular (nonsense) does not.
	NextCosine float64
}

// Search modes.
const (
	ModeHybrid  = "hybrid"
	ModeLexical = "lexical"
	ModeVector  = "vector"
)

// SetDefaults fills zero fields with defaults.
func (o *SearchOptions) SetDefaults() {
	if o.Limit == 0 {
		o.Limit = DefaultSearchLimit
	}
}

// Validate reports the first field outside its allowed range.
func (o *SearchOptions) Validate() error {
	if o.Limit < 1 || o.Limit > MaxRecallLimit {
		return Invalidf("limit %d out of range: allowed 1 to %d (%d when only the memories corpus is searched)", o.Limit, MaxSearchLimit, MaxRecallLimit)
	}
	if o.MinScore < 0 || o.MinScore > 1 {
		return Invalidf("min-score %g out of range: allowed 0 to 1", o.MinScore)
	}
	switch o.Mode {
	case "", ModeHybrid, ModeLexical, ModeVector:
	default:
		return Invalidf("mode %q: allowed hybrid, lexical or vector", o.Mode)
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

// PastEndError is Get's answer to a From past the document's last line:
// an error that matches ErrInvalid, names the path and says which lines
// there are. A From in range with Lines running past the end is no error
// (Get returns the lines there are). An empty document (0 lines) takes
// From 1 only, and reads as empty text.
type PastEndError struct {
	Path  string // the cairn:// path read
	From  int    // the From asked for
	Total int    // the document's lines
}

func (e *PastEndError) Error() string {
	if e.Total == 0 {
		return fmt.Sprintf("from %d is past the end of %s (0 lines: the document is empty): from must be 1", e.From, e.Path)
	}
	return fmt.Sprintf("from %d is past the end of %s (%d lines): from must be 1..%d", e.From, e.Path, e.Total, e.Total)
}

func (e *PastEndError) Unwrap() error { return ErrInvalid }

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
