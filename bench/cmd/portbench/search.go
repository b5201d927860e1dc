package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/postgres"
)

// searchIn is what -search opens: the SQLite data directory and the
// PostgreSQL and Citus stores (a URL and schema each; the agent's tenant)
// that hold the same index, built and imported beforehand.
type searchIn struct {
	sqliteDir, pgURL, citusURL, schema, agent string
	work                                      string // the PostgreSQL engines' data directories (their vector files)
	stores, modes                             []string
	queries                                   int
	corpus                                    cairn.Corpus
}

// searchStore is one store's engine and its latencies by mode: wall, and
// this process's CPU over the search (all its threads; one search runs at
// a time), which leaves out a PostgreSQL server's own.
type searchStore struct {
	name    string
	eng     *engine.Engine
	ms, cpu map[string][]float64
}

// runSearch times bench/corpus's queries (seed 1, as cairnbench and
// pgbench use) on every store, the stores alternating query by query with
// the order rotating (the machine's load falls on all alike), each mode
// in turn after a warm-up of ten queries, and prints p50/p99 a store and
// mode. A hybrid search loads the store's vector lane first (every vector
// into memory: about 1.6 GB at 1M chunks a store), so give one store
// beside SQLite for hybrid where memory is short.
func runSearch(ctx context.Context, in searchIn) error {
	var stores []*searchStore
	defer func() {
		for _, s := range stores {
			s.eng.Close(ctx)
		}
	}()
	for _, name := range in.stores {
		o := engine.Options{Dir: in.sqliteDir, Embedder: hashembed.Embedder{}, Corpora: []cairn.Corpus{in.corpus}}
		switch name {
		case "sqlite":
		case "postgres", "citus":
			url := in.pgURL
			if name == "citus" {
				url = in.citusURL
			}
			o.Backend = postgres.Backend{URL: url, Schema: in.schema, Agent: in.agent}
			o.Dir = filepath.Join(in.work, "data-"+name)
		default:
			return fmt.Errorf("-stores: unknown store %q (sqlite, postgres, citus)", name)
		}
		eng, err := local.Open(ctx, o)
		if err != nil {
			return fmt.Errorf("open %s: %w", name, err)
		}
		stores = append(stores, &searchStore{name: name, eng: eng, ms: map[string][]float64{}, cpu: map[string][]float64{}})
		st, err := eng.IndexStats(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Printf("%s: %d chunks, %d documents\n", name, st.Chunks, st.Documents)
	}
	qs := corpus.Queries(in.queries, 1)
	for _, mode := range in.modes {
		start, cpu0 := time.Now(), cpuSeconds()
		if err := timeModes(ctx, stores, qs, mode); err != nil {
			return err
		}
		fmt.Printf("%s: %d queries a store in %.0f s wall, %.0f CPU s of this process, load %s\n",
			mode, len(qs), time.Since(start).Seconds(), cpuSeconds()-cpu0, loadAvg())
	}
	fmt.Printf("%-9s %-8s %7s %9s %9s %9s %9s %12s %12s\n", "store", "mode", "n", "p50 ms", "p90 ms", "p99 ms", "max ms", "CPU p50 ms", "CPU p99 ms")
	for _, mode := range in.modes {
		for _, s := range stores {
			ms, cpu := s.ms[mode], s.cpu[mode]
			fmt.Printf("%-9s %-8s %7d %9.2f %9.2f %9.2f %9.2f %12.2f %12.2f\n", s.name, mode, len(ms), pct(ms, 50), pct(ms, 90), pct(ms, 99), pct(ms, 100),
				pct(cpu, 50), pct(cpu, 99))
		}
	}
	return nil
}

// timeModes loads what a mode needs (the first searches of each store,
// not timed), then runs each query once on every store in turn.
func timeModes(ctx context.Context, stores []*searchStore, qs []string, mode string) error {
	opts := func() *cairn.SearchOptions { return &cairn.SearchOptions{Limit: 10, Mode: mode} }
	for _, s := range stores {
		load := time.Now()
		for _, q := range qs[:min(10, len(qs))] {
			if _, err := s.eng.Search(ctx, q, opts()); err != nil && !ignorable(err) {
				return fmt.Errorf("%s: warm-up %q: %w", s.name, q, err)
			}
		}
		fmt.Printf("%s %s: warm-up (lane load included) %.1f s\n", s.name, mode, time.Since(load).Seconds())
	}
	for i, q := range qs {
		for k := range stores {
			s := stores[(i+k)%len(stores)]
			start, cpu := time.Now(), cpuSeconds()
			if _, err := s.eng.Search(ctx, q, opts()); err != nil && !ignorable(err) {
				return fmt.Errorf("%s: search %q: %w", s.name, q, err)
			}
			s.ms[mode] = append(s.ms[mode], float64(time.Since(start).Microseconds())/1000)
			s.cpu[mode] = append(s.cpu[mode], 1000*(cpuSeconds()-cpu))
		}
	}
	for _, s := range stores {
		slices.Sort(s.ms[mode])
		slices.Sort(s.cpu[mode])
	}
	return nil
}

// ignorable: a query of only common words is refused on every store
// alike (pgbench skips it too).
func ignorable(err error) bool { return strings.Contains(err.Error(), "only common words") }

// pct is the p-th percentile of sorted values (nearest rank).
func pct(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}
