package cluster

import (
	"context"
	"reflect"
	"testing"
)

// TestRunProgress: Run reports the neighbours, space and layout phases in
// order, each counting up to its total (500 space epochs at 640 points,
// 100 layout epochs and HDBSCAN's end), and the result is the same as a
// run without a Progress function.
func TestRunProgress(t *testing.T) {
	items, _ := topics(4, 160, 24, 0.15, 11)
	ctx := context.Background()
	plain, err := Run(ctx, items, &Options{Seed: seedOf(5), Space: Space{NComponents: 5}})
	if err != nil {
		t.Fatal(err)
	}
	var steps []Step
	watched, err := Run(ctx, items, &Options{Seed: seedOf(5), Space: Space{NComponents: 5}, Progress: func(s Step) { steps = append(steps, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, watched) {
		t.Fatal("a run with Progress differs from one without")
	}
	var order []string
	last := map[string]Step{}
	for _, s := range steps {
		prev, seen := last[s.Phase]
		if !seen {
			order = append(order, s.Phase)
		} else if s.Done < prev.Done || s.Total != prev.Total {
			t.Errorf("%s went from %d/%d to %d/%d", s.Phase, prev.Done, prev.Total, s.Done, s.Total)
		}
		if s.Done < 0 || s.Done > s.Total {
			t.Errorf("%s step %d/%d", s.Phase, s.Done, s.Total)
		}
		last[s.Phase] = s
	}
	if want := []string{PhaseNeighbours, PhaseSpace, PhaseLayout}; !reflect.DeepEqual(order, want) {
		t.Fatalf("phases %v, want %v", order, want)
	}
	for phase, total := range map[string]int{PhaseNeighbours: knnTrees + knnRounds, PhaseSpace: 500, PhaseLayout: LayoutEpochsFromSpace + 1} {
		if s := last[phase]; s.Done != total || s.Total != total {
			t.Errorf("%s ended at %d/%d, want %d/%d", phase, s.Done, s.Total, total, total)
		}
	}
}
