package search

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
)

// DefaultCommonCap is the posting-list length at which a term counts as
// common and is left out of the any-of fallback when rarer terms exist.
const DefaultCommonCap = 5000

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
	Lexical(ctx context.Context, q cairn.LexicalQuery) ([]cairn.Candidate, error)
	MatchCount(ctx context.Context, match string, max int) (int, error)
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
	gen    int64          // index generation the counts belong to
	counts map[string]int // expression → matching chunks (up to the common cap)
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
	return s.SearchPaths(ctx, raw, opts, nil)
}

// SearchPaths is Search restricted to the documents at paths (of
// opts.Corpora) when paths is not nil.
func (s *Searcher) SearchPaths(ctx context.Context, raw string, opts *cairn.SearchOptions, paths []string) ([]cairn.Hit, error) {
	o := cairn.SearchOptions{}
	if opts != nil {
		o = *opts
	}
	o.SetDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	q, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	terms := make([]counted, len(q.Terms))
	for i, t := range q.Terms {
		terms[i].expr = t.Expr()
		if terms[i].n, err = s.count(ctx, terms[i].expr); err != nil {
			return nil, err
		}
	}
	budget := s.maxCandidates(q)
	plan := map[int64]string{}
	// All words: it matches at most as many chunks as its rarest term.
	var cands []cairn.Candidate
	if rarest := slices.MinFunc(terms, byCount).n; rarest > 0 {
		and := make([]string, len(terms))
		for i, t := range terms {
			and[i] = t.expr
		}
		cands, err = s.Index.Lexical(ctx, cairn.LexicalQuery{Match: strings.Join(and, " AND "), Corpora: o.Corpora, Paths: paths,
			Limit: o.Limit, MaxCandidates: capIfOver(budget, rarest)})
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			plan[c.ChunkID] = "all-words"
		}
	}
	if len(terms) > 1 && len(cands) < o.Limit {
		kept, total := s.anyWords(terms, budget)
		if total > 0 {
			more, err := s.Index.Lexical(ctx, cairn.LexicalQuery{Match: strings.Join(kept, " OR "), Corpora: o.Corpora, Paths: paths,
				Limit: o.Limit + len(cands), MaxCandidates: capIfOver(budget, total)})
			if err != nil {
				return nil, err
			}
			cands = merge(cands, more, plan, fmt.Sprintf("any-words(%d/%d terms)", len(kept), len(terms)))
		}
	}
	return s.hits(q, cands, plan, &o), nil
}

// capIfOver returns the scoring cap when a query may match more chunks than
// it (at least n), else 0: no cap, which also saves finding the cap's floor.
func capIfOver(budget, n int) int {
	if budget > 0 && n >= budget {
		return budget
	}
	return 0
}

type counted struct {
	expr string
	n    int // matching chunks, counted up to the common cap
}

func byCount(a, b counted) int { return a.n - b.n }

// anyWords picks the terms of the any-words query: rarest first, while
// their postings add up to at most the scoring budget, so every chunk that
// matches a kept term is scored and the rarest (most informative) terms are
// the ones kept. The rarest matching term is always kept; terms at the
// common cap are never added to others. It returns the expressions and an
// upper bound of the chunks they match.
func (s *Searcher) anyWords(terms []counted, budget int) ([]string, int) {
	cs := slices.Clone(terms)
	slices.SortStableFunc(cs, byCount)
	var kept []string
	total := 0
	for _, c := range cs {
		if c.n == 0 {
			continue
		}
		if len(kept) > 0 && (budget > 0 && total+c.n > budget || c.n >= s.commonCap()) {
			break
		}
		kept = append(kept, c.expr)
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

// count returns how many chunks match expr, counting up to the common cap.
// Counts are cached until the index changes (Index.Generation), so warm
// searches pay for them once per distinct term.
func (s *Searcher) count(ctx context.Context, expr string) (int, error) {
	var gen int64 = -1
	if g, ok := s.Index.(interface{ Generation() int64 }); ok {
		gen = g.Generation()
	}
	s.mu.Lock()
	if gen >= 0 && gen == s.gen {
		if n, ok := s.counts[expr]; ok {
			s.mu.Unlock()
			return n, nil
		}
	}
	s.mu.Unlock()
	n, err := s.Index.MatchCount(ctx, expr, s.commonCap())
	if err != nil || gen < 0 {
		return n, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil || gen != s.gen || len(s.counts) >= maxCachedCounts {
		s.gen, s.counts = gen, make(map[string]int)
	}
	s.counts[expr] = n
	return n, nil
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
	sort.SliceStable(out, func(i, j int) bool { return out[i].BM25 < out[j].BM25 })
	return out
}

// Normalize maps an FTS5 bm25() value (negative, lower is better) to 0..1.
func Normalize(bm25 float64) float64 {
	s := -bm25
	if s <= 0 {
		return 0
	}
	return s / (1 + s)
}

func (s *Searcher) hits(q Query, cands []cairn.Candidate, plan map[int64]string, o *cairn.SearchOptions) []cairn.Hit {
	out := make([]cairn.Hit, 0, min(len(cands), o.Limit))
	words := q.highlightWords()
	for _, c := range cands {
		if len(out) == o.Limit {
			break
		}
		score := Normalize(c.BM25)
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
		}
		if o.Explain {
			h.Explain = []string{
				fmt.Sprintf("bm25(%.4f):%.4f", -c.BM25, score),
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
