package engine

import (
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestFuseFeedbackGated: with PRFBy set, the feedback pass's share shrinks
// by the first pass's confidence (leanRare: its best hit's Rarest × Cover).
// A sure first pass keeps its own order and no unit of the feedback pass
// alone; an unsure one fuses as ungated feedback does; half sure, half
// the share.
func TestFuseFeedbackGated(t *testing.T) {
	hit := func(path string, bm25, rarest float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://s/" + path, StartLine: 1, EndLine: 2, Score: bm25,
			Signals: &cairn.HitSignals{BM25: bm25, LexRank: 1, Cover: 1, Rarest: rarest}}
	}
	lexOf := func(rarest float64) []cairn.Hit {
		return []cairn.Hit{hit("d1.md", 10, rarest), hit("d2.md", 8, 0), hit("d3.md", 6, 0)}
	}
	prf := []cairn.Hit{hit("d3.md", 5, 0), hit("d4.md", 4, 0)}
	fb := fusionWeights{Lex: 1, Vec: 0.5, Convex: true, PRF: 0.5}
	gated := fb
	gated.PRFBy = leanRare
	for _, c := range []struct {
		name   string
		fw     fusionWeights
		rarest float64
		want   string
	}{
		// d1 0.5, d2 0.4, d3 0.3 + 0.5, d4 0.4 (as TestFuseFeedbackAndDates).
		{"ungated, sure", fb, 1, "d3.md:1 d1.md:1 d2.md:1 d4.md:1"},
		{"gated, sure", gated, 1, "d1.md:1 d2.md:1 d3.md:1"},
		{"gated, unsure", gated, 0, "d3.md:1 d1.md:1 d2.md:1 d4.md:1"},
		// share 0.25: d1 0.75, d2 0.6, d3 0.45 + 0.25, d4 0.2.
		{"gated, half sure", gated, 0.5, "d1.md:1 d3.md:1 d2.md:1 d4.md:1"},
	} {
		hits := fuseLanes(lexOf(c.rarest), prf, nil, &cairn.SearchOptions{Limit: 10}, fuseKey, c.fw)
		if got := fusedOrder(hits); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
	}
}
