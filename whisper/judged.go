package whisper

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/judge"
)

// Limits of judged search (C11 enhanced).
const (
	LaneHits        = 10   // candidates per lane
	MaxPassageChars = 1200 // complete-excerpt-1200-v1: a longer chunk is skipped, never sliced
	DefaultResults  = 5
	MaxResults      = 20
)

// PassagePolicy names how passages are cut, for logs and diagnostics.
const PassagePolicy = "complete-excerpt-1200-v1"

// Passage is one candidate excerpt: a whole chunk (or a session turn) as
// indexed.
type Passage struct {
	Path               string // cairn://<corpus>/<path>
	StartLine, EndLine int
	Corpus             string
	Text               string   // the complete excerpt
	Dates              []string // distinct message timestamps (sessions), the told date (memories)
	Hit                cairn.Hit
}

// ID identifies a passage for cooldowns: its place and its text.
func (p Passage) ID() string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d\x00%s", p.Path, p.StartLine, p.EndLine, p.Text)))
	return hex.EncodeToString(h[:12])
}

// LaneQuery asks a Retriever for the candidates of both lanes.
type LaneQuery struct {
	Lex, Vec string
	Corpora  []string // nil: every non-skill corpus
	Sessions *cairn.SessionFilter
	Limit    int // hits per lane
}

// Retriever brings judged search its candidates: up to q.Limit hits of
// each lane, best first, one best chunk per document, each with its
// complete text. The vector lane is empty without an embedder.
type Retriever interface {
	Lanes(ctx context.Context, q LaneQuery) (lex, vec []Passage, err error)
}

// Asker is the judge as judged search uses it (*judge.Judge).
type Asker interface {
	Ask(ctx context.Context, req *judge.Request) (*judge.Judgment, error)
}

var _ Asker = (*judge.Judge)(nil)

// SearchRequest is one judged search.
type SearchRequest struct {
	BM25Query, VectorQuery string
	Corpora                []string
	Sessions               *cairn.SessionFilter
	MaxResults             int     // 1 to MaxResults; 0: DefaultResults
	MinUsefulness          float64 // 0 to 1
	// Conversation is what the judge weighs each passage against; zero:
	// no history and VectorQuery as the current request (memory_search).
	Conversation *Conversation
	// Skip, when set, leaves out passages by ID (whisperer cooldowns).
	Skip func(id string) bool
	Now  time.Time // asOf; zero: time.Now
	// OnJudged, when set, hears of each judgment as it ends (code set
	// when it failed); it is called from the judging goroutines.
	OnJudged func(p Passage, score float64, code judge.Code, took time.Duration)
}

// Scored is a passage with the judge's P(useful).
type Scored struct {
	Passage
	Score float64
	rank  float64 // 1/(rank+1) summed over the lanes: ties, never shown
	idx   int     // place among the ranked passages, for redundancy pairs
}

// SearchResult is what a judged search found and what it cost.
type SearchResult struct {
	Results    []Scored // score ≥ MinUsefulness, best first, at most MaxResults
	Candidates int      // distinct lane hits
	Eligible   int      // passages judged
	Cooling    int      // passages left out by Skip
	Failed     int      // judgments that failed (their passages dropped)
	Below      int      // judged below MinUsefulness
	FailCodes  []judge.Code
	Retrieval  time.Duration
	Judging    time.Duration
}

// ErrAllFailed is a judged search whose every judgment failed.
var ErrAllFailed = errors.New("every judgment failed")

// CheckQuery applies C11 step 1 to one query field: non-blank and within
// the budget, else an error matching cairn.ErrInvalid naming the field.
func CheckQuery(field, q string) error {
	switch {
	case strings.TrimSpace(q) == "":
		return cairn.Invalidf("%s is blank: give %s", field, map[string]string{
			"bm25Query":   "distinctive names, identifiers or keywords",
			"vectorQuery": "the need in plain language"}[field])
	case !QueryFits(q):
		return cairn.Invalidf("%s is too large: allowed up to %d bytes and about %d tokens as {\"history\":[],\"currentRequest\":...}", field, MaxInputBytes, MaxInputTokens)
	}
	return nil
}

// Search runs C11's judged search: both lanes' candidates, eligible
// passages judged concurrently (one request each, no retries), kept at
// p ≥ MinUsefulness. A failed judgment drops its passage (never a score
// of 0). Every judgment failing is ErrAllFailed (with the result's
// counts); a cancelled ctx is its error.
func Search(ctx context.Context, r Retriever, j Asker, req *SearchRequest) (*SearchResult, error) {
	if err := CheckQuery("bm25Query", req.BM25Query); err != nil {
		return nil, err
	}
	if err := CheckQuery("vectorQuery", req.VectorQuery); err != nil {
		return nil, err
	}
	limit := req.MaxResults
	if limit <= 0 {
		limit = DefaultResults
	}
	start := time.Now()
	lex, vec, err := r.Lanes(ctx, LaneQuery{Lex: noPhrases(req.BM25Query), Vec: strings.TrimSpace(req.VectorQuery),
		Corpora: req.Corpora, Sessions: req.Sessions, Limit: LaneHits})
	res := &SearchResult{Retrieval: time.Since(start)}
	if err != nil {
		return res, err
	}
	cands := merge(lex, vec)
	res.Candidates = len(cands)
	elig, cooling := eligible(cands, req.Corpora, req.Skip)
	res.Eligible, res.Cooling = len(elig), cooling
	if len(elig) == 0 {
		return res, ctx.Err()
	}
	conv := Conversation{History: []Msg{}, CurrentRequest: strings.TrimSpace(req.VectorQuery)}
	if req.Conversation != nil {
		conv = *req.Conversation
	}
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	jstart := time.Now()
	scores, codes := judgeAll(ctx, j, conv, now, elig, req.OnJudged)
	res.Judging = time.Since(jstart)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	for i, p := range elig {
		switch {
		case codes[i] != "":
			res.Failed++
			res.FailCodes = append(res.FailCodes, codes[i])
		case scores[i] >= req.MinUsefulness:
			res.Results = append(res.Results, Scored{Passage: p.Passage, Score: scores[i], rank: p.rank})
		default:
			res.Below++
		}
	}
	if res.Failed == len(elig) {
		return res, ErrAllFailed
	}
	slices.SortStableFunc(res.Results, func(a, b Scored) int {
		switch {
		case a.Score != b.Score:
			return cmpDesc(a.Score, b.Score)
		default:
			return cmpDesc(a.rank, b.rank)
		}
	})
	res.Results = res.Results[:min(len(res.Results), limit)]
	return res, nil
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// noPhrases makes the lexical lane's query keywords: quotes make no
// phrases (the lane ORs what the all-words plan leaves short).
func noPhrases(q string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(q), `"`, " ")), " ")
}

