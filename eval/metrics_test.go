package eval

import (
	"strings"
	"testing"
)

func sessionOf(turn string) string { s, _, _ := strings.Cut(turn, ":"); return s }

func TestScore(t *testing.T) {
	tests := []struct {
		name     string
		turns    []string
		evidence []string
		recall   map[int]float64
		session  map[int]float64
		ndcg     float64
		mrr      float64
	}{
		{"first hit", []string{"D1:1", "D2:1"}, []string{"D1:1"},
			map[int]float64{1: 1, 5: 1}, map[int]float64{1: 1, 3: 1}, 1, 1},
		{"partial evidence", []string{"D1:2", "D3:1", "D1:1"}, []string{"D1:1", "D2:4"},
			map[int]float64{1: 0, 5: 0.5, 50: 0.5}, map[int]float64{1: 1, 3: 1}, (1 / 2.0) / (1 + 1/1.5849625007211563), 1 / 3.0},
		{"evidence spanning two hits", []string{"D1:1", "D1:2", "D1:3"}, []string{"D1:1", "D1:3"},
			map[int]float64{1: 0.5, 5: 1}, map[int]float64{1: 1}, (1 + 0.5) / (1 + 1/1.5849625007211563), 1},
		{"duplicates count once, ties keep rank order", []string{"D2:1", "D2:1", "D1:1"}, []string{"D1:1"},
			map[int]float64{1: 0, 5: 1}, map[int]float64{1: 0, 3: 1}, 1 / 1.5849625007211563, 0.5},
		{"empty results", nil, []string{"D1:1"},
			map[int]float64{1: 0, 50: 0}, map[int]float64{1: 0, 5: 0}, 0, 0},
		{"k cuts turns, not hits", []string{"D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D1:6"}, []string{"D1:6"},
			map[int]float64{5: 0, 10: 1}, map[int]float64{1: 1}, 1 / 2.807354922057604, 1 / 6.0},
	}
	for _, tt := range tests {
		s := Score(tt.turns, tt.evidence, sessionOf)
		for k, want := range tt.recall {
			if !near(s.TurnRecall[k], want) {
				t.Errorf("%s: turn recall@%d = %v, want %v", tt.name, k, s.TurnRecall[k], want)
			}
		}
		for k, want := range tt.session {
			if !near(s.SessionRecall[k], want) {
				t.Errorf("%s: session recall@%d = %v, want %v", tt.name, k, s.SessionRecall[k], want)
			}
		}
		if !near(s.NDCG10, tt.ndcg) || !near(s.MRR, tt.mrr) {
			t.Errorf("%s: ndcg %v mrr %v, want %v %v", tt.name, s.NDCG10, s.MRR, tt.ndcg, tt.mrr)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestAverage(t *testing.T) {
	a := Score([]string{"D1:1"}, []string{"D1:1"}, sessionOf)
	b := Score([]string{"D2:1"}, []string{"D1:1"}, sessionOf)
	m := Average([]Scores{a, b, b})
	if m["turn_recall@1"] != 33.3 || m["mrr"] != 33.3 || m["session_recall_any@5"] != 33.3 || len(m) != 10 {
		t.Errorf("Average = %v", m)
	}
}
