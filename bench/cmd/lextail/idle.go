package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

// idleStep is one MergeStep of an idle-time run: what it did, its wall
// and thread CPU time.
type idleStep struct {
	n         int
	kind      string
	wall, cpu time.Duration
}

// idleSteps runs MergeStep back to back while more, as a quiet serve does
// (without its pauses), and prints the steps by kind (rebuild, swap, drop
// of a retired table, merge) and the slowest ones.
func idleSteps(ctx context.Context, s *sqlite.Store, more bool) error {
	var steps []idleStep
	for n := 0; more; n++ {
		kind, err := stepKind(ctx, s)
		if err != nil {
			return err
		}
		t0, c0 := time.Now(), threadCPU()
		more, err = s.MergeStep(ctx, engine.DefaultIdlePages)
		if err != nil {
			return err
		}
		st := idleStep{n, kind, time.Since(t0), threadCPU() - c0}
		if kind == "rebuild" {
			if building, err := s.PairBuilding(ctx); err != nil {
				return err
			} else if !building {
				st.kind = "swap"
			}
		}
		steps = append(steps, st)
	}
	var longest time.Duration
	for _, st := range steps {
		longest = max(longest, st.wall)
	}
	fmt.Printf("idle merge: %d steps of %d pages, longest step %.2f s\n", len(steps), engine.DefaultIdlePages, longest.Seconds())
	for _, kind := range []string{"rebuild", "swap", "drop", "merge"} {
		var n int
		var wall, cpu, lw, lc time.Duration
		for _, st := range steps {
			if st.kind == kind {
				n, wall, cpu, lw, lc = n+1, wall+st.wall, cpu+st.cpu, max(lw, st.wall), max(lc, st.cpu)
			}
		}
		if n > 0 {
			fmt.Printf("  %-7s %4d steps, %7.2f s wall, %7.2f s CPU; longest %.3f s wall, %.3f s CPU\n", kind, n, wall.Seconds(), cpu.Seconds(), lw.Seconds(), lc.Seconds())
		}
	}
	slices.SortFunc(steps, func(a, b idleStep) int { return int(b.wall - a.wall) })
	for _, st := range steps[:min(8, len(steps))] {
		fmt.Printf("  slow: step %d %s %.3f s wall, %.3f s CPU\n", st.n, st.kind, st.wall.Seconds(), st.cpu.Seconds())
	}
	return nil
}

// stepKind names what the next MergeStep does. Retired tables (emptied
// in steps after a swap) exist from this change on; an older build's
// store has no Retired and never drops in steps.
func stepKind(ctx context.Context, s *sqlite.Store) (string, error) {
	if building, err := s.PairBuilding(ctx); err != nil || building {
		return "rebuild", err
	}
	if r, ok := any(s).(interface {
		Retired(context.Context) (bool, error)
	}); ok {
		if retired, err := r.Retired(ctx); err != nil || retired {
			return "drop", err
		}
	}
	return "merge", nil
}
