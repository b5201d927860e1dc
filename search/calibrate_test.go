package search

import (
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestModelsMatchFeatures(t *testing.T) {
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
		m, ok := Models[mode]
		if !ok {
			t.Fatalf("no model for %s", mode)
		}
		x := Features(mode, cairn.HitSignals{})
		if len(x) != len(FeatureNames(mode)) || len(m.Weights) != len(x)+1 {
			t.Errorf("%s: %d features, %d names, %d weights (want bias + one per feature)", mode, len(x), len(FeatureNames(mode)), len(m.Weights))
		}
	}
}

// TestCalibrate: scores come from the model, never rise down the list, a
// minimum score cuts the tail, the query's best signals reach every hit,
// and explain names the inputs and weights.
func TestCalibrate(t *testing.T) {
	hits := []cairn.Hit{
		{Path: "a", Signals: &cairn.HitSignals{Match: 1.5, AllWords: true, LexRank: 1}},
		{Path: "b", Signals: &cairn.HitSignals{Match: 1.6, AllWords: true, LexRank: 2}}, // model says higher: capped
		{Path: "c", Signals: &cairn.HitSignals{Match: 0.05, LexRank: 3}},
		{Path: "d"}, // no signals
	}
	got := Calibrate(append([]cairn.Hit(nil), hits...), cairn.ModeLexical, 0, true)
	if len(got) != 4 {
		t.Fatalf("got %d hits, want 4", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Errorf("hit %d scores %.4f above hit %d's %.4f", i, got[i].Score, i-1, got[i-1].Score)
		}
	}
	first := got[0]
	x := Features(cairn.ModeLexical, cairn.HitSignals{Match: 1.5, AllWords: true, LexRank: 1, TopMatch: 1.6})
	if p := Models[cairn.ModeLexical].Probability(x); first.Score != p {
		t.Errorf("first score %.6f, want the model's %.6f", first.Score, p)
	}
	if first.Signals.TopMatch != 1.6 || got[3].Signals.TopMatch != 1.6 {
		t.Errorf("TopMatch %v, %v; want 1.6 on every hit", first.Signals.TopMatch, got[3].Signals.TopMatch)
	}
	ex := first.Explain[len(first.Explain)-1]
	for _, want := range append([]string{"score(", "lexical model"}, FeatureNames(cairn.ModeLexical)...) {
		if !strings.Contains(ex, want) {
			t.Errorf("explain %q lacks %q", ex, want)
		}
	}
	cut := Calibrate(append([]cairn.Hit(nil), hits...), cairn.ModeLexical, (got[1].Score+got[2].Score)/2, false)
	if len(cut) != 2 || cut[1].Path != "b" || len(cut[0].Explain) != 0 {
		t.Errorf("cut between b and c kept %d hits %v", len(cut), cut)
	}
}
