package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// phraseFnDocs are notes in which the path parts pkg, kous, tai and ts
// are frequent and mostly together, in that order (an identifier a large
// agent's notes repeat), each also alone; zizoux is rare, after pkg in
// some notes.
func phraseFnDocs(n int) []cairn.Document {
	var docs []cairn.Document
	for i := range n {
		var w []string
		if i%2 == 0 {
			w = append(w, "see pkg/kous/tai.ts for it")
		}
		for k, part := range []string{"pkg", "kous", "tai", "ts"} {
			if i%(3+k) == 1 {
				w = append(w, "a "+part+" alone")
			}
		}
		if i%500 == 3 {
			w = append(w, "pkg zizoux")
		}
		w = append(w, fmt.Sprintf("note %d", i))
		docs = append(docs, testDoc(fmt.Sprintf("%04d.md", i), strings.Join(w, "\n")+"\n"))
	}
	return docs
}

func phrase(s string) cairn.Match {
	return cairn.Match{Op: cairn.MatchPhrase, Words: strings.Fields(s)}
}

// phraseFnQueries: the dense phrase, its words in an order no note holds,
// the phrase of a frequent and a rare word, the identifier's two forms
// (an any-group), and the phrase under an all-group (read as a join).
var phraseFnQueries = []cairn.Match{
	phrase("pkg kous tai ts"),
	phrase("ts kous pkg tai"),
	phrase("pkg zizoux"),
	{Op: cairn.MatchAny, Of: []cairn.Match{cairn.Term("pkgkoustaits"), phrase("pkg kous tai ts")}},
	{Op: cairn.MatchAll, Of: []cairn.Match{phrase("kous tai"), cairn.Term("note")}},
}

// TestPhraseFn: a phrase of frequent lexemes that no pair covers reads
// its newest matches through cairn_phrase_v1, which merge-joins the
// posting lists (newest first: at 1M, index-only scans read backwards
// that stop at the limit) when they are all long, and leaves the
// planner's plan to a phrase with a rare list; the passes, capped and not, and the counts find the same
// chunks and counts as the join without it, on both servers.
func TestPhraseFn(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			ctx := context.Background()
			s := openTest(t, testBackend(t, env, "cairn_phrasefn"), "a")
			if !s.phraseFn {
				t.Fatal("the store did not make or find " + phraseFnName)
			}
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: phraseFnDocs(3000)}); err != nil {
				t.Fatal(err)
			}
			if err := s.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			results := func() []string {
				out := lexicalLines(t, s, phraseFnQueries)
				for _, max := range []int{100, 5000} {
					mcs, err := s.MatchCounts(ctx, phraseFnQueries, max)
					if err != nil {
						t.Fatal(err)
					}
					for k, m := range phraseFnQueries {
						mc, err := s.MatchCount(ctx, m, max)
						if err != nil {
							t.Fatal(err)
						}
						out = append(out, fmt.Sprintf("%s max %d: count %d low %d, counts %d low %d", m, max, mc.N, mc.Low, mcs[k].N, mcs[k].Low))
					}
				}
				return out
			}
			with := results()
			mergePhrases = false
			without := results()
			mergePhrases = true
			if d := cmp.Diff(without, with); d != "" {
				t.Errorf("results through %s differ from the join's (-join +function):\n%s", phraseFnName, d)
			}
			if !strings.Contains(with[0], "scanned 25 ") || !strings.Contains(with[1], "scanned 1500 ") {
				t.Errorf("the dense phrase: %q, %q: want 25 capped and 1500 in all", with[0], with[1])
			}

			// The statements: a capped pass and a count of the dense
			// phrase call the function, and the identifier's any-group
			// too; the all-group reads its phrase as a join.
			for k, m := range phraseFnQueries {
				c, err := s.compile(ctx, s.pool, m)
				if err != nil {
					t.Fatal(err)
				}
				pass, _ := scanQuery(cairn.LexicalQuery{Match: m, Limit: 8, MaxCandidates: 500}, c, false)
				count, _ := countQuery(c, 2000)
				uncapped, _ := scanQuery(cairn.LexicalQuery{Match: m, Limit: 8}, c, false)
				want := k != 4
				if strings.Contains(pass, phraseFnName) != want || strings.Contains(count, phraseFnName) != want || strings.Contains(uncapped, phraseFnName) {
					t.Errorf("%s: calls %s in the capped pass %v, the count %v, the uncapped pass %v; want %v, %v, false",
						m, phraseFnName, strings.Contains(pass, phraseFnName), strings.Contains(count, phraseFnName), strings.Contains(uncapped, phraseFnName), want, want)
				}
			}
			if env != "CAIRN_TEST_POSTGRES_URL" {
				return
			}
			// The plans inside the function (auto_explain's nested
			// statements, sent to this connection).
			for _, c := range []struct {
				m     cairn.Match
				merge bool
			}{{phrase("pkg kous tai ts"), true}, {phrase("ts kous pkg tai"), true}, {phrase("pkg zizoux"), false}} {
				notes := explainInside(t, s, c.m)
				var plan string
				for _, n := range notes {
					if strings.Contains(n, "SELECT p1.chunk") {
						plan = n
					}
				}
				decided := "cairn_phrase_v1: merge " + map[bool]string{true: "t", false: "f"}[c.merge]
				if !strings.Contains(strings.Join(notes, "\n"), decided) {
					t.Errorf("%s: the function did not say %q: %q", c.m, decided, notes)
				}
				if plan == "" {
					t.Fatalf("%s: no plan of the function's statement among %q", c.m, notes)
				}
				// Merge joins only. The lists come in the key's order from
				// index-only scans read backwards where the pages are all
				// visible; a long transaction on the server (another
				// test's import) can leave them not, and then sorting a
				// bitmap scan's few thousand rows costs less.
				if c.merge && (!strings.Contains(plan, "Merge Join") || strings.Contains(plan, "Hash") || strings.Contains(plan, "Nested Loop")) {
					t.Errorf("%s: want merge joins of the lists (no hash join, no nested loop):\n%s", c.m, plan)
				}
			}
		})
	}
}

// explainInside runs a capped count of m on a connection of its own with
// auto_explain logging every nested statement's plan to it, and returns
// the messages the server sent.
func explainInside(t *testing.T, s *Store, m cairn.Match) []string {
	t.Helper()
	ctx := context.Background()
	cfg := s.pool.Config().ConnConfig.Copy()
	var mu sync.Mutex
	var notes []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, n.Message)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`, `SET auto_explain.log_nested_statements = on`,
		`SET client_min_messages = debug1`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c, err := s.compile(ctx, s.pool, m)
	if err != nil {
		t.Fatal(err)
	}
	query, args := countQuery(c, 500)
	var n, low int64
	if err := conn.QueryRow(ctx, query, args...).Scan(&n, &low); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return notes
}
