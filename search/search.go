package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
)

// DefaultCommonCap is the posting-list length at which a term counts as
// common and is left out of the any-of fallback when rarer terms exist;
// counts stop there and are extrapolated beyond it. It equals the scoring
// budget: a term over the budget never joins others in the any-of query.
const DefaultCommonCap = 2000

// DefaultMaxCandidates caps how many matches one query of plain words
// scores; see cairn.LexicalQuery.MaxCandidates. Scoring costs about 0.7 µs a
// match, so 2,000 bounds a query near 2 ms however common its words.
const DefaultMaxCandidates = 2000

// PhraseMaxCandidates is the cap for queries with a phrase (quoted, or an
// identifier's parts): FTS5 checks positions for every candidate, about
// five times the cost of a plain word.
const PhraseMaxCandidates = 500

// Index is the part of the store a Searcher reads.
type Index interface {
	Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error)
	MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error)
	Span(ctx context.Context) (cairn.IndexSpan, error)
}

// Searcher answers lexical queries over an Index.
type Searcher struct {
	Index         Index
	CommonCap     int // default DefaultCommonCap
	MaxCandidates int // default DefaultMaxCandidates; negative: no cap
	// PhraseMaxCandidates caps queries with phrases, default
	// PhraseMaxCandidates; negative: no cap.
	PhraseMaxCandidates int

	mu     sync.Mutex
	gen    int64 // index generation the counts belong to
	span   *cairn.IndexSpan
	counts map[string]int // phrase (its Match.String) → matching chunks, estimated above the common cap
}

// maxCandidates returns the scoring cap for exprs (0: none).
func (s *Searcher) maxCandidates(q Query) int {
	n, def := s.MaxCandidates, DefaultMaxCandidates
	if q.hasPhrase() {
		n, def = s.PhraseMaxCandidates, PhraseMaxCandidates
	}
	switch {
	case n < 0:
		return 0
	case n == 0:
		return def
	}
	return n
}

// Search parses raw, runs the all-words query and, when that finds fewer
// than opts.Limit hits, an any-words query, and returns scored hits.
// opts.Corpora must already be resolved to corpus names (empty = all).
func (s *Searcher) Search(ctx context.Context, raw string, opts *cairn.SearchOptions) ([]cairn.Hit, error) {
	return s.SearchPaths(ctx, raw, opts, Scope{})
}

// Scope restricts a search to some documents. Paths, when not nil, lists
// the documents allowed in the corpora PathCorpora names (in every corpus
// when PathCorpora is nil); documents of other corpora stay eligible. A
// session filter sets it: the matching sessions of the sessions corpora,
// every document of the others (spec C11).
type Scope struct {
	Paths       []string
	PathCorpora []string
}

// MaxLaneLimit is the most candidates SearchPaths returns: the engine's
// lexical lane asks for up to four chunks per hit of a search of the
// memories corpus alone (a memory is several chunks), so up to four
// times cairn.MaxRecallLimit. Requests stop at cairn.MaxRecallLimit.
const MaxLaneLimit = 4 * cairn.MaxRecallLimit

