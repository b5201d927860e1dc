package main

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/cairnmemory/cairn/sqlite"
)

// pairIndex rebuilds index's full-text table with its n most frequent
// terms paired (sqlite.RebuildPairs) and prints the terms, the time and
// CPU of reading them and of the rebuild, and the file's size before and
// after (checkpointed).
func pairIndex(ctx context.Context, index string, n, step int) error {
	s, err := openSQLite(ctx, index, "pairs")
	if err != nil {
		return err
	}
	defer s.Close()
	size0, err := s.LiveBytes(ctx)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	t0, c0 := time.Now(), threadCPU()
	var terms []sqlite.TermDocs
	if n > 0 {
		if terms, err = s.FrequentTerms(ctx, n); err != nil {
			return err
		}
	}
	fmt.Printf("frequent terms: %d in %.2f s (%.2f s CPU)\n", len(terms), time.Since(t0).Seconds(), (threadCPU() - c0).Seconds())
	words := make([]string, len(terms))
	var list strings.Builder
	for i, t := range terms {
		words[i] = t.Term
		fmt.Fprintf(&list, " %s:%d", t.Term, t.Docs)
	}
	fmt.Printf("  %s\n", strings.TrimSpace(list.String()))
	t1, c1 := time.Now(), threadCPU()
	r, err := s.RebuildPairs(ctx, words, step)
	if err != nil {
		return err
	}
	seg, err := s.FTSSegments(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("rebuilt with %d pair words in %d steps of %d chunks (longest %.2f s): %.2f s, %.2f s CPU on this thread; %d segments, %d leaf pages\n",
		len(words), r.Steps, step, r.Longest.Seconds(), time.Since(t1).Seconds(), (threadCPU() - c1).Seconds(), seg.Count, seg.Pages)
	size1, err := s.LiveBytes(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("index.db pages in use: %.1f MB before, %.1f MB after\n", float64(size0)/1e6, float64(size1)/1e6)
	return nil
}

// compareTerms reads index's n most frequent terms exactly and as the
// drift check estimates them, three times alternating, and prints each
// read's wall and thread CPU, the terms in 10% of the chunks or more on
// each side (the pair policy's share) and the ones only one side has.
func compareTerms(ctx context.Context, index string, n int) error {
	s, err := openSQLite(ctx, index, "terms")
	if err != nil {
		return err
	}
	defer s.Close()
	sp, err := s.Span(ctx)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	lists := map[string][]sqlite.TermDocs{}
	for round := range 3 {
		for _, side := range []string{"exact", "sampled"} {
			t0, c0 := time.Now(), threadCPU()
			var terms []sqlite.TermDocs
			if side == "exact" {
				terms, err = s.FrequentTerms(ctx, n)
			} else {
				terms, err = s.EstimatedTerms(ctx, n)
			}
			if err != nil {
				return err
			}
			fmt.Printf("round %d %-7s %.2f s, %.2f s CPU on this thread, %d terms\n", round+1, side, time.Since(t0).Seconds(), (threadCPU() - c0).Seconds(), len(terms))
			lists[side] = terms
		}
	}
	over := func(l []sqlite.TermDocs) map[string]int {
		m := map[string]int{}
		for _, t := range l {
			if float64(t.Docs) >= 0.1*float64(sp.Rows) {
				m[t.Term] = t.Docs
			}
		}
		return m
	}
	ex, sa := over(lists["exact"]), over(lists["sampled"])
	fmt.Printf("terms in 10%% of %d chunks or more: exact %d, sampled %d\n", sp.Rows, len(ex), len(sa))
	for t, d := range ex {
		if _, ok := sa[t]; !ok {
			fmt.Printf("  only exact:   %s %d (%.1f%%)\n", t, d, 100*float64(d)/float64(sp.Rows))
		}
	}
	for t, d := range sa {
		if _, ok := ex[t]; !ok {
			fmt.Printf("  only sampled: %s %d (%.1f%%)\n", t, d, 100*float64(d)/float64(sp.Rows))
		}
	}
	exAll := map[string]int{}
	for _, t := range lists["exact"] {
		exAll[t.Term] = t.Docs
	}
	worst := 0.0
	for _, t := range lists["sampled"] {
		if d, ok := exAll[t.Term]; ok && float64(d) >= 0.05*float64(sp.Rows) {
			worst = max(worst, math.Abs(float64(t.Docs-d))/float64(sp.Rows))
		}
	}
	fmt.Printf("largest share error over terms in 5%% or more: %.2f points\n", 100*worst)
	return nil
}
