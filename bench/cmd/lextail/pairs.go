package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
)

// pairIndex rebuilds index's full-text table with its n most frequent
// terms paired (sqlite.RebuildPairs) and prints the terms, the time and
// CPU of reading them and of the rebuild, and the file's size before and
// after (checkpointed).
func pairIndex(ctx context.Context, index string, n, step int) error {
	st, err := sqlite.Backend{}.Open(ctx, index, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, Ident: search.IdentText})
	if err != nil {
		return err
	}
	defer st.Close()
	s, ok := st.(*sqlite.Store)
	if !ok {
		return fmt.Errorf("pairs: %s is not a SQLite index", index)
	}
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
