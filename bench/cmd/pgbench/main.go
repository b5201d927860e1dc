// Command pgbench compares the storage backends side by side on this
// machine: SQLite, a single PostgreSQL server and a Citus cluster.
//
//	go run -tags sqlite_fts5 ./bench/cmd/pgbench -locomo -pg $CAIRN_TEST_POSTGRES_URL
//	go run -tags sqlite_fts5 ./bench/cmd/pgbench -scale 48000   # about 100k chunks
//
// -scale generates notes (bench/corpus), indexes them into each store with
// a hashed-word stand-in embedder (384 dimensions, microseconds a chunk, so
// the time is the store's), and reports sync throughput, lexical and
// hybrid search p50/p99 and the storage size (scale.go).
//
// -locomo runs the LoCoMo lexical evaluation (eval.Locomo, the shared
// development split) on each store and prints recall and MRR: the lexical
// lane's quality on PostgreSQL against SQLite's.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/postgres"
)

func main() {
	pg := flag.String("pg", os.Getenv("CAIRN_TEST_POSTGRES_URL"), "single PostgreSQL server URL")
	citus := flag.String("citus", os.Getenv("CAIRN_TEST_CITUS_URL"), "Citus coordinator URL (empty: leave Citus out)")
	locomo := flag.Bool("locomo", false, "LoCoMo lexical evaluation on each store")
	scale := flag.Int("scale", 0, "generate this many notes, index them into each store and time searches")
	queries := flag.Int("queries", 200, "searches timed per store and mode with -scale")
	fill := flag.Int("fill", 6, "with -scale on Citus: other agents indexed first, so both workers hold data")
	work := flag.String("work", "", "with -scale: keep the notes and the SQLite index in this folder (default: a temporary one, removed)")
	reuse := flag.Bool("reuse", false, "with -scale and -work: search what an earlier run synced instead of syncing again")
	hnsw := flag.Bool("hnsw", false, "with -scale: afterwards time an HNSW build over each PostgreSQL store's vectors (size, server peak RSS)")
	schema := flag.String("schema", "cairn_bench", "the PostgreSQL schema the run uses (dropped first by -scale)")
	citusSchema := flag.String("citus-schema", "", "the schema on Citus (default: -schema)")
	only := flag.String("stores", "sqlite,postgres,citus", "with -scale: the stores to run, comma-separated")
	flag.StringVar(&scaleIn.sqliteDir, "sqlite-dir", "", "with -scale -reuse: the SQLite data directory to search (default: -work's data-sqlite)")
	flag.StringVar(&scaleIn.corpus, "corpus", "notes", "with -scale: the corpus name (an index imported or built elsewhere keeps its own)")
	flag.StringVar(&scaleIn.glob, "glob", "**/*.md", "with -scale: the corpus glob (\"default\": cairn.DefaultGlob)")
	flag.StringVar(&scaleIn.notes, "notes", "", "with -scale -reuse: the notes folder (default: -work's notes, generated when missing)")
	flag.Parse()
	ctx := context.Background()
	stores := []namedBackend{{"sqlite", nil}}
	if *pg != "" {
		stores = append(stores, namedBackend{"postgres", postgres.Backend{URL: *pg, Schema: *schema, Agent: "bench"}})
	}
	if *citus != "" {
		stores = append(stores, namedBackend{"citus", postgres.Backend{URL: *citus, Schema: cmp.Or(*citusSchema, *schema), Agent: "bench"}})
	}
	var err error
	switch {
	case *locomo:
		err = runLocomo(ctx, stores)
	case *scale > 0:
		var picked []namedBackend
		for _, st := range stores {
			if slices.Contains(strings.Split(*only, ","), st.name) {
				picked = append(picked, st)
			}
		}
		err = runScale(ctx, picked, *scale, *queries, *fill, *work, *reuse, *hnsw)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgbench:", err)
		os.Exit(1)
	}
}

type namedBackend struct {
	name    string
	backend cairn.Backend // nil: SQLite
}

// runLocomo runs the lexical LoCoMo evaluation on each store, each in a
// fresh tenant (a fresh folder).
func runLocomo(ctx context.Context, stores []namedBackend) error {
	shared, ok := testshared.Find(testshared.LocomoDev)
	if !ok {
		return fmt.Errorf("find %s: no shared folder (set CAIRN_SHARED)", testshared.LocomoDev)
	}
	fmt.Printf("%-9s %9s %14s %14s %7s %8s\n", "store", "questions", "turn recall@10", "turn recall@50", "MRR", "seconds")
	for _, st := range stores {
		dir, err := os.MkdirTemp("", "pgbench-locomo")
		if err != nil {
			return err
		}
		if st.backend != nil {
			b := st.backend.(postgres.Backend)
			b.Agent = "locomo:" + dir
			st.backend = b
		}
		rep, err := eval.Locomo(ctx, eval.LocomoOptions{Data: filepath.Join(shared, testshared.LocomoDev), Mode: cairn.ModeLexical,
			Dir: dir, MinScore: cairn.DefaultMinScore, Backend: st.backend})
		os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("locomo on %s: %w", st.name, err)
		}
		m := rep.Metrics
		fmt.Printf("%-9s %9d %14.1f %14.1f %7.1f %8.1f\n", st.name, rep.Questions, m["turn_recall@10"], m["turn_recall@50"], m["mrr"], rep.Seconds)
	}
	return nil
}