// SearchPaths is Search restricted to the documents in scope.
//
// Scores are BM25 as FTS5 defines it (k1 = 1.2, b = 0.75, column weights
// title 2, body 1, identifiers 1), with each phrase's inverse document
// frequency computed here from counts cached per index generation: the
// store scores only the chunks a query scans. Counts above the common cap
// are extrapolated from how far back in the index the cap was reached.
func (s *Searcher) SearchPaths(ctx context.Context, raw string, opts *cairn.SearchOptions, scope Scope) ([]cairn.Hit, error) {
	o := cairn.SearchOptions{}
	if opts != nil {
		o = *opts
	}
	o.SetDefaults()
	check := o
	if o.Limit > cairn.MaxRecallLimit && o.Limit <= MaxLaneLimit {
		check.Limit = cairn.MaxRecallLimit // a lane of a memories-only search: more chunks than hits
	}
	if err := check.Validate(); err != nil {
		return nil, err
	}
	q, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	budget := s.maxCandidates(q)
	plan := map[int64]string{}
	terms := make([]counted, len(q.Terms))
	for i, t := range q.Terms {
		terms[i].phrases = t.Phrases()
	}
	if len(terms) == 1 && len(terms[0].phrases) == 1 {
		return s.onePhrase(ctx, q, terms[0].phrases[0], &o, scope, budget)
	}
	if err := s.countAll(ctx, terms); err != nil {
		return nil, err
	}
	for i := range terms {
		for _, p := range terms[i].phrases {
			n, err := s.count(ctx, p)
			if err != nil {
				return nil, err
			}
			terms[i].counts = append(terms[i].counts, n)
			terms[i].n += n
		}
	}
	span, err := s.indexSpan(ctx)
	if err != nil {
		return nil, err
	}
	// All words: it matches at most as many chunks as its rarest term.
	var cands []cairn.Candidate
	if slices.MinFunc(terms, byCount).n > 0 {
		res, err := s.Index.Lexical(ctx, cairn.LexicalQuery{Match: weighted(cairn.MatchAll, span, terms), Corpora: o.Corpora, Paths: scope.Paths, PathCorpora: scope.PathCorpora,
			Limit: o.Limit, MaxCandidates: budget, FewMatches: s.few(terms, true, budget)})
		if err != nil {
			return nil, err
		}
		cands = res.Candidates
		for _, c := range cands {
			plan[c.ChunkID] = "all-words"
		}
	}
	if len(terms) > 1 && len(cands) < o.Limit {
		kept, total := s.anyWords(terms, budget)
		if total > 0 {
			res, err := s.Index.Lexical(ctx, cairn.LexicalQuery{Match: weighted(cairn.MatchAny, span, kept), Corpora: o.Corpora, Paths: scope.Paths, PathCorpora: scope.PathCorpora,
				Limit: o.Limit + len(cands), MaxCandidates: budget, FewMatches: s.few(kept, false, budget)})
			if err != nil {
				return nil, err
			}
			cands = merge(cands, res.Candidates, plan, fmt.Sprintf("any-words(%d/%d terms)", len(kept), len(terms)))
		}
	}
	hits := s.hits(q, cands, plan, &o, termWeights(span, terms), idf(span.Rows, 0))
	known := 0
	for _, t := range terms {
		if t.n > 0 {
			known++
		}
	}
	// Known and the index's size (Rows) go on every hit, so that lexical
	// mode weighs a word held beside words in no chunk (termsunknown) as
	// hybrid does; hybrid and vector set both again (engine querySignals).
	for i := range hits {
		hits[i].Signals.Known = float64(known) / float64(len(terms))
		hits[i].Signals.Rows = span.Rows
	}
	return hits, nil
}

// onePhrase answers a query of one phrase. Its inverse document frequency
// only scales the scores, so the scan runs first and, unfiltered, counts
// the phrase itself (up to the cap; extrapolated beyond it).
func (s *Searcher) onePhrase(ctx context.Context, q Query, expr cairn.Match, o *cairn.SearchOptions, scope Scope, budget int) ([]cairn.Hit, error) {
	gen := s.generation()
	known, ok := s.cached(expr)
	few := ok && s.exact(known) && known <= budget
	res, err := s.Index.Lexical(ctx, cairn.LexicalQuery{Match: expr.Weighted(1), Corpora: o.Corpora, Paths: scope.Paths, PathCorpora: scope.PathCorpora,
		Limit: o.Limit, MaxCandidates: budget, FewMatches: few})
	if err != nil {
		return nil, err
	}
	span, err := s.indexSpan(ctx)
	if err != nil {
		return nil, err
	}
	var n int
	if cached, ok := s.cached(expr); ok {
		n = cached
	} else if len(o.Corpora) == 0 && scope.Paths == nil {
		n = estimate(span, cairn.MatchCount{N: res.Scanned, Low: res.Low}, res.Capped)
		if !res.Capped && s.exact(n) {
			// Every match was scanned: the exact count, the one count()
			// would find. Kept, so that the phrase asked again is known
			// to have few matches (FewMatches) and weighs the same.
			s.remember(gen, expr, n)
		}
	} else if n, err = s.count(ctx, expr); err != nil {
		return nil, err
	}
	w := idf(span.Rows, n)
	plan := map[int64]string{}
	for i := range res.Candidates {
		res.Candidates[i].Score *= w
		plan[res.Candidates[i].ChunkID] = "all-words"
	}
	return s.hits(q, res.Candidates, plan, o, []float64{w}, idf(span.Rows, 0)), nil
}

