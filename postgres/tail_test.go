package postgres

import (
	"context"
	"fmt"
	"math"
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
	"github.com/cairnmemory/cairn/sqlite"
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
// without, alternating, and compares their hits; =counts the same with a
// query's term counts sent one statement each and in one (MatchCounts,
// as search/ sends them); =ownpairs the same with
// pairs of the agent's own frequent words read and not (readOwnPairs; a
// store without its list gets it first, as Optimize gives it:
// CAIRN_PG_TAIL_PAIRSHARE, default pairShare); =cost the same with the
// server's random_page_cost and with 1.1; =stores the same index in the
// stores CAIRN_PG_TAIL_STORES names (default sqlite,postgres,citus; postgres-join
// and citus-join are those stores with mergePhrases off, phrasefn.go;
// -gather with the server's parallel workers a statement, gatherWorkers "";
// -jit with its JIT, jitMode ""; -server with both): the
// SQLite data directory CAIRN_PG_TAIL_SQLITE (a copy: it is opened with
// the engine's feature version, which empties an index of another), the
// schema on CAIRN_PG_TAIL_URL and on CAIRN_PG_TAIL_CITUS (default
// CAIRN_TEST_CITUS_URL), their hits compared with SQLite's (the first
// store's; compareHits; logged, not failed: PostgreSQL's lexical scores
// are its own). CAIRN_PG_TAIL_AGENT names the agent (default "bench").
//
//	CAIRN_PG_TAIL=ps_keep go test -tags sqlite_fts5 ./postgres/ -run TestLexicalTail -v -timeout 0
//	CAIRN_PG_TAIL=pg1m CAIRN_PG_TAIL_AGENT=pg1m CAIRN_PG_TAIL_AB=stores CAIRN_PG_TAIL_SQLITE=/tmp/pg1m/sqlite go test ... (bench/pg1m-remeasure.sh)
func TestLexicalTail(t *testing.T) {
	schema := os.Getenv("CAIRN_PG_TAIL")
	if schema == "" {
		t.Skip("CAIRN_PG_TAIL (a pgbench schema) not set")
	}
	url := os.Getenv("CAIRN_PG_TAIL_URL")
	if url == "" {
		url = serverURL(t, "CAIRN_TEST_POSTGRES_URL")
	}
	agent := os.Getenv("CAIRN_PG_TAIL_AGENT")
	if agent == "" {
		agent = "bench"
	}
	n, rounds, top := envInt("CAIRN_PG_TAIL_QUERIES", 200), envInt("CAIRN_PG_TAIL_ROUNDS", 2), envInt("CAIRN_PG_TAIL_EXPLAIN", 10)
	ctx := context.Background()
	openAt := func(url string) *Store {
		st, err := Backend{URL: url, Schema: schema, Agent: agent}.Open(ctx, t.TempDir(),
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
	open := func() *Store { return openAt(url) }
	// CAIRN_PG_TAIL_AB=pairs: each query twice, phrases over their
	// lexemes' postings alone and over pairs (pairs.go); =cost: over a
	// store opened with the server's random_page_cost and over one with
	// 1.1 (randomPageCost). In turn first, and the hits of the two compared.
	type variant struct {
		name    string
		pairs   bool
		tm      *tailIndex
		own     bool // readOwnPairs: off in =ownpairs's first variant
		noMerge bool // mergePhrases off: =stores's postgres-join and citus-join
	}
	var variants []variant
	ab := os.Getenv("CAIRN_PG_TAIL_AB")
	switch ab {
	case "":
		s := open()
		variants = []variant{{"this build", pairPhrases, &tailIndex{s: s, pg: s}, true, false}}
	case "pairs":
		s := open()
		variants = []variant{{"without pairs", false, &tailIndex{s: s, pg: s}, true, false}, {"with pairs", true, &tailIndex{s: s, pg: s}, true, false}}
	case "counts":
		s := open()
		variants = []variant{{"counts one by one", true, &tailIndex{s: s, pg: s, single: true}, true, false}, {"counts in one statement", true, &tailIndex{s: s, pg: s}, true, false}}
	case "ownpairs":
		s := open()
		if v, err := strconv.ParseFloat(os.Getenv("CAIRN_PG_TAIL_PAIRSHARE"), 64); err == nil && v > 0 {
			defer func(v float64) { pairShare = v }(pairShare)
			pairShare = v
		}
		start, load := time.Now(), loadAvg()
		before, _ := ownCounts(t, s)
		if err := s.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		words, err := s.PairWords(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := ownCounts(t, s)
		t.Logf("own pairs: %d words (%s): %d pair postings, were %d; Optimize took %s (load %s then, %s now)",
			len(words), strings.Join(words, " "), after, before, time.Since(start).Round(time.Second), load, loadAvg())
		variants = []variant{{"GramWords pairs", true, &tailIndex{s: s, pg: s}, false, false}, {"own pairs too", true, &tailIndex{s: s, pg: s}, true, false}}
	case "cost":
		s := open()
		defer func(c string) { randomPageCost = c }(randomPageCost)
		randomPageCost = "1.1"
		low := open()
		variants = []variant{{"random_page_cost " + s.pageCost(ctx, t), true, &tailIndex{s: s, pg: s}, true, false}, {"random_page_cost " + low.pageCost(ctx, t), true, &tailIndex{s: low, pg: low}, true, false}}
	case "stores":
		names := os.Getenv("CAIRN_PG_TAIL_STORES")
		if names == "" {
			names = "sqlite,postgres,citus"
		}
		for _, name := range strings.Split(names, ",") {
			switch name {
			case "sqlite":
				variants = append(variants, variant{"sqlite", pairPhrases, &tailIndex{s: openSQLiteTail(ctx, t)}, true, false})
			case "postgres", "postgres-join", "postgres-gather", "postgres-jit", "postgres-server":
				s := withSettings(name, open)
				variants = append(variants, variant{name, pairPhrases, &tailIndex{s: s, pg: s}, true, name == "postgres-join"})
			case "citus", "citus-join", "citus-gather", "citus-jit", "citus-server":
				curl := os.Getenv("CAIRN_PG_TAIL_CITUS")
				if curl == "" {
					curl = serverURL(t, "CAIRN_TEST_CITUS_URL")
				}
				s := withSettings(name, func() *Store { return openAt(curl) })
				variants = append(variants, variant{name, pairPhrases, &tailIndex{s: s, pg: s}, true, name == "citus-join"})
			default:
				t.Fatalf("CAIRN_PG_TAIL_STORES: unknown store %q (sqlite; postgres or citus, alone or with -join, -gather, -jit or -server)", name)
			}
		}
	default:
		t.Fatalf("CAIRN_PG_TAIL_AB=%q: want pairs, ownpairs, counts, cost or stores", ab)
	}
	for _, v := range variants {
		st, err := v.tm.s.Span(ctx)
		if err != nil {
			t.Fatalf("%s: span: %v", v.name, err)
		}
		t.Logf("%s: %d chunks (ids %d to %d)", v.name, st.Rows, st.MinID, st.MaxID)
	}
	defer func() { pairPhrases, readOwnPairs, mergePhrases = true, true, true }()
	qs := corpus.LabeledQueries(n, 1)
	// The statements explained are the last PostgreSQL variant's.
	last := len(variants) - 1
	for last > 0 && variants[last].tm.pg == nil {
		last--
	}
	var res []tailResult
	for r := range rounds {
		res = res[:0]
		byVariant := make([][]tailResult, len(variants))
		kinds, calls, shown := make([][4]int, len(variants)), 0, 0
		// With SQLite first, the PostgreSQL stores are also compared with
		// the first of them (one scoring: they must answer alike).
		pgFirst, pgKinds := -1, make([][4]int, len(variants))
		if ab == "stores" && variants[0].tm.pg == nil {
			for k := 1; k < len(variants) && pgFirst < 0; k++ {
				if variants[k].tm.pg != nil {
					pgFirst = k
				}
			}
		}
		for i, q := range qs {
			hits := make([][]cairn.Hit, len(variants))
			for k := range variants {
				vi := (i + k) % len(variants)
				v := variants[vi]
				pairPhrases, readOwnPairs, mergePhrases = v.pairs, v.own, !v.noMerge
				v.tm.calls = nil
				t0 := time.Now()
				var ix search.Index = v.tm
				if v.tm.single {
					ix = oneByOne{v.tm}
				}
				h, err := (&search.Searcher{Index: ix}).Search(ctx, q.Text, &cairn.SearchOptions{Limit: 10})
				if err != nil && !strings.Contains(err.Error(), "invalid") {
					t.Fatalf("search %q: %v", q.Text, err)
				}
				took := time.Since(t0)
				for i := range v.tm.calls {
					v.tm.calls[i].query = q
				}
				calls += len(v.tm.calls)
				byVariant[vi] = append(byVariant[vi], tailResult{q, took, slices.Clone(v.tm.calls)})
				hits[vi] = h
			}
			for k := 1; k < len(variants); k++ {
				c := compareHits(hits[0], hits[k])
				kinds[k][c]++
				if c != hitsDiffer {
					continue
				}
				report := t.Errorf // the same store twice must answer alike
				if ab == "stores" {
					report = t.Logf // PostgreSQL's lexical scores are its own (port's round trip)
				}
				if shown++; shown <= 20 {
					report("query %q: hits %s: %s; %s: %s", q.Text, variants[0].name, hitsLine(hits[0]), variants[k].name, hitsLine(hits[k]))
				}
			}
			for k := pgFirst + 1; pgFirst > 0 && k < len(variants); k++ {
				c := compareHits(hits[pgFirst], hits[k])
				pgKinds[k][c]++
				if c == hitsDiffer {
					t.Errorf("query %q: hits %s: %s; %s: %s", q.Text, variants[pgFirst].name, hitsLine(hits[pgFirst]), variants[k].name, hitsLine(hits[k]))
				}
			}
		}
		res = append(res, byVariant[last]...)
		t.Logf("round %d: %.2f store calls a search", r+1, float64(calls)/float64(len(qs)*len(variants)))
		for vi, v := range variants {
			t.Logf("round %d, %s: %s", r+1, v.name, tailSummary(byVariant[vi], ""))
			for _, k := range []string{corpus.KindCommon, corpus.KindMid, corpus.KindRare, corpus.KindMixed, corpus.KindIdent, corpus.KindPhrase} {
				t.Logf("  %-7s %s", k, tailSummary(byVariant[vi], k))
			}
		}
		for k := 1; k < len(variants); k++ {
			var b strings.Builder
			for c, n := range kinds[k] {
				fmt.Fprintf(&b, ", %s %d", hitsKinds[c], n)
			}
			t.Logf("round %d: hits of %d queries, %s against %s%s (alike: same chunks, order, scores within 1e-9; tied: alike but equal scores in another order; cut: a tie at the limit)", r+1, len(qs), variants[k].name, variants[0].name, b.String())
		}
		for k := pgFirst + 1; pgFirst > 0 && k < len(variants); k++ {
			t.Logf("round %d: hits of %d queries, %s against %s: alike %d, tied %d, cut %d, differ %d", r+1, len(qs), variants[k].name, variants[pgFirst].name,
				pgKinds[k][hitsAlike], pgKinds[k][hitsTied], pgKinds[k][hitsCut], pgKinds[k][hitsDiffer])
		}
	}
	pairPhrases, readOwnPairs, mergePhrases = variants[last].pairs, variants[last].own, !variants[last].noMerge
	tm := variants[last].tm
	if tm.pg == nil {
		return
	}
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

// withSettings opens a store with open, one whose connections keep the
// server's max_parallel_workers_per_gather (gatherWorkers "") when name
// ends in -gather, its jit (jitMode "") in -jit, both in -server.
func withSettings(name string, open func() *Store) *Store {
	defer func(w, j string) { gatherWorkers, jitMode = w, j }(gatherWorkers, jitMode)
	if strings.HasSuffix(name, "-gather") || strings.HasSuffix(name, "-server") {
		gatherWorkers = ""
	}
	if strings.HasSuffix(name, "-jit") || strings.HasSuffix(name, "-server") {
		jitMode = ""
	}
	return open()
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// tailCall is one store call a search made: a pass (lex set), a count
// or the counts of several matches at once (MatchCounts).
type tailCall struct {
	query  corpus.Query
	what   string
	took   time.Duration
	lex    *cairn.LexicalQuery
	count  *cairn.Match
	counts []cairn.Match
	max    int
}

type tailResult struct {
	q     corpus.Query
	took  time.Duration
	calls []tailCall
}

// tailIndex times the store calls search.Searcher makes: s's, where pg
// is s when s is a PostgreSQL store (whose statements can be explained)
// and nil for SQLite.
type tailIndex struct {
	s      tailStore
	pg     *Store
	single bool // searched as oneByOne: without MatchCounts
	calls  []tailCall
}

// oneByOne is a tailIndex without MatchCounts: search.Searcher then
// counts a query's terms one statement each, as before it batched them.
type oneByOne struct{ t *tailIndex }

func (o oneByOne) Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error) {
	return o.t.Lexical(ctx, q)
}
func (o oneByOne) MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	return o.t.MatchCount(ctx, m, max)
}
func (o oneByOne) Span(ctx context.Context) (cairn.IndexSpan, error) { return o.t.Span(ctx) }
func (o oneByOne) Generation() int64                                 { return o.t.Generation() }

// tailStore is what search.Searcher asks of a store.
type tailStore interface {
	Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error)
	MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error)
	Span(ctx context.Context) (cairn.IndexSpan, error)
	Generation() int64
}

// openSQLiteTail opens CAIRN_PG_TAIL_SQLITE, a SQLite data directory, as
// the engine would (its feature version, the memory map).
func openSQLiteTail(ctx context.Context, t *testing.T) tailStore {
	dir := os.Getenv("CAIRN_PG_TAIL_SQLITE")
	if dir == "" {
		t.Fatal("CAIRN_PG_TAIL_STORES names sqlite: set CAIRN_PG_TAIL_SQLITE to a data directory (a copy)")
	}
	st, err := sqlite.Backend{}.Open(ctx, dir, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, Ident: search.IdentText, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if st.FeatureChanged() {
		t.Fatalf("%s was built with another feature version (now emptied)", dir)
	}
	ts, ok := st.(tailStore)
	if !ok {
		t.Fatalf("the SQLite store (%T) does not answer lexical searches", st)
	}
	return ts
}

// Hit lists compared: alike (same chunks in the same order, scores
// within 1e-9), tied (alike once the chunks of one score are put in path
// and line order: stores break ties by their own chunk ids), cut (alike
// above the lowest score, which both share, and as many hits: the limit
// cut through a tie) or different.
const (
	hitsAlike = iota
	hitsTied
	hitsCut
	hitsDiffer
)

var hitsKinds = []string{"alike", "tied", "cut", "differ"}

func compareHits(a, b []cairn.Hit) int {
	eq := func(x, y []cairn.Hit) bool {
		return slices.EqualFunc(x, y, func(p, q cairn.Hit) bool {
			return p.Path == q.Path && p.StartLine == q.StartLine && math.Abs(p.Score-q.Score) <= 1e-9
		})
	}
	if eq(a, b) {
		return hitsAlike
	}
	if len(a) != len(b) || len(a) == 0 {
		return hitsDiffer
	}
	order := func(h []cairn.Hit) []cairn.Hit {
		h = slices.Clone(h)
		slices.SortStableFunc(h, func(p, q cairn.Hit) int {
			if math.Abs(p.Score-q.Score) > 1e-9 {
				if p.Score > q.Score {
					return -1
				}
				return 1
			}
			if c := strings.Compare(p.Path, q.Path); c != 0 {
				return c
			}
			return p.StartLine - q.StartLine
		})
		return h
	}
	a, b = order(a), order(b)
	if eq(a, b) {
		return hitsTied
	}
	low := a[len(a)-1].Score
	if math.Abs(low-b[len(b)-1].Score) > 1e-9 {
		return hitsDiffer
	}
	above := func(h []cairn.Hit) []cairn.Hit {
		i := 0
		for i < len(h) && h[i].Score > low+1e-9 {
			i++
		}
		return h[:i]
	}
	if eq(above(a), above(b)) {
		return hitsCut
	}
	return hitsDiffer
}

func hitsLine(h []cairn.Hit) string {
	var b strings.Builder
	for _, x := range h {
		fmt.Fprintf(&b, "%s:%d %.9f;", x.Path, x.StartLine, x.Score)
	}
	return b.String()
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

// MatchCounts is the store's MatchCounts (search.Searcher counts a
// query's terms in one call when the index has it, as the engine's
// searches of a PostgreSQL store do), or MatchCount of each in turn for
// a store without it (SQLite), timed as one call.
func (t *tailIndex) MatchCounts(ctx context.Context, ms []cairn.Match, max int) ([]cairn.MatchCount, error) {
	t0 := time.Now()
	var out []cairn.MatchCount
	var err error
	if mc, ok := t.s.(interface {
		MatchCounts(context.Context, []cairn.Match, int) ([]cairn.MatchCount, error)
	}); ok && t.pg != nil {
		out, err = mc.MatchCounts(ctx, ms, max)
	} else {
		for _, m := range ms {
			var c cairn.MatchCount
			if c, err = t.s.MatchCount(ctx, m, max); err != nil {
				break
			}
			out = append(out, c)
		}
	}
	var l []string
	for k, m := range ms {
		if k < len(out) {
			l = append(l, fmt.Sprintf("%s = %d", m, out[k].N))
		}
	}
	t.calls = append(t.calls, tailCall{what: "counts " + strings.Join(l, ", "), took: time.Since(t0), counts: ms, max: max})
	return out, err
}

func (t *tailIndex) Span(ctx context.Context) (cairn.IndexSpan, error) { return t.s.Span(ctx) }
func (t *tailIndex) Generation() int64                                 { return t.s.Generation() }

// explain runs EXPLAIN (ANALYZE, BUFFERS) of the statement c made.
func (t *tailIndex) explain(ctx context.Context, c tailCall) (string, error) {
	var query string
	var args []any
	if c.lex != nil {
		cm, err := t.pg.compile(ctx, t.pg.pool, c.lex.Match)
		if err != nil {
			return "", err
		}
		query, args = scanQuery(*c.lex, cm, false)
	} else if c.counts != nil {
		var err error
		if query, args, err = t.pg.countsQuery(ctx, t.pg.pool, c.counts, c.max); err != nil {
			return "", err
		}
		if query == "" {
			return "(no statement: no match can match)", nil
		}
	} else {
		cm, err := t.pg.compile(ctx, t.pg.pool, *c.count)
		if err != nil {
			return "", err
		}
		query, args = countQuery(cm, c.max)
	}
	rows, err := t.pg.pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+query, args...)
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
