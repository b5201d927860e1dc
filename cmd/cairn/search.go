package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

func cmdSearch(ctx context.Context, e *env, args []string) error {
	fs := e.flags("search")
	var corpora stringList
	fs.Var(&corpora, "corpus", "corpus to search (repeatable; default all)")
	limit := fs.Int("limit", cairn.DefaultSearchLimit, "maximum hits")
	minScore := fs.Float64("min-score", 0, "minimum normalized score, 0 to 1")
	explain := fs.Bool("explain", false, "show how each score was made")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("search needs a QUERY")
	}
	opts := &cairn.SearchOptions{Corpora: corpora, Limit: *limit, MinScore: *minScore, Explain: *explain}
	if err := opts.Validate(); err != nil {
		return err
	}
	eng, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	hits, err := eng.Search(ctx, strings.Join(pos, " "), opts)
	if err != nil {
		return err
	}
	if eng.Reindexed() {
		fmt.Fprintln(e.stderr, "cairn: the index format changed and was emptied; run cairn sync to rebuild it")
	}
	if e.json {
		if hits == nil {
			hits = []cairn.Hit{}
		}
		for i := range hits {
			hits[i].Score = round(hits[i].Score, 4)
		}
		return e.printJSON(map[string]any{"results": hits})
	}
	if len(hits) == 0 {
		fmt.Fprintln(e.stdout, "no results")
		return nil
	}
	for _, h := range hits {
		fmt.Fprintf(e.stdout, "%s:%d-%d  score %.2f\n", h.Path, h.StartLine, h.EndLine, h.Score)
		for _, l := range strings.Split(h.Snippet, "\n") {
			fmt.Fprintf(e.stdout, "    %s\n", l)
		}
		if len(h.Explain) > 0 {
			fmt.Fprintf(e.stdout, "    explain: %s\n", strings.Join(h.Explain, " "))
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

func round(x float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}
