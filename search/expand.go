package search

import (
	"context"
	"slices"
	"strings"
)

// Feedback is one text of pseudo-relevance feedback: a hit of a first
// lexical pass and how much it counts (its BM25 over the pass's best).
type Feedback struct {
	Text   string
	Weight float64
}

// expandCandidates bounds how many words of the feedback texts are
// counted in the index for their IDF: the ones with the largest weight
// before the IDF. Counts are cached per index generation, so a word
// costs one count query the first time it is seen.
const expandCandidates = 40

// ExpansionTerms picks up to n words of the feedback texts to expand raw
// with (RM3-style relevance feedback without a language model): each word
// of three letters or more that is not a stop word nor one of raw's own
// words scores the sum over the texts of the text's weight times the
// word's share of the text's words, times the word's IDF in the index. The
// words come best first; joined by spaces they are a query of plain words
// for Search, whose any-words plan is then their weighted OR.
func (s *Searcher) ExpansionTerms(ctx context.Context, raw string, fb []Feedback, n int) ([]string, error) {
	if n <= 0 || len(fb) == 0 {
		return nil, nil
	}
	own := map[string]bool{}
	if q, err := Parse(raw); err == nil {
		for _, t := range q.Terms {
			for _, w := range t.Words {
				own[w] = true
				own[stemRoot(w)] = true
			}
		}
	}
	rm := map[string]float64{}
	for _, f := range fb {
		ws := words(f.Text)
		if len(ws) == 0 || f.Weight <= 0 {
			continue
		}
		share := f.Weight / float64(len(ws))
		for _, w := range ws {
			if len(w) < 3 || stopWords[w] || own[w] || own[stemRoot(w)] {
				continue
			}
			rm[w] += share
		}
	}
	type cand struct {
		word string
		v    float64
	}
	cs := make([]cand, 0, len(rm))
	for w, v := range rm {
		cs = append(cs, cand{w, v})
	}
	byValue := func(a, b cand) int {
		if a.v != b.v {
			if a.v > b.v {
				return -1
			}
			return 1
		}
		return strings.Compare(a.word, b.word)
	}
	slices.SortFunc(cs, byValue)
	cs = cs[:min(len(cs), expandCandidates)]
	span, err := s.indexSpan(ctx)
	if err != nil {
		return nil, err
	}
	for i := range cs {
		c, err := s.count(ctx, phrase([]string{cs[i].word}))
		if err != nil {
			return nil, err
		}
		cs[i].v *= idf(span.Rows, c)
	}
	slices.SortFunc(cs, byValue)
	out := make([]string, 0, min(n, len(cs)))
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.word)
	}
	return out, nil
}
