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
	if got, want := idf(1000, 10), math.Log(990.5/10.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("idf(1000, 10) = %f, want %f", got, want)
	}
	// FTS5 floors the weight of terms in half the rows or more.
	if got := idf(1000, 600); got != 1e-6 {
		t.Errorf("idf(1000, 600) = %g, want 1e-6", got)
	}
	// A count above the rows (a span cached before a sync grew the index)
	// weighs like a phrase in every row; NaN would reach SQLite as NULL.
	if got := idf(1000, 1200); got != 1e-6 {
		t.Errorf("idf(1000, 1200) = %g, want 1e-6", got)
	}
	if idf(1000, 1) <= idf(1000, 100) {
		t.Error("a rarer term must weigh more")
	}
}