// merge puts both lanes' hits together, de-duplicated by (path, lines,
// text), each with its internal rank score 1/(rank+1) summed over the
// lanes that brought it; lexical hits first, then the vector lane's new
// ones.
func merge(lex, vec []Passage) []Scored {
	var out []Scored
	at := map[string]int{}
	for _, lane := range [][]Passage{lex, vec} {
		for rank, p := range lane {
			key := fmt.Sprintf("%s\x00%d\x00%d\x00%s", p.Path, p.StartLine, p.EndLine, p.Text)
			if i, ok := at[key]; ok {
				out[i].rank += 1 / float64(rank+1)
				continue
			}
			at[key] = len(out)
			out = append(out, Scored{Passage: p, rank: 1 / float64(rank+1)})
		}
	}
	slices.SortStableFunc(out, func(a, b Scored) int { return cmpDesc(a.rank, b.rank) })
	return out
}

// eligible keeps the passages C11 step 5 allows: of a selected corpus,
// non-empty, at most MaxPassageChars characters, not in cooldown, not a
// duplicate of an earlier one (same normalized text, or lines that
// overlap in one path).
func eligible(cands []Scored, corpora []string, skip func(string) bool) ([]Scored, int) {
	var out []Scored
	cooling := 0
	seen := map[string]bool{}
	for _, c := range cands {
		text := strings.TrimSpace(c.Text)
		norm := strings.ToLower(strings.Join(strings.Fields(text), " "))
		switch {
		case text == "" || utf8.RuneCountInString(c.Text) > MaxPassageChars:
			continue
		case len(corpora) > 0 && !slices.Contains(corpora, "all") && !slices.ContainsFunc(corpora, func(n string) bool { return strings.EqualFold(n, c.Corpus) }):
			continue
		case seen[norm]:
			continue
		case skip != nil && skip(c.ID()):
			cooling++
			continue
		case slices.ContainsFunc(out, func(k Scored) bool {
			return k.Path == c.Path && k.StartLine <= c.EndLine && c.StartLine <= k.EndLine
		}):
			continue
		}
		seen[norm] = true
		out = append(out, c)
	}
	return out, cooling
}

// candidateState is one passage as the usefulness rubric reads it.
type candidateState struct {
	Excerpt    string   `json:"excerpt"`
	Corpus     string   `json:"corpus"`
	SourcePath string   `json:"sourcePath"`
	Dates      []string `json:"dates"`
}

type usefulnessState struct {
	Conversation Conversation     `json:"conversation"`
	AsOf         string           `json:"asOf"`
	Candidates   []candidateState `json:"candidates"`
}

// judgeAll asks one memory-usefulness judgment per passage, all at once,
// and waits for every one. codes[i] is set where judgment i failed.
func judgeAll(ctx context.Context, j Asker, conv Conversation, now time.Time, ps []Scored,
	heard func(Passage, float64, judge.Code, time.Duration)) ([]float64, []judge.Code) {
	scores := make([]float64, len(ps))
	codes := make([]judge.Code, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dates := p.Dates
			if dates == nil {
				dates = []string{}
			}
			st := usefulnessState{Conversation: conv, AsOf: now.UTC().Format("2006-01-02"),
				Candidates: []candidateState{{Excerpt: p.Text, Corpus: p.Corpus, SourcePath: p.Path, Dates: dates}}}
			start := time.Now()
			got, err := j.Ask(ctx, &judge.Request{Rubric: judge.MemoryUsefulness, State: st})
			if err != nil {
				codes[i] = codeOf(err)
			} else {
				scores[i] = got.Answers["memory_0"].P
			}
			if heard != nil {
				heard(p.Passage, scores[i], codes[i], time.Since(start))
			}
		}()
	}
	wg.Wait()
	return scores, codes
}

// codeOf is the judge error code of err, "unexpected" for another error.
func codeOf(err error) judge.Code {
	if c := judge.CodeOf(err); c != "" {
		return c
	}
	switch {
	case errors.Is(err, context.Canceled):
		return judge.CodeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return judge.CodeTimeout
	case errors.Is(err, cairn.ErrUnavailable):
		return "unavailable"
	}
	return "unexpected"
}
