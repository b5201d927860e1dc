package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestPlanSettings: the store's connections plan a search's statements
// without parallel workers (gatherWorkers) and without JIT compilation
// (jitMode). With parallel plans and JIT made free on a connection (no
// setup or tuple cost, no minimum size, jit_above_cost 0), an all-words
// pass gets a Gather and is compiled when the store keeps the server's
// settings, and neither as the store opens its connections. On Citus the
// reads go to the agent's worker (near.go) with the same settings: every
// connection of both pools has them.
func TestPlanSettings(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			ctx := context.Background()
			b := testBackend(t, env, "cairn_plansettings")
			var docs []cairn.Document
			for i := range 400 {
				docs = append(docs, testDoc(fmt.Sprintf("%03d.md", i), fmt.Sprintf("walrus seal%d grey%d of the sea\n", i%7, i%5)))
			}
			m := cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{cairn.Term("walrus"), cairn.Term("seal3"), cairn.Term("grey2")}}
			// plan opens a store with the settings given ("" for the
			// server's) and returns its connections' settings and, on
			// PostgreSQL, the pass's EXPLAIN ANALYZE.
			plan := func(workers, jit string) (string, []string) {
				defer func(w, j string) { gatherWorkers, jitMode = w, j }(gatherWorkers, jitMode)
				gatherWorkers, jitMode = workers, jit
				s := openTest(t, b, "plan"+workers+jit)
				if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
					t.Fatal(err)
				}
				var settings []string
				conns := s.pool.AcquireAllIdle(ctx)
				if n := s.near.Load(); n != nil {
					conns = append(conns, n.AcquireAllIdle(ctx)...)
				}
				for _, c := range conns {
					var w, j string
					err := c.QueryRow(ctx, `SELECT current_setting('max_parallel_workers_per_gather'), current_setting('jit')`).Scan(&w, &j)
					c.Release()
					if err != nil {
						t.Fatal(err)
					}
					settings = append(settings, w+" "+j)
				}
				if env != "CAIRN_TEST_POSTGRES_URL" {
					return "", settings
				}
				c, err := s.compile(ctx, s.pool, m)
				if err != nil {
					t.Fatal(err)
				}
				query, args := scanQuery(cairn.LexicalQuery{Match: m, Limit: 10, MaxCandidates: 2000}, c, false)
				pc, err := s.pool.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				conn := pc.Hijack() // its settings stay out of the pool
				defer conn.Close(ctx)
				for _, q := range []string{`ANALYZE postings`, `SET parallel_setup_cost = 0`, `SET parallel_tuple_cost = 0`,
					`SET min_parallel_index_scan_size = 0`, `SET min_parallel_table_scan_size = 0`, `SET jit_above_cost = 0`} {
					if _, err := conn.Exec(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE) "+query, args...)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				var lines []string
				for rows.Next() {
					var l string
					if err := rows.Scan(&l); err != nil {
						t.Fatal(err)
					}
					lines = append(lines, l)
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				return strings.Join(lines, "\n"), settings
			}
			server, _ := plan("", "")
			store, settings := plan(gatherWorkers, jitMode)
			if len(settings) == 0 {
				t.Error("no idle connection of the store to ask")
			}
			for _, v := range settings {
				if v != "0 off" {
					t.Errorf("a store connection has max_parallel_workers_per_gather and jit %q, want \"0 off\" (all: %q)", v, settings)
					break
				}
			}
			if env != "CAIRN_TEST_POSTGRES_URL" {
				return
			}
			if !strings.Contains(server, "Gather") || !strings.Contains(server, "JIT:") {
				t.Errorf("with the server's settings and free parallel plans and JIT the pass has no Gather or no JIT: the test would not tell:\n%s", server)
			}
			if strings.Contains(store, "Gather") || strings.Contains(store, "JIT:") {
				t.Errorf("the store's pass has a Gather (parallel workers) or JIT:\n%s", store)
			}
		})
	}
}
