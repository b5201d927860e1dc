package gather

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Defaults of a gather (spec §7).
const (
	DefaultWide          = 200 // observations, and other memories, in the wide search
	DefaultPartSize      = 40  // candidates one model call reads
	DefaultFollowUps     = 6   // further searches run
	DefaultFollowUpLimit = 30  // results of each further search
	DefaultParallel      = 4   // model calls in flight
	DefaultTimeout       = 120 * time.Second
	// A part's output budget: TokensPerCandidate for each of its
	// candidates plus TokensPerPart.
	TokensPerCandidate = 40
	TokensPerPart      = 600
)

// Kinds a search selects.
const (
	KindsAll          = ""            // every kind
	KindsObservations = "observation" // observations only
	KindsOther        = "other"       // every kind but observations
)

// Search is one memory search.
type Search struct {
	Text  string
	Kinds string // KindsAll, KindsObservations or KindsOther
	// From and To bound the event time (YYYY, YYYY-MM or YYYY-MM-DD; empty:
	// open): a memory matches when its event date or span overlaps the
	// range at the precision it has (spec §7).
	From, To string
	Limit    int
}

// Candidate is a memory a search found, with what the model is shown.
type Candidate struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title"`
	Text      string    `json:"text"`    // the summary (a profile's whole text)
	Passage   string    `json:"passage"` // the passage that matched
	EventDate string    `json:"event_date,omitempty"`
	StartDate string    `json:"start_date,omitempty"`
	EndDate   string    `json:"end_date,omitempty"`
	ToldAt    time.Time `json:"told_at,omitzero"` // left out when unknown
	Score     float64   `json:"score"`
}

// Searcher runs memory searches: the engine's memory search with the
// caller's filters (scope, project, status) applied. Hits come best
// first; Score orders hits of different searches (the calibrated score).
type Searcher interface {
	SearchMemories(ctx context.Context, s Search) ([]Candidate, error)
}

// Gatherer gathers memories for a question. Search is required; Model
// (the fast model) may be nil: the ranked list then comes back unjudged.
type Gatherer struct {
	Search Searcher
	Model  cairn.LLM
	// Tunables, defaults above: Wide, PartSize, FollowUps, FollowUpLimit,
	// Parallel, Timeout (per model call).
	Wide, PartSize, FollowUps, FollowUpLimit, Parallel int
	Timeout                                            time.Duration
}

// New returns a Gatherer with the defaults.
func New(s Searcher, model cairn.LLM) *Gatherer {
	return &Gatherer{Search: s, Model: model, Wide: DefaultWide, PartSize: DefaultPartSize, FollowUps: DefaultFollowUps,
		FollowUpLimit: DefaultFollowUpLimit, Parallel: DefaultParallel, Timeout: DefaultTimeout}
}

func (g *Gatherer) setDefaults() {
	g.Wide = cmp.Or(g.Wide, DefaultWide)
	g.PartSize = cmp.Or(g.PartSize, DefaultPartSize)
	g.FollowUps = cmp.Or(g.FollowUps, DefaultFollowUps)
	g.FollowUpLimit = cmp.Or(g.FollowUpLimit, DefaultFollowUpLimit)
	g.Parallel = max(cmp.Or(g.Parallel, DefaultParallel), 1)
	g.Timeout = cmp.Or(g.Timeout, DefaultTimeout)
}

// Request is one question.
type Request struct {
	Question string
	// From and To name the question's time when the caller knows it;
	// empty: taken from the question's own words (NamedTime), if any.
	From, To string
	// Now resolves relative times in the question ("last week"); zero:
	// only absolute dates are recognised.
	Now time.Time
}

// Result is the gathered set. JSON names are fixed.
type Result struct {
	// Memories: the kept set first in rank order, then the rest by rank.
	Memories []Gathered `json:"memories"`
	// Judged is false when no part was read by the model (none
	// configured, or unavailable): Memories is then the ranked list.
	Judged bool   `json:"judged"`
	Reason string `json:"reason,omitempty"` // why unjudged
	Kept   int    `json:"kept"`
	// From and To: the time searched first, when the question names one.
	From     string   `json:"from,omitempty"`
	To       string   `json:"to,omitempty"`
	Searches []string `json:"searches"` // the further searches run
	Stats    Stats    `json:"stats"`
	// Hint is set by a caller that knows why nothing could be found (the
	// engine: no memory is stored yet).
	Hint string `json:"hint,omitempty"`
}

// Gathered is a candidate with what the gather made of it.
type Gathered struct {
	Candidate
	Rank int  `json:"rank"` // 1-based: dated hits, then the wide search, then further searches
	Kept bool `json:"kept"`
	// Read is false when its part got no answer (it is kept then).
	Read bool `json:"read"`
	// Round is 1 for the wide search, 2 for the further searches.
	Round int `json:"round"`
}

// Stats counts what a gather cost.
type Stats struct {
	Candidates     int `json:"candidates"`
	Parts          int `json:"parts"`
	Unanswered     int `json:"unanswered"` // parts with no usable answer: all kept
	Calls          int `json:"calls"`
	TokensIn       int `json:"tokens_in"`
	TokensOut      int `json:"tokens_out"`
	InvalidAnswers int `json:"invalid_answers"`
	// Proposed counts the further searches the model proposed, before
	// dropping repeats and those past FollowUps, and those the further
	// searches' own parts proposed (never run).
	Proposed int `json:"proposed"`
	// Refused counts the further searches the search refused as invalid
	// (a proposal of only common words): skipped, not in Searches.
	Refused int `json:"refused"`
}