// idf is the inverse document frequency of a phrase in n of rows chunks,
// in the form that stays positive: ln(1 + (rows - n + 0.5) / (n + 0.5)).
// FTS5's bm25() uses the plain logarithm, which is 0 for a phrase in half
// the rows and negative above (FTS5 then takes 1e-6): in a corpus of two
// notes, a word in one of them scored 0, and the 0.3 minimum score of
// memory_search dropped the only match. For rare phrases the two agree
// (ln(1+x) ≈ ln x for large x). A count above the row count (a span cached
// before a sync added rows) still weighs like a phrase in every row, not
// NaN.
func idf(rows int64, n int) float64 {
	v := math.Log1p((float64(rows) - float64(n) + 0.5) / (float64(n) + 0.5))
	if !(v > 0) {
		return 1e-6
	}
	return v
}

// weighted joins the terms' matches under op (cairn.MatchAll or
// cairn.MatchAny), each phrase weighted by its inverse document frequency.
func weighted(op cairn.MatchOp, span cairn.IndexSpan, terms []counted) cairn.Match {
	of := make([]cairn.Match, len(terms))
	for i, t := range terms {
		ph := make([]cairn.Match, len(t.phrases))
		for k, p := range t.phrases {
			ph[k] = p.Weighted(idf(span.Rows, t.counts[k]))
		}
		of[i] = anyPhrase(ph)
	}
	return cairn.Match{Op: op, Of: of}
}

// estimate turns a count taken newest first into a total: exact when the
// cap was not reached, else extrapolated by how much of the id range the
// capped count covered (at least the count, at most every row).
func estimate(span cairn.IndexSpan, m cairn.MatchCount, capped bool) int {
	if !capped || m.Low <= 0 || span.MaxID < m.Low {
		return m.N
	}
	covered := float64(span.MaxID - m.Low + 1)
	n := int(float64(m.N) * float64(span.MaxID-span.MinID+1) / covered)
	return max(m.N, min(n, int(span.Rows)))
}

type counted struct {
	phrases []cairn.Match
	counts  []int // per phrase
	n       int   // matching chunks: the sum over phrases, an upper bound
}

func byCount(a, b counted) int { return a.n - b.n }

// exact reports whether a count is exact: below the common cap, where
// counting stopped short of it (above it counts are extrapolated).
func (s *Searcher) exact(n int) bool { return n < s.commonCap() }

// few reports whether the terms' match, all of them (all) or any, holds at
// most budget chunks by their exact counts, so that the store scores every
// match and may walk them in its cheaper order (cairn.LexicalQuery's
// FewMatches). All words match at most as many chunks as the term with the
// fewest; any word at most the sum. A term's count is the sum over its
// phrases, exact when each is. The counts belong to the current index
// generation; one taken before a sync may be short, which the store
// checks. budget 0 (no cap) scores every match anyway: false.
func (s *Searcher) few(terms []counted, all bool, budget int) bool {
	if budget <= 0 || len(terms) == 0 {
		return false
	}
	bound, found := 0, false
	for _, t := range terms {
		exact := len(t.counts) == len(t.phrases)
		for _, c := range t.counts {
			exact = exact && s.exact(c)
		}
		switch {
		case all && exact && (!found || t.n < bound):
			bound, found = t.n, true
		case !all && !exact:
			return false
		case !all:
			bound, found = bound+t.n, true
		}
	}
	return found && bound <= budget
}

