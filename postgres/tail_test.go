package postgres

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/search"
)

// TestLexicalTail is a measurement, not a check: over a store pgbench
// synced (CAIRN_PG_TAIL names its schema; the agent is pgbench's "bench";
// CAIRN_PG_TAIL_URL the server, default CAIRN_TEST_POSTGRES_URL) it runs
// pgbench's generated query list through search.Searcher, prints lexical
// p50/p99 by query kind for each round (the first with the term counts
// uncached, as pgbench's one pass has them), and EXPLAIN (ANALYZE,
// BUFFERS) of the slowest store statements of the last round. It reads
// only; the store is opened with the engine's feature version so nothing
// is emptied (a store of an older schema is migrated first).
// CAIRN_PG_TAIL_AB=pairs runs each query with phrases over pairs and
// without, alternating, and compares their hits; =cost the same with the
// server's random_page_cost and with 1.1.
//
//	CAIRN_PG_TAIL=ps_keep go test -tags sqlite_fts5 ./postgres/ -run TestLexicalTail -v -timeout 0
func TestLexicalTail(t *testing.T) {
	schema := os.Getenv("CAIRN_PG_TAIL")
	if schema == "" {
		t.Skip("CAIRN_PG_TAIL (a pgbench schema) not set")
	}
	url := os.Getenv("CAIRN_PG_TAIL_URL")
	if url == "" {
		url = serverURL(t, "CAIRN_TEST_POSTGRES_URL")
	}
	n, rounds, top := envInt("CAIRN_PG_TAIL_QUERIES", 200), envInt("CAIRN_PG_TAIL_ROUNDS", 2), envInt("CAIRN_PG_TAIL_EXPLAIN", 10)
	ctx := context.Background()
	open := func() *Store {
		st, err := Backend{URL: url, Schema: schema, Agent: "bench"}.Open(ctx, t.TempDir(),
			cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, Ident: search.IdentText, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		s := st.(*Store)
		if s.FeatureChanged() {
			t.Fatalf("schema %s was built with another feature version (now emptied)", schema)
		}
		return s
	}
	s := open()
	// CAIRN_PG_TAIL_AB=pairs: each query twice, phrases over their
	// lexemes' postings alone and over pairs (pairs.go); =cost: over a
	// store opened with the server's random_page_cost and over one with
	// 1.1 (randomPageCost). In turn first, and the hits of the two compared.
	type variant struct {
		name  string
		pairs bool
		tm    *tailIndex
	}
	variants := []variant{{"this build", pairPhrases, &tailIndex{s: s}}}
	switch ab := os.Getenv("CAIRN_PG_TAIL_AB"); ab {
	case "":
	case "pairs":
		variants = []variant{{"without pairs", false, &tailIndex{s: s}}, {"with pairs", true, &tailIndex{s: s}}}
	case "cost":
		defer func(c string) { randomPageCost = c }(randomPageCost)
		randomPageCost = "1.1"
		low := open()
		variants = []variant{{"random_page_cost " + s.pageCost(ctx, t), true, variants[0].tm}, {"random_page_cost " + low.pageCost(ctx, t), true, &tailIndex{s: low}}}
	default:
		t.Fatalf("CAIRN_PG_TAIL_AB=%q: want pairs or cost", ab)
	}
	defer func() { pairPhrases = true }()
	qs := corpus.LabeledQueries(n, 1)
	var res []tailResult
	for r := range rounds {
		res = res[:0]
		byVariant := make([][]tailResult, len(variants))
		differ, calls := 0, 0
		for i, q := range qs {
			hits := make([]string, len(variants))
			for k := range variants {
				vi := (i + k) % len(variants)
				v := variants[vi]
				pairPhrases = v.pairs
				v.tm.calls = nil
				t0 := time.Now()
				h, err := (&search.Searcher{Index: v.tm}).Search(ctx, q.Text, &cairn.SearchOptions{Limit: 10})
				if err != nil && !strings.Contains(err.Error(), "invalid") {
					t.Fatalf("search %q: %v", q.Text, err)
				}
				took := time.Since(t0)
				for i := range v.tm.calls {
					v.tm.calls[i].query = q
				}
				calls += len(v.tm.calls)
				byVariant[vi] = append(byVariant[vi], tailResult{q, took, slices.Clone(v.tm.calls)})
				var b strings.Builder
				for _, x := range h {
					fmt.Fprintf(&b, "%s:%d %.9f;", x.Path, x.StartLine, x.Score)
				}
				hits[vi] = b.String()
			}
			if len(variants) == 2 && hits[0] != hits[1] {
				differ++
				t.Errorf("query %q: hits %s: %s; %s: %s", q.Text, variants[0].name, hits[0], variants[1].name, hits[1])
			}
		}
		res = append(res, byVariant[len(variants)-1]...) // the slowest statements explained are the last variant's
		t.Logf("round %d: %.2f store calls a search", r+1, float64(calls)/float64(len(qs)*len(variants)))
		for vi, v := range variants {
			t.Logf("round %d, %s: %s", r+1, v.name, tailSummary(byVariant[vi], ""))
			for _, k := range []string{corpus.KindCommon, corpus.KindMid, corpus.KindRare, corpus.KindMixed, corpus.KindIdent, corpus.KindPhrase} {
				t.Logf("  %-7s %s", k, tailSummary(byVariant[vi], k))
			}
		}
		if len(variants) == 2 {
			t.Logf("round %d: %d of %d queries' hits differ between the two", r+1, differ, len(qs))
		}
	}
	pairPhrases = variants[len(variants)-1].pairs
	tm := variants[len(variants)-1].tm
	var calls []tailCall
	for _, r := range res {
		calls = append(calls, r.calls...)
	}
	slices.SortFunc(calls, func(a, b tailCall) int { return int(b.took - a.took) })
	for _, c := range calls[:min(top, len(calls))] {
		plan, err := tm.explain(ctx, c)
		if err != nil {
			t.Fatalf("explain %s: %v", c.what, err)
		}
		t.Logf("%.1f ms (query %q, %s): %s\n%s", ms(c.took), c.query.Text, c.query.Kind, c.what, plan)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// tailCall is one store call a search made: a pass (lex set) or a count.
type tailCall struct {
	query corpus.Query
	what  string
	took  time.Duration
	lex   *cairn.LexicalQuery
	count *cairn.Match
	max   int
}

type tailResult struct {
	q     corpus.Query
	took  time.Duration
	calls []tailCall
}

// tailIndex times the store calls search.Searcher makes.
type tailIndex struct {
	s     *Store
	calls []tailCall
}

func (t *tailIndex) Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error) {
	t0 := time.Now()
	res, err := t.s.Lexical(ctx, q)
	what := "pass " + q.Match.String()
	if res != nil {
		what += fmt.Sprintf(" scanned=%d capped=%v hits=%d", res.Scanned, res.Capped, len(res.Candidates))
	}
	t.calls = append(t.calls, tailCall{what: what, took: time.Since(t0), lex: &q})
	return res, err
}

func (t *tailIndex) MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	t0 := time.Now()
	c, err := t.s.MatchCount(ctx, m, max)
	t.calls = append(t.calls, tailCall{what: fmt.Sprintf("count %s = %d", m, c.N), took: time.Since(t0), count: &m, max: max})
	return c, err
}

func (t *tailIndex) Span(ctx context.Context) (cairn.IndexSpan, error) { return t.s.Span(ctx) }
func (t *tailIndex) Generation() int64                                 { return t.s.Generation() }

// explain runs EXPLAIN (ANALYZE, BUFFERS) of the statement c made.
func (t *tailIndex) explain(ctx context.Context, c tailCall) (string, error) {
	var query string
	var args []any
	if c.lex != nil {
		cm, err := t.s.compile(ctx, t.s.pool, c.lex.Match)
		if err != nil {
			return "", err
		}
		query, args = scanQuery(*c.lex, cm, false)
	} else {
		cm, err := t.s.compile(ctx, t.s.pool, *c.count)
		if err != nil {
			return "", err
		}
		query, args = countQuery(cm, c.max)
	}
	rows, err := t.s.pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", err
		}
		lines = append(lines, "    "+l)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

func tailSummary(res []tailResult, kind string) string {
	var l []time.Duration
	for _, r := range res {
		if kind == "" || r.q.Kind == kind {
			l = append(l, r.took)
		}
	}
	if len(l) == 0 {
		return "none"
	}
	slices.Sort(l)
	return fmt.Sprintf("%d queries: p50 %.2f ms, p90 %.2f, p99 %.2f, max %.2f", len(l), ms(l[len(l)/2]), ms(l[len(l)*9/10]), ms(l[len(l)*99/100]), ms(l[len(l)-1]))
}

// pageCost is the random_page_cost the store's connections plan with.
func (s *Store) pageCost(ctx context.Context, t *testing.T) string {
	var v string
	if err := s.pool.QueryRow(ctx, `SHOW random_page_cost`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
