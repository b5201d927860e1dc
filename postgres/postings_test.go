package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// optimizedPostings opens agent "a" in a fresh schema of the PostgreSQL
// test server, writes postingsDocs(600) and runs Optimize (the vacuum that
// lets index-only reads skip the heap).
func optimizedPostings(t *testing.T, schema string) *Store {
	t.Helper()
	ctx := context.Background()
	s := openTest(t, testBackend(t, "CAIRN_TEST_POSTGRES_URL", schema), "a")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: postingsDocs(600)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// postingsDocs are notes whose words make terms of every rarity, a phrase
// and a prefix to search for.
func postingsDocs(n int) []cairn.Document {
	var docs []cairn.Document
	for i := range n {
		text := fmt.Sprintf("walrus note %d about seal%d colonies\nthe %s herd swims north\n", i, i%7, []string{"grey", "harbour", "elephant"}[i%3])
		if i%5 == 0 {
			text += "elephant seal sighted near the harbour walls\n"
		}
		docs = append(docs, testDoc(fmt.Sprintf("%03d.md", i), text))
	}
	return docs
}

var postingsQueries = []cairn.Match{
	cairn.Term("walrus"),
	cairn.Term("elephant"),
	{Op: cairn.MatchPhrase, Words: []string{"elephant", "seal"}},
	{Op: cairn.MatchPrefix, Words: []string{"seal"}},
	{Op: cairn.MatchAll, Of: []cairn.Match{cairn.Term("harbour").Weighted(2), cairn.Term("grey")}},
	{Op: cairn.MatchAny, Of: []cairn.Match{cairn.Term("harbour").Weighted(2), {Op: cairn.MatchPhrase, Words: []string{"herd", "swims"}}, cairn.Term("nothingmatches")}},
}

// searchAll runs postingsQueries with a small cap and returns what each
// found: ids, scores, the pass's size and lowest id.
func searchAll(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, m := range postingsQueries {
		res, err := s.Lexical(context.Background(), cairn.LexicalQuery{Match: m, Limit: 5, MaxCandidates: 40})
		if err != nil {
			t.Fatalf("search %s: %v", m, err)
		}
		line := fmt.Sprintf("%s: scanned %d low>0 %v capped %v:", m, res.Scanned, res.Low > 0, res.Capped)
		for _, c := range res.Candidates {
			line += fmt.Sprintf(" %s#%d %.6f", c.Path, c.Seq, c.Score)
		}
		out = append(out, line)
	}
	return out
}

// TestPostingsMigration: a database of schema 1 (tsvector and GIN index,
// no postings) opened by this version gets the postings of every stored
// chunk of every agent, loses the GIN index, and searches find what they
// found on a database made at schema 2; on both servers.
func TestPostingsMigration(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			b := testBackend(t, env, "cairn_migrate_postings")
			ctx := context.Background()
			s, other := openTest(t, b, "a"), openTest(t, b, "b")
			for _, st := range []*Store{s, other} {
				if err := st.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: postingsDocs(120)}); err != nil {
					t.Fatal(err)
				}
			}
			want := searchAll(t, s)
			if !strings.Contains(want[2], "scanned 24") {
				t.Fatalf("phrase search before the migration: %s; want 24 matches", want[2])
			}
			var postings int
			if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM postings`).Scan(&postings); err != nil {
				t.Fatal(err)
			}
			// Back to schema 1, as a database made before the postings was.
			for _, q := range []string{`DROP TABLE postings`, `CREATE INDEX chunks_tsv ON chunks USING gin(tsv) WHERE NOT noise`,
				`UPDATE cairn_meta SET value = '1' WHERE key = 'schema_version'`} {
				if _, err := s.pool.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			s.Close()
			other.Close()
			s = openTest(t, b, "a")
			var got, pairs, lexemes, gin int
			if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM postings), (SELECT count(*) FROM postings WHERE lexeme >= chr(31) AND lexeme < chr(32)),
				(SELECT sum(length(tsv)) FROM chunks WHERE NOT noise),
				(SELECT count(*) FROM pg_indexes WHERE indexname = 'chunks_tsv')`).Scan(&got, &pairs, &lexemes, &gin); err != nil {
				t.Fatal(err)
			}
			if got != postings || got-pairs != lexemes || pairs == 0 || gin != 0 {
				t.Errorf("after the migration: %d postings (%d before, %d of them pairs, %d lexemes in the tsvectors), %d GIN indexes; want as many as before, the lexemes' and pairs, and no GIN index",
					got, postings, pairs, lexemes, gin)
			}
			if d := cmp.Diff(want, searchAll(t, s)); d != "" {
				t.Errorf("searches after the migration (-before +after):\n%s", d)
			}
			// The planner keeps statistics of 1,000 lexemes (migration 4),
			// on Citus in every shard of the postings.
			targets := []string{}
			q := `SELECT attstattarget::text FROM pg_attribute WHERE attrelid = 'postings'::regclass AND attname = 'lexeme'`
			if env == "CAIRN_TEST_CITUS_URL" {
				q = `SELECT DISTINCT result FROM run_command_on_shards('` + b.Schema + `.postings',
					$$SELECT attstattarget FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'lexeme'$$)`
			}
			rows, err := s.pool.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var v string
				rows.Scan(&v)
				targets = append(targets, v)
			}
			rows.Close()
			if strings.Join(targets, ",") != "1000" {
				t.Errorf("statistics targets of postings.lexeme: %q; want 1000 everywhere", targets)
			}
			// The migration vacuumed and analyzed the postings it wrote
			// (index-only reads skip the heap only on pages a vacuum
			// marked all-visible). On Citus the shards are vacuumed on
			// the workers; the coordinator's table counts nothing.
			if env == "CAIRN_TEST_POSTGRES_URL" {
				var vacuums, analyzes int
				if err := s.pool.QueryRow(ctx, `SELECT vacuum_count, analyze_count FROM pg_stat_user_tables
					WHERE schemaname = $1 AND relname = 'postings'`, b.Schema).Scan(&vacuums, &analyzes); err != nil {
					t.Fatal(err)
				}
				if vacuums < 1 || analyzes < 1 {
					t.Errorf("postings after the migration: %d vacuums, %d analyzes; want the migration's own", vacuums, analyzes)
				}
			}
		})
	}
}