// anyWords picks the terms of the any-words query: rarest first, while
// their postings add up to at most the scoring budget, so every chunk that
// matches a kept term is scored and the rarest (most informative) terms are
// the ones kept. The rarest matching term is always kept; terms at the
// common cap are never added to others. It returns the terms and an upper
// bound of the chunks they match.
func (s *Searcher) anyWords(terms []counted, budget int) ([]counted, int) {
	cs := slices.Clone(terms)
	slices.SortStableFunc(cs, byCount)
	var kept []counted
	total := 0
	for _, c := range cs {
		if c.n == 0 {
			continue
		}
		if len(kept) > 0 && (budget > 0 && total+c.n > budget || c.n >= s.commonCap()) {
			break
		}
		kept = append(kept, c)
		total += c.n
	}
	return kept, total
}

func (s *Searcher) commonCap() int {
	if s.CommonCap <= 0 {
		return DefaultCommonCap
	}
	return s.CommonCap
}

// generation returns the index generation, or -1 when the index has none
// (then nothing is cached).
func (s *Searcher) generation() int64 {
	if g, ok := s.Index.(interface{ Generation() int64 }); ok {
		return g.Generation()
	}
	return -1
}

// cached returns a count cached for the current index generation.
func (s *Searcher) cached(expr cairn.Match) (int, bool) {
	gen := s.generation()
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen < 0 || gen != s.gen {
		return 0, false
	}
	n, ok := s.counts[expr.String()]
	return n, ok
}

