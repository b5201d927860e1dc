package main

import (
	"context"
	"fmt"
	"os"
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
	"github.com/jackc/pgx/v5"
)

// runScale generates notes into a folder, and for each store syncs them
// (chunked, indexed and embedded with the hashembed stand-in), times the searches of
// a fixed query list in lexical and hybrid mode, and reports the storage
// size. On PostgreSQL and Citus the run uses a schema of its own, dropped
// first; fill agents are indexed first on Citus so both workers hold data.
func runScale(ctx context.Context, stores []namedBackend, notes, queries, fill int) error {
	work, err := os.MkdirTemp("", "pgbench-scale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	docs := filepath.Join(work, "notes")
	if _, _, err := corpus.Generate(docs, corpus.Options{Notes: notes, Seed: 1}); err != nil {
		return err
	}
	qs := corpus.Queries(queries, 1)
	fmt.Printf("%d notes; %d queries; hashed-word embedder (%d dims)\n", notes, len(qs), hashembed.Dim)
	fmt.Printf("%-9s %8s %9s %10s %9s %9s %9s %9s %10s  %s\n", "store", "chunks", "sync s", "chunks/s", "lex p50", "lex p99", "hyb p50", "hyb p99", "size MB", "load (sync, search)")
	for _, st := range stores {
		if err := scaleOne(ctx, st, work, docs, qs, fill); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}

func scaleOne(ctx context.Context, st namedBackend, work, docs string, qs []string, fill int) error {
	dir := filepath.Join(work, "data-"+st.name)
	corpora := []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{docs}, Glob: "**/*.md"}}
	var url string
	if st.backend != nil {
		b := st.backend.(postgres.Backend)
		url = b.URL
		if err := dropSchema(ctx, url, b.Schema); err != nil {
			return err
		}
		if st.name == "citus" && fill > 0 {
			if err := fillAgents(ctx, b, work, fill); err != nil {
				return err
			}
		}
	}
	eng, err := local.Open(ctx, engine.Options{Dir: dir, Backend: st.backend, Embedder: hashembed.Embedder{}, Corpora: corpora})
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	start := time.Now()
	if _, err := eng.Sync(ctx, nil); err != nil {
		return err
	}
	syncS := time.Since(start).Seconds()
	syncLoad := loadAvg()
	stats, err := eng.IndexStats(ctx)
	if err != nil {
		return err
	}
	lex, err := timeSearches(ctx, eng, qs, cairn.ModeLexical)
	if err != nil {
		return err
	}
	hyb, err := timeSearches(ctx, eng, qs, cairn.ModeHybrid)
	if err != nil {
		return err
	}
	size := stats.Bytes
	if url != "" {
		if size, err = schemaBytes(ctx, url, st.backend.(postgres.Backend).Schema); err != nil {
			return err
		}
	}
	fmt.Printf("%-9s %8d %9.1f %10.0f %9.2f %9.2f %9.2f %9.2f %10.1f  %s, %s\n", st.name, stats.Chunks, syncS, float64(stats.Chunks)/syncS,
		pct(lex, 50), pct(lex, 99), pct(hyb, 50), pct(hyb, 99), float64(size)/(1<<20), syncLoad, loadAvg())
	return nil
}

// timeSearches runs each query once (after one warm-up pass over the first
// ten) and returns the latencies in milliseconds.
func timeSearches(ctx context.Context, eng *engine.Engine, qs []string, mode string) ([]float64, error) {
	for _, q := range qs[:min(10, len(qs))] {
		eng.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: mode})
	}
	var ms []float64
	for _, q := range qs {
		start := time.Now()
		if _, err := eng.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: mode}); err != nil && !strings.Contains(err.Error(), "only common words") {
			return nil, fmt.Errorf("search %q: %w", q, err)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	slices.Sort(ms)
	return ms, nil
}

// loadAvg is the machine's 1-minute load average (Linux), printed beside
// each row: the others sharing the machine move every number.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func pct(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

// fillAgents indexes a few small corpora as other agents, so the Citus
// workers both hold shards with data besides the measured agent's.
func fillAgents(ctx context.Context, b postgres.Backend, work string, n int) error {
	docs := filepath.Join(work, "fill")
	if _, _, err := corpus.Generate(docs, corpus.Options{Notes: 200, Seed: 2}); err != nil {
		return err
	}
	for i := range n {
		fb := b
		fb.Agent = fmt.Sprintf("fill-%d", i)
		eng, err := local.Open(ctx, engine.Options{Dir: filepath.Join(work, fb.Agent), Backend: fb,
			Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{docs}, Glob: "**/*.md"}}})
		if err != nil {
			return err
		}
		_, err = eng.Sync(ctx, nil)
		eng.Close(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

func dropSchema(ctx context.Context, url, schema string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`)
	return err
}

// schemaBytes sums pg_total_relation_size (tables, indexes, TOAST) over
// the schema's tables; on Citus, citus_total_relation_size over the
// shards of every node.
func schemaBytes(ctx context.Context, url, schema string) (int64, error) {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	var citus bool
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&citus); err != nil {
		return 0, err
	}
	fn := "pg_total_relation_size"
	if citus {
		fn = "citus_total_relation_size"
	}
	var n int64
	err = c.QueryRow(ctx, `SELECT coalesce(sum(`+fn+`(c.oid)), 0)::bigint FROM pg_class c
		WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r'`, schema).Scan(&n)
	return n, err
}