// TestLexicalIndexOnly: after Optimize a one-term pass reads its matches
// and counts from the postings' primary key (an index-only scan), and the
// chunks only for the winners; the GIN index it replaced visited
// every matching chunk's row for its tf map.
func TestLexicalIndexOnly(t *testing.T) {
	ctx := context.Background()
	s := optimizedPostings(t, "cairn_index_only")
	c, err := s.compile(ctx, s.pool, cairn.Term("elephant"))
	if err != nil {
		t.Fatal(err)
	}
	query, args := scanQuery(cairn.LexicalQuery{Match: cairn.Term("elephant"), Limit: 10, MaxCandidates: 2000}, c, false)
	// At this size (600 chunks) the planner may prefer a bitmap scan of
	// the table to an index-only scan of the wider key; what this checks
	// is that the key answers the pass alone, so bitmap scans are off.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SET LOCAL enable_bitmapscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		var l string
		rows.Scan(&l)
		lines = append(lines, l)
	}
	rows.Close()
	plan := strings.Join(lines, "\n")
	// The matching (CTE s) reads the postings alone; what follows joins
	// the winners to their chunks, documents and text.
	scan, _, ok := strings.Cut(plan, "CTE m")
	if !ok {
		t.Fatalf("no CTE m in the plan:\n%s", plan)
	}
	// Heap fetches are not asserted: they are 0 after Optimize's vacuum
	// unless another session's open transaction on the server holds the
	// visibility horizon back (the test servers are shared).
	if !strings.Contains(scan, "Index Only Scan") || !strings.Contains(scan, "postings_pkey") {
		t.Errorf("a one-term pass does not read the postings index-only:\n%s", plan)
	}
	if strings.Contains(scan, " on chunks") || strings.Contains(scan, "chunks_tsv") {
		t.Errorf("a one-term pass reads the chunks' rows to match:\n%s", plan)
	}
}