// Gather runs the wide search, has the fast model read the candidates in
// parts, runs the further searches it proposes and has their new
// candidates read the same way.
func (g *Gatherer) Gather(ctx context.Context, req *Request) (*Result, error) {
	if req == nil || strings.TrimSpace(req.Question) == "" {
		return nil, cairn.Invalidf("question is required")
	}
	if g.Search == nil {
		return nil, errors.New("no searcher")
	}
	for _, f := range []struct{ name, v string }{{"from", req.From}, {"to", req.To}} {
		if f.v != "" && !validDate(f.v) {
			return nil, cairn.Invalidf("%s %q; allowed: a date as YYYY, YYYY-MM or YYYY-MM-DD", f.name, f.v)
		}
	}
	gg := *g
	gg.setDefaults()
	res := &Result{Memories: []Gathered{}, Searches: []string{}}
	res.From, res.To = req.From, req.To
	if res.From == "" && res.To == "" {
		res.From, res.To, _ = NamedTime(req.Question, req.Now)
	}
	pool := &pool{seen: map[string]bool{}}
	if err := gg.wide(ctx, req.Question, res, pool); err != nil {
		return nil, err
	}
	rd := &reader{g: &gg, question: req.Question, from: res.From, to: res.To, stats: &res.Stats}
	if gg.Model == nil {
		res.Reason = "no fast model configured"
		return finish(res, pool, false), nil
	}
	first, err := rd.read(ctx, pool.items, 1)
	if err != nil {
		return nil, err
	}
	if !first.answered && len(pool.items) > 0 {
		res.Reason = first.reason
		return finish(res, pool, false), nil
	}
	res.Searches = gg.followUps(req.Question, first.searches, &res.Stats)
	start := len(pool.items)
	ran := []string{}
	for _, q := range res.Searches {
		hits, err := gg.Search.SearchMemories(ctx, Search{Text: q, Kinds: KindsAll, Limit: gg.FollowUpLimit})
		if errors.Is(err, cairn.ErrInvalid) {
			// A search the model proposed that the search refuses (only
			// common words, no words): its input, not the caller's, so
			// it is counted and the gather goes on.
			res.Stats.Refused++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("further search %q: %w", q, err)
		}
		ran = append(ran, q)
		pool.add(hits[:min(len(hits), gg.FollowUpLimit)], 2)
	}
	res.Searches = ran
	second, err := rd.read(ctx, pool.items[start:], 2)
	if err != nil {
		return nil, err
	}
	res.Stats.Proposed += len(second.searches) // counted, not run
	return finish(res, pool, true), nil
}

// wide is step one: the dated search first when the question names a
// time, then up to Wide observations and Wide other memories, merged by
// score.
func (g *Gatherer) wide(ctx context.Context, q string, res *Result, p *pool) error {
	search := func(s Search) ([]Candidate, error) {
		hits, err := g.Search.SearchMemories(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", cmp.Or(s.Kinds, "all"), err)
		}
		return hits[:min(len(hits), s.Limit)], nil
	}
	if res.From != "" || res.To != "" {
		dated, err := search(Search{Text: q, Kinds: KindsAll, From: res.From, To: res.To, Limit: g.Wide})
		if err != nil {
			return err
		}
		p.add(dated, 1)
	}
	obs, err := search(Search{Text: q, Kinds: KindsObservations, Limit: g.Wide})
	if err != nil {
		return err
	}
	other, err := search(Search{Text: q, Kinds: KindsOther, Limit: g.Wide})
	if err != nil {
		return err
	}
	p.add(merge(obs, other), 1)
	return nil
}

// merge interleaves two ranked lists by score, best first; on equal
// scores a's hit comes first.
func merge(a, b []Candidate) []Candidate {
	out := make([]Candidate, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && a[0].Score >= b[0].Score) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// pool holds the candidates in rank order, each once.
type pool struct {
	items []*Gathered
	seen  map[string]bool
}

func (p *pool) add(cs []Candidate, round int) {
	for _, c := range cs {
		if p.seen[c.ID] {
			continue
		}
		p.seen[c.ID] = true
		p.items = append(p.items, &Gathered{Candidate: c, Rank: len(p.items) + 1, Round: round})
	}
}

// followUps picks the further searches: the parts' proposals in part
// order, each once (compared without case and spacing), not the question
// again, at most FollowUps.
func (g *Gatherer) followUps(question string, proposed []string, st *Stats) []string {
	st.Proposed = len(proposed)
	key := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	seen := map[string]bool{key(question): true}
	out := []string{}
	for _, s := range proposed {
		s = strings.Join(strings.Fields(s), " ")
		if k := key(s); k != "" && !seen[k] && len(out) < g.FollowUps {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}

// finish orders the result: the kept set in rank order, then the rest.
func finish(res *Result, p *pool, judged bool) *Result {
	res.Judged = judged
	res.Stats.Candidates = len(p.items)
	for _, it := range p.items {
		if !judged {
			it.Kept, it.Read = false, false
		}
	}
	items := slices.Clone(p.items)
	slices.SortStableFunc(items, func(a, b *Gathered) int {
		if a.Kept != b.Kept {
			if a.Kept {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Rank, b.Rank)
	})
	for _, it := range items {
		if it.Kept {
			res.Kept++
		}
		res.Memories = append(res.Memories, *it)
	}
	return res
}
