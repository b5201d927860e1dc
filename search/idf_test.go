package search

import (
	"math"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestEstimate(t *testing.T) {
	span := cairn.IndexSpan{Rows: 1000, MinID: 1, MaxID: 1000}
	tests := []struct {
		name   string
		m      cairn.MatchCount
		capped bool
		want   int
	}{
		{"under the cap: exact", cairn.MatchCount{N: 40, Low: 3}, false, 40},
		{"cap reached a tenth of the way back", cairn.MatchCount{N: 50, Low: 901}, true, 500},
		{"cap reached at the oldest row", cairn.MatchCount{N: 50, Low: 1}, true, 50},
		{"dense in the newest rows: at most every row", cairn.MatchCount{N: 50, Low: 1000}, true, 1000},
		{"no id: the count as it is", cairn.MatchCount{N: 50}, true, 50},
	}
	for _, tt := range tests {
		if got := estimate(span, tt.m, tt.capped); got != tt.want {
			t.Errorf("%s: estimate = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestIDF(t *testing.T) {
	tests := []struct {
		name string
		rows int64
		n    int
		want float64
	}{
		{"rare", 1000, 10, math.Log1p(990.5 / 10.5)},
		// The plain logarithm is 0 here and FTS5 floors it; a word in one of
		// two notes must still count.
		{"half the rows", 2, 1, math.Log(2)},
		{"most rows", 1000, 600, math.Log1p(400.5 / 600.5)},
		{"every row", 1000, 1000, math.Log1p(0.5 / 1000.5)},
		// A count above the rows (a span cached before a sync grew the
		// index) gets the least weight; NaN would reach
		// SQLite as NULL.
		{"count above rows", 1000, 1200, 1e-6},
		{"count far above rows", 10, 1000, 1e-6},
	}
	for _, tt := range tests {
		if got := idf(tt.rows, tt.n); math.Abs(got-tt.want) > 1e-12 || !(got > 0) {
			t.Errorf("%s: idf(%d, %d) = %g, want %g (and positive)", tt.name, tt.rows, tt.n, got, tt.want)
		}
	}
	if idf(1000, 1) <= idf(1000, 100) || idf(1000, 100) <= idf(1000, 900) {
		t.Error("a rarer term must weigh more")
	}
}