// TestCheckFTSPostings: postings lost (or left over) make CheckFTS report
// damage, and RebuildFTS writes them again.
func TestCheckFTSPostings(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_check_postings")
	ctx := context.Background()
	s := openTest(t, b, "a")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: postingsDocs(30)}); err != nil {
		t.Fatal(err)
	}
	want := searchAll(t, s)
	if err := s.CheckFTS(ctx); err != nil {
		t.Fatalf("check of a sound index: %v", err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM postings WHERE agent = 'a' AND lexeme = 'walrus'`); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckFTS(ctx); !errors.Is(err, cairn.ErrDamaged) {
		t.Fatalf("check with 30 postings lost = %v, want ErrDamaged", err)
	}
	if err := s.RebuildFTS(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckFTS(ctx); err != nil {
		t.Errorf("check after the rebuild: %v", err)
	}
	if d := cmp.Diff(want, searchAll(t, s)); d != "" {
		t.Errorf("searches after the rebuild (-before +after):\n%s", d)
	}
}

// TestPhraseIndexOnly: a phrase's word order is checked from the
// postings' positions, so its pass reads no chunk row to match.
func TestPhraseIndexOnly(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_phrase_index_only")
	ctx := context.Background()
	s := openTest(t, b, "a")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: postingsDocs(60)}); err != nil {
		t.Fatal(err)
	}
	m := cairn.Match{Op: cairn.MatchPhrase, Words: []string{"elephant", "seal"}}
	c, err := s.compile(ctx, s.pool, m)
	if err != nil {
		t.Fatal(err)
	}
	query, _ := scanQuery(cairn.LexicalQuery{Match: m, Limit: 10, MaxCandidates: 2000}, c, false)
	scan, _, _ := strings.Cut(query, "m AS MATERIALIZED")
	if strings.Contains(scan, "chunks") || strings.Contains(scan, "tsv") {
		t.Errorf("a phrase pass reads the chunks to match:\n%s", scan)
	}
	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: m, Limit: 100})
	if err != nil || res.Scanned != 12 {
		t.Fatalf("phrase search = %d matches, %v; want the 12 notes with the sighting", res.Scanned, err)
	}
	// In the reverse order the words are in no note.
	rev := cairn.Match{Op: cairn.MatchPhrase, Words: []string{"seal", "elephant"}}
	if res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: rev, Limit: 100}); err != nil || res.Scanned != 0 {
		t.Errorf("reversed phrase = %+v, %v; want no match", res, err)
	}
}

// TestAnyGroupNewest: a capped pass over an any-group reads each member's
// newest postings up to the cap, not every posting of every member (the
// union's GROUP BY stopped the planner from pushing the limit down: an
// identifier's two forms at 100k chunks read 19,045 postings each for the
// 501 newest), and finds what the whole union finds.
func TestAnyGroupNewest(t *testing.T) {
	ctx := context.Background()
	s := optimizedPostings(t, "cairn_any_newest")
	m := cairn.Match{Op: cairn.MatchAny, Of: []cairn.Match{cairn.Term("walrus"), cairn.Term("grey").Weighted(2),
		{Op: cairn.MatchPhrase, Words: []string{"elephant", "seal"}}}}
	q := cairn.LexicalQuery{Match: m, Limit: 5, MaxCandidates: 40}
	c, err := s.compile(ctx, s.pool, m)
	if err != nil {
		t.Fatal(err)
	}
	// What the whole union finds: the same statement over the union read whole.
	whole := *c
	whole.rel.any = nil
	read := func(c *compiled) []string {
		query, args := scanQuery(q, c, false)
		rows, err := s.pool.Query(ctx, query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(vals[:4]...))
		}
		return out
	}
	if got, want := read(c), read(&whole); !cmp.Equal(got, want) || len(got) != 5 {
		t.Errorf("capped any-group pass = %q, want %q (the whole union's)", got, want)
	}
	query, args := scanQuery(q, c, false)
	var plan []map[string]any
	if err := s.pool.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+query, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var scans []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		// The terms' members (a phrase's join is the planner's to order
		// at this size).
		if cond, _ := n["Index Cond"].(string); n["Relation Name"] == "postings" && (strings.Contains(cond, "'walrus'") || strings.Contains(cond, "'grey'")) {
			if rows, _ := n["Actual Rows"].(float64); rows*n["Actual Loops"].(float64) > 41 {
				scans = append(scans, fmt.Sprintf("%s %v: %v rows", n["Node Type"], n["Index Cond"], rows))
			}
		}
		children, _ := n["Plans"].([]any)
		for _, p := range children {
			walk(p.(map[string]any))
		}
	}
	for _, p := range plan {
		if n, ok := p["Plan"].(map[string]any); ok {
			walk(n)
		}
	}
	if len(scans) > 0 {
		t.Errorf("a pass capped at 40 read more postings of a term than the cap and one:\n%s", strings.Join(scans, "\n"))
	}
}

// TestPhraseRepeatedLexeme: a phrase that repeats a word reads that
// word's postings once and still needs it at each of its places.
func TestPhraseRepeatedLexeme(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_phrase_repeat")
	ctx := context.Background()
	s := openTest(t, b, "a")
	var docs []cairn.Document
	for i, text := range []string{"the the walrus sleeps", "the walrus sleeps", "the walrus the walrus", "walrus the the", "the the the walrus"} {
		docs = append(docs, testDoc(fmt.Sprintf("%d.md", i), text))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"the", "the", "walrus"}, []string{"0.md", "4.md"}},
		{[]string{"the", "walrus", "the"}, []string{"2.md"}},
		{[]string{"walrus", "the", "the"}, []string{"3.md"}},
		{[]string{"the", "the", "the"}, []string{"4.md"}},
	} {
		m := cairn.Match{Op: cairn.MatchPhrase, Words: c.words}
		res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: m, Limit: 10, MaxCandidates: 100})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cd := range res.Candidates {
			got = append(got, cd.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("phrase %q matched %q, want %q", c.words, got, c.want)
		}
		cm, err := s.compile(ctx, s.pool, m)
		if err != nil {
			t.Fatal(err)
		}
		distinct := map[string]bool{}
		for _, w := range c.words {
			distinct[w] = true
		}
		if n := strings.Count(cm.rel.sql, "FROM postings"); n != len(distinct) {
			t.Errorf("phrase %q reads postings %d times, want once a lexeme (%d)", c.words, n, len(distinct))
		}
	}
}