// indexSpan returns the index's row count and id range, cached per
// generation.
func (s *Searcher) indexSpan(ctx context.Context) (cairn.IndexSpan, error) {
	gen := s.generation()
	s.mu.Lock()
	if gen >= 0 && gen == s.gen && s.span != nil {
		sp := *s.span
		s.mu.Unlock()
		return sp, nil
	}
	s.mu.Unlock()
	sp, err := s.Index.Span(ctx)
	if err != nil || gen < 0 {
		return sp, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset(gen)
	s.span = &sp
	return sp, nil
}

// reset empties the caches when the generation moved on; s.mu is held.
func (s *Searcher) reset(gen int64) {
	if s.counts == nil || gen != s.gen || len(s.counts) >= maxCachedCounts {
		if gen != s.gen {
			s.span = nil
		}
		s.gen, s.counts = gen, make(map[string]int)
	}
}

// count returns how many chunks match expr: exact up to the common cap,
// extrapolated above it. Counts are cached until the index changes
// (Index.Generation), so warm searches pay for them once per distinct term.
func (s *Searcher) count(ctx context.Context, expr cairn.Match) (int, error) {
	if n, ok := s.cached(expr); ok {
		return n, nil
	}
	span, err := s.indexSpan(ctx)
	if err != nil {
		return 0, err
	}
	m, err := s.Index.MatchCount(ctx, expr, s.commonCap())
	if err != nil {
		return 0, err
	}
	n := estimate(span, m, m.N >= s.commonCap())
	gen := s.generation()
	if gen < 0 {
		return n, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset(gen)
	s.counts[expr.String()] = n
	return n, nil
}

// matchCounter is what an Index may offer to count many matches at once
// (postgres.Store.MatchCounts: one statement for all of them, where
// MatchCount is one round trip each).
type matchCounter interface {
	MatchCounts(ctx context.Context, ms []cairn.Match, max int) ([]cairn.MatchCount, error)
}

// countAll counts the uncached phrases of terms in one call when the
// Index has MatchCounts and generations (without them nothing is cached,
// and count would ask again), and caches them as count does; the counting
// loop then finds them cached. A cold search of several terms was one
// statement a term, each waiting on the last (bench/RESULTS.md, issue 20,
// pgq). Fewer than two uncached phrases are left to count.
func (s *Searcher) countAll(ctx context.Context, terms []counted) error {
	mc, ok := s.Index.(matchCounter)
	gen := s.generation()
	if !ok || gen < 0 {
		return nil
	}
	var ms []cairn.Match
	seen := map[string]bool{}
	for _, t := range terms {
		for _, p := range t.phrases {
			k := p.String()
			if _, ok := s.cached(p); ok || seen[k] {
				continue
			}
			seen[k] = true
			ms = append(ms, p)
		}
	}
	if len(ms) < 2 {
		return nil
	}
	span, err := s.indexSpan(ctx)
	if err != nil {
		return err
	}
	got, err := mc.MatchCounts(ctx, ms, s.commonCap())
	if err != nil {
		return err
	}
	if len(got) != len(ms) {
		return fmt.Errorf("count matches: %d counts for %d matches", len(got), len(ms))
	}
	for k, m := range ms {
		s.remember(gen, m, estimate(span, got[k], got[k].N >= s.commonCap()))
	}
	return nil
}

// remember caches n as expr's count for generation gen, the one the count
// was taken in; nothing when the index has moved on since (or has no
// generations).
func (s *Searcher) remember(gen int64, expr cairn.Match, n int) {
	if gen < 0 || s.generation() != gen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset(gen)
	s.counts[expr.String()] = n
}

// maxCachedCounts bounds the term-count cache.
const maxCachedCounts = 50000

type hitKey struct {
	id           int64
	corpus, path string
}

func merge(first, more []cairn.Candidate, plan map[int64]string, label string) []cairn.Candidate {
	seen := make(map[hitKey]bool, len(first))
	for _, c := range first {
		seen[hitKey{c.ChunkID, c.Corpus, c.Path}] = true
	}
	out := first
	for _, c := range more {
		k := hitKey{c.ChunkID, c.Corpus, c.Path}
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, ok := plan[c.ChunkID]; !ok {
			plan[c.ChunkID] = label
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// Normalize maps a lexical score (cairn.Candidate.Score: BM25, 0 or more,
// higher is better) to 0..1.
func Normalize(s float64) float64 {
	if s <= 0 {
		return 0
	}
	return s / (1 + s)
}

// hits turns candidates into hits; w are the query terms' weights
// (termWeights), whose sum is the ideal HitSignals.Match divides by, and
// maxW the weight of a term in no chunk.
func (s *Searcher) hits(q Query, cands []cairn.Candidate, plan map[int64]string, o *cairn.SearchOptions, w []float64, maxW float64) []cairn.Hit {
	out := make([]cairn.Hit, 0, min(len(cands), o.Limit))
	ideal := 0.0
	for _, v := range w {
		ideal += v
	}
	words := q.highlightWords()
	for _, c := range cands {
		if len(out) == o.Limit {
			break
		}
		score := Normalize(c.Score)
		if score < o.MinScore {
			continue
		}
		h := cairn.Hit{
			Path:      "cairn://" + c.Corpus + "/" + c.Path,
			StartLine: c.StartLine,
			EndLine:   c.EndLine,
			Snippet:   Snippet(c.Text, words),
			Corpus:    c.Corpus,
			Score:     score,
			Signals: &cairn.HitSignals{BM25: c.Score, Match: c.Score / max(ideal, 1e-9), LexRank: len(out) + 1, Known: 1,
				AllWords: plan[c.ChunkID] == "all-words"},
		}
		termSignals(h.Signals, q, c.Title+"\n"+c.Text, w, maxW)
		if o.Explain {
			h.Explain = []string{
				fmt.Sprintf("bm25(%.4f):%.4f", c.Score, score),
				"plan:" + plan[c.ChunkID],
				"chunk:" + fmt.Sprint(c.Seq),
			}
			if c.Capped {
				h.Explain = append(h.Explain, fmt.Sprintf("capped:newest-%d-matches", s.maxCandidates(q)))
			}
			if len(q.Dropped) > 0 {
				h.Explain = append(h.Explain, "stopwords:"+strings.Join(q.Dropped, ","))
			}
		}
		out = append(out, h)
	}
	return out
}
