package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// statementLog counts the statements of the pools opened while it is
// testTracer, by their first words.
type statementLog struct {
	mu  sync.Mutex
	on  bool
	sql []string
}

func (l *statementLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on {
		l.sql = append(l.sql, strings.Join(strings.Fields(d.SQL), " "))
	}
	return ctx
}

func (l *statementLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// take returns the statements logged since the last take and starts
// logging.
func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sql
	l.sql, l.on = nil, true
	return out
}

// withStatementLog sets testTracer for the pools fn opens.
func withStatementLog(t *testing.T) *statementLog {
	l := &statementLog{}
	testTracer = l
	t.Cleanup(func() { testTracer = nil })
	return l
}

// TestSearchStatements counts the statements one lexical and one hybrid
// search of the engine send to the store (each a round trip, and on Citus
// each one the coordinator sends on to the worker holding the agent's
// shard: the cost that put Citus's p50 at twice PostgreSQL's), for
// pgbench's generated query kinds, with the engine's caches cold (a fresh
// engine: no word stemmed, no term counted) and warm (the same queries
// again). CAIRN_PG_STATEMENTS_SHOW=1 prints each search's statements.
func TestSearchStatements(t *testing.T) {
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		t.Run(srv.name, func(t *testing.T) {
			b := testBackend(t, srv.env, "cairn_statements")
			b.Agent, b.HNSW = "statements", false
			ctx := context.Background()
			docs := filepath.Join(t.TempDir(), "notes")
			if _, _, err := corpus.Generate(docs, corpus.Options{Notes: 300, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			corpora := []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{docs}, Glob: "**/*.md"}}
			dir := t.TempDir()
			open := func() *engine.Engine {
				e, err := local.Open(ctx, engine.Options{Dir: dir, Backend: b, Embedder: hashembed.Embedder{}, Corpora: corpora})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close(ctx) })
				return e
			}
			if _, err := open().Sync(ctx, nil); err != nil {
				t.Fatal(err)
			}
			log := withStatementLog(t)
			e := open()
			qs := corpus.LabeledQueries(60, 1)
			for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid} {
				for _, pass := range []string{"cold", "warm"} {
					if pass == "cold" {
						e = open()
					}
					// A search before the measured ones: the engine's
					// first search loads what every later one reuses (the
					// vector lane, the index span).
					e.Search(ctx, "zzzz", &cairn.SearchOptions{Limit: 10, Mode: mode})
					log.take()
					byKind := map[string][]int{}
					for _, q := range qs {
						if _, err := e.Search(ctx, q.Text, &cairn.SearchOptions{Limit: 10, Mode: mode}); err != nil && !strings.Contains(err.Error(), "only common words") {
							t.Fatalf("search %q: %v", q.Text, err)
						}
						got := log.take()
						byKind[q.Kind] = append(byKind[q.Kind], len(got))
						byKind["all"] = append(byKind["all"], len(got))
						if os.Getenv("CAIRN_PG_STATEMENTS_SHOW") != "" {
							t.Logf("%s %s %q (%s): %d statements", mode, pass, q.Text, q.Kind, len(got))
							for _, s := range got {
								t.Logf("    %.120s", s)
							}
						}
					}
					var line []string
					for _, k := range []string{"all", corpus.KindCommon, corpus.KindMid, corpus.KindRare, corpus.KindMixed, corpus.KindIdent, corpus.KindPhrase} {
						n := byKind[k]
						sum, most := 0, 0
						for _, v := range n {
							sum += v
							most = max(most, v)
						}
						if len(n) > 0 {
							line = append(line, fmt.Sprintf("%s %.2f (max %d)", k, float64(sum)/float64(len(n)), most))
						}
					}
					t.Logf("%s %s: statements a search: %s", mode, pass, strings.Join(line, ", "))
				}
			}
		})
	}
}

