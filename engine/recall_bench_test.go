package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestRecallLatency measures memory search at scale, with and without
// filters (lexical lane, no embedder): CAIRN_RECALL_BENCH=100000 go test
// -tags sqlite_fts5 ./engine/ -run TestRecallLatency -v. Skipped without
// the variable. Memories are generated: 11 kinds in turn, event dates
// spread over 2020-2025 (a fifth undated), words from a 2,000-word
// vocabulary.
func TestRecallLatency(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CAIRN_RECALL_BENCH"))
	if n == 0 {
		t.Skip("set CAIRN_RECALL_BENCH to the number of memories")
	}
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# Notes\n\nNothing here.\n"}, Options{})
	f.sync()
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return fmt.Sprintf("w%d", int(rng.ExpFloat64()*300)%2000) }
	kinds := allKinds()
	start := time.Now()
	const perWindow = 500
	var all []cairn.Memory
	for w := 0; w*perWindow < n; w++ {
		var ms []cairn.Memory
		var recs []string
		for i := w * perWindow; i < min(n, (w+1)*perWindow); i++ {
			id := fmt.Sprintf("m-%08d", i)
			m := cairn.Memory{ID: id, Kind: kinds[i%len(kinds)], Title: word() + " " + word() + " " + word(),
				Summary: word() + " " + word() + " " + word() + " " + word() + " " + word() + " " + word(),
				Thread:  fmt.Sprintf("sessions/t%d.md", w), Cues: []string{word() + " " + word()}, Concepts: []string{},
				ToldAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute), Status: cairn.StatusActive,
				Provenance: []cairn.Provenance{{Record: "r" + id, Corpus: "sessions", Path: fmt.Sprintf("cairn://sessions/t%d.md", w)}}}
			if i%5 != 0 {
				m.EventDate = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(6*365)).Format("2006-01-02")
			}
			ms = append(ms, m)
			recs = append(recs, "r"+id)
		}
		if _, err := f.eng.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: fmt.Sprintf("t%d.md", w), Pass: "main",
			Records: recs, Hashes: make([]string, len(recs)), Memories: ms}); err != nil {
			t.Fatal(err)
		}
		all = append(all, ms...)
	}
	opts := f.eng.opts
	f.eng.Close(ctx)
	eng, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	if _, err := eng.Sync(ctx, nil); err != nil { // indexes the memories corpus from the table
		t.Fatal(err)
	}
	t.Logf("%d memories stored and indexed in %v", len(all), time.Since(start).Round(time.Second))
	filters := []struct {
		name string
		f    *cairn.MemorySearch
	}{
		{"none", nil},
		{"kind (1 of 11)", &cairn.MemorySearch{Kinds: []string{"fact"}}},
		{"event one month", &cairn.MemorySearch{From: "2023-06", To: "2023-06"}},
		{"event one year + kind", &cairn.MemorySearch{From: "2022", To: "2022", Kinds: []string{"decision", "fact"}}},
		{"told one week", &cairn.MemorySearch{ToldFrom: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), ToldTo: time.Date(2026, 1, 17, 0, 0, 0, 0, time.UTC)}},
	}
	for _, fl := range filters {
		for _, limit := range []int{10, 200} {
			var ds []time.Duration
			hits := 0
			for q := range 60 {
				query := fmt.Sprintf("w%d w%d", q%40, (q*7)%90)
				t0 := time.Now()
				hs, err := eng.Search(ctx, query, &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Limit: limit, Mode: cairn.ModeLexical, Memories: fl.f})
				ds = append(ds, time.Since(t0))
				if err != nil {
					t.Fatal(err)
				}
				hits += len(hs)
			}
			slices.Sort(ds)
			t.Logf("%-24s limit %3d: p50 %6.2f ms  p99 %6.2f ms  (%.0f hits per query)", fl.name, limit,
				float64(ds[len(ds)/2].Microseconds())/1000, float64(ds[len(ds)*99/100].Microseconds())/1000, float64(hits)/60)
		}
	}
}