// TestCitusHop is a measurement, not a check (CAIRN_PG_HOP=N runs it, N
// rounds): one term count over a small store, sent N times each way in
// turn: to single PostgreSQL, to the Citus coordinator (routed to the
// worker), as a distributed function delegated to the worker, straight to
// the worker's shard, and the stemming statement on the coordinator;
// p50 and p90 of each.
func TestCitusHop(t *testing.T) {
	n := envInt("CAIRN_PG_HOP", 0)
	if n == 0 {
		t.Skip("CAIRN_PG_HOP (rounds) not set")
	}
	ctx := context.Background()
	docs := make([]cairn.Document, 0, 400)
	for i := range 400 {
		docs = append(docs, testDoc(fmt.Sprintf("%03d.md", i), fmt.Sprintf("walrus seal %d grey of the sea\n", i)))
	}
	stores := map[string]*Store{}
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		b := testBackend(t, srv.env, "cairn_hop")
		s := openTest(t, b, "hop")
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
			t.Fatal(err)
		}
		stores[srv.name] = s
	}
	pg, ci := stores["postgres"], stores["citus"]
	c, err := pg.compile(ctx, pg.pool, cairn.Term("walrus"))
	if err != nil {
		t.Fatal(err)
	}
	count, args := countQuery(c, 2000)
	fn := `CREATE FUNCTION hop_count(a text, l text, m bigint) RETURNS TABLE(n bigint, low bigint) LANGUAGE plpgsql SET search_path = cairn_hop, public AS $$
		BEGIN RETURN QUERY SELECT count(*), coalesce(min(x.chunk), 0) FROM (SELECT p.chunk FROM postings p WHERE p.agent = a AND p.lexeme = l ORDER BY p.chunk DESC LIMIT m) x; END $$`
	for _, q := range []string{fn, `SELECT create_distributed_function('hop_count(text,text,bigint)', '$1', colocate_with := 'postings')`} {
		if _, err := ci.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var shard string
	var port int
	if err := ci.pool.QueryRow(ctx, `SELECT shard_name::text, nodeport FROM citus_shards
		WHERE shardid = get_shard_id_for_distribution_column('cairn_hop.postings', 'hop')`).Scan(&shard, &port); err != nil {
		t.Fatal(err)
	}
	wurl := strings.Replace(serverURL(t, "CAIRN_TEST_CITUS_URL"), ":56001", fmt.Sprintf(":%d", port), 1)
	worker, err := openPool(ctx, wurl, "cairn_hop", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Close()
	direct := strings.Replace(count, "FROM postings", "FROM "+shard, 1)
	stem := `SELECT w, coalesce((SELECT array_agg(u.lexeme ORDER BY p) FROM unnest(to_tsvector('cairn', w)) u, unnest(u.positions) p), '{}') FROM unnest($1::text[]) w`
	type way struct {
		name string
		run  func() error
		ms   []float64
	}
	scan2 := func(q querier) error {
		var a, b int64
		return q.QueryRow(ctx, count, args...).Scan(&a, &b)
	}
	ways := []*way{
		{name: "postgres count", run: func() error { return scan2(pg.pool) }},
		{name: "citus count (routed)", run: func() error { return scan2(ci.pool) }},
		{name: "citus count (delegated function)", run: func() error {
			var a, b int64
			return ci.pool.QueryRow(ctx, `SELECT * FROM hop_count($1, $2, $3)`, "hop", "walrus", int64(2000)).Scan(&a, &b)
		}},
		{name: "citus count (worker's shard)", run: func() error {
			var a, b int64
			return worker.QueryRow(ctx, direct, args...).Scan(&a, &b)
		}},
		{name: "citus count (the worker, routed)", run: func() error {
			var a, b int64
			return worker.QueryRow(ctx, count, args...).Scan(&a, &b)
		}},
		{name: "citus stem (coordinator)", run: func() error {
			rows, err := ci.pool.Query(ctx, stem, []string{fmt.Sprint("walrusx", 1)})
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		}},
	}
	for r := range n + 5 {
		for k := range ways {
			w := ways[(r+k)%len(ways)]
			t0 := time.Now()
			if err := w.run(); err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
			if r >= 5 {
				w.ms = append(w.ms, ms(time.Since(t0)))
			}
		}
	}
	for _, w := range ways {
		slices.Sort(w.ms)
		t.Logf("%-34s p50 %.3f ms, p90 %.3f ms", w.name, w.ms[len(w.ms)/2], w.ms[len(w.ms)*9/10])
	}
}

// TestCustomPlans: the store's connections plan every statement with its
// parameters (planCacheMode): after a pass of one shape has run ten times
// with other words, PostgreSQL holds no generic plan of it; with the
// server's default (auto) it does on PostgreSQL, planned without the
// lexemes' statistics (Citus's coordinator plans each distributed
// statement with its values already). (A statement without parameters has one plan, counted as
// generic: left out.)
func TestCustomPlans(t *testing.T) {
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		t.Run(srv.name, func(t *testing.T) {
			b := testBackend(t, srv.env, "cairn_plans")
			ctx := context.Background()
			var docs []cairn.Document
			for i := range 40 {
				docs = append(docs, testDoc(fmt.Sprintf("%02d.md", i), fmt.Sprintf("walrus%d seal%d grey%d of the sea\n", i%10, i%7, i%5)))
			}
			generic := func(mode string) int64 {
				defer func(m string) { planCacheMode = m }(planCacheMode)
				planCacheMode = mode
				s := openTest(t, b, "plans-"+mode)
				if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
					t.Fatal(err)
				}
				c := s.pool.Config().MaxConns
				for i := range 10 * int(c) {
					m := cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{cairn.Term(fmt.Sprintf("walrus%d", i%10)), cairn.Term(fmt.Sprintf("seal%d", i%7))}}
					if _, err := s.Lexical(ctx, cairn.LexicalQuery{Match: m, Limit: 10, MaxCandidates: 100}); err != nil {
						t.Fatal(err)
					}
				}
				var n int64
				for _, conn := range s.pool.AcquireAllIdle(ctx) {
					var g int64
					err := conn.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0)::bigint FROM pg_prepared_statements
						WHERE cardinality(parameter_types) > 0`).Scan(&g)
					conn.Release()
					if err != nil {
						t.Fatal(err)
					}
					n += g
				}
				return n
			}
			// Citus's coordinator plans distributed statements with their
			// values whatever the mode (no generic plan to tell apart).
			if n := generic(""); n == 0 && srv.name == "postgres" {
				t.Errorf("with the server's plan cache mode no statement kept a generic plan: the test would not tell")
			}
			if n := generic(planCacheMode); n != 0 {
				t.Errorf("with plan_cache_mode %s: %d executions of generic plans, want 0", planCacheMode, n)
			}
		})
	}
}

// TestMatchCounts: MatchCounts gives each match MatchCount's count and
// lowest id (terms frequent and rare, a word in no chunk, a match of no
// word, phrases over pairs and lexemes, a prefix, an identifier's any-group,
// an all-group), capped and not, in one statement and, on Citus, one task
// on one worker.
func TestMatchCounts(t *testing.T) {
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		t.Run(srv.name, func(t *testing.T) {
			b := testBackend(t, srv.env, "cairn_counts")
			ctx := context.Background()
			log := withStatementLog(t)
			s := openTest(t, b, "counts")
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: pairDocs(60)}); err != nil {
				t.Fatal(err)
			}
			ms := append(pairQueries(), cairn.Term("walrus"), cairn.Term("nosuchword"), cairn.Term("("), cairn.Prefix("wal"),
				cairn.Match{Op: cairn.MatchAny, Of: []cairn.Match{cairn.Term("sealgrey"), cairn.Phrase("seal", "grey")}},
				cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{cairn.Term("walrus"), cairn.Term("the")}})
			for i, max := range []int{3, 2000} {
				log.take()
				got, err := s.MatchCounts(ctx, ms, max)
				if err != nil {
					t.Fatal(err)
				}
				// The first call stems every word in one statement too.
				if sent := log.take(); len(sent) != 2-i {
					t.Errorf("max %d: MatchCounts sent %d statements, want %d:\n%s", max, len(sent), 2-i, strings.Join(sent, "\n"))
				}
				for k, m := range ms {
					want, err := s.MatchCount(ctx, m, max)
					if err != nil {
						t.Fatal(err)
					}
					if got[k] != want {
						t.Errorf("max %d: %s: MatchCounts %+v, MatchCount %+v", max, m, got[k], want)
					}
				}
			}
			if srv.name != "citus" {
				return
			}
			query, args, err := s.countsQuery(ctx, s.pool, ms, 10)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			rows, err := s.pool.Query(ctx, "EXPLAIN "+query, args...)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var l string
				rows.Scan(&l)
				plan = append(plan, l)
			}
			rows.Close()
			if text := strings.Join(plan, "\n"); !strings.Contains(text, "Task Count: 1") {
				t.Errorf("the counts of one agent are not one task:\n%s", text)
			}
		})
	}
}

// TestNearReads: on Citus a store reads from the worker that holds its
// agent's shards (the server a search's statements reach is that
// worker's), finds what it finds through the coordinator, and when the
// worker's connection fails, reads through the coordinator again, the
// failed read included.
func TestNearReads(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_CITUS_URL", "cairn_near")
	ctx := context.Background()
	s := openTest(t, b, "near")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: pairDocs(60)}); err != nil {
		t.Fatal(err)
	}
	var want int
	if err := s.pool.QueryRow(ctx, `SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
		WHERE p.shardid = get_shard_id_for_distribution_column('postings', $1::text)`, s.agent).Scan(&want); err != nil {
		t.Fatal(err)
	}
	var port int
	if err := s.readPool().QueryRow(ctx, `SELECT inet_server_port()`).Scan(&port); err != nil || port != want {
		t.Fatalf("reads go to port %d (%v), want the agent's worker's %d", port, err, want)
	}
	ms := append(pairQueries(), cairn.Term("walrus"), cairn.Prefix("wal"))
	near := lexicalLines(t, s, ms)
	func() {
		defer func(v bool) { nearReads = v }(nearReads)
		nearReads = false
		far := openTest(t, b, "near")
		if far.near.Load() != nil {
			t.Fatal("nearReads off: the store still reads from the worker")
		}
		if d := cmp.Diff(lexicalLines(t, far, ms), near); d != "" {
			t.Errorf("through the coordinator (-) and from the worker (+):\n%s", d)
		}
	}()
	// A worker that stops answering: a pool on a port nothing listens on.
	cfg, err := poolConfig(strings.Replace(serverURL(t, "CAIRN_TEST_CITUS_URL"), ":56001", ":1", 1), "cairn_near", 2)
	if err != nil {
		t.Fatal(err)
	}
	dead, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	s.near.Store(dead)
	sp, err := s.Span(ctx)
	if err != nil || sp.Rows != 60 {
		t.Fatalf("span after the worker's connection failed = %+v, %v; want 60 rows read through the coordinator", sp, err)
	}
	if s.near.Load() != nil {
		t.Error("the store still reads from a worker whose connection failed")
	}
	if d := cmp.Diff(lexicalLines(t, s, ms), near); d != "" {
		t.Errorf("through the coordinator after the failure (-want +got):\n%s", d)
	}
}
