package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// pairDocs are notes of common and rarer words in random order, so
// phrases of every mix occur (and repeat, and cross the title into the
// body).
func pairDocs(n int) []cairn.Document {
	common := []string{"the", "of", "and", "to", "a", "in", "is", "it", "that", "was", "from", "The", "OF"}
	rare := []string{"walrus", "seal", "harbour", "herd", "swims", "north", "grey", "ice", "colony", "pups", "sighted", "walls"}
	r := rand.New(rand.NewPCG(7, 11))
	pick := func() string {
		if r.IntN(2) == 0 {
			return common[r.IntN(len(common))]
		}
		return rare[r.IntN(len(rare))]
	}
	var docs []cairn.Document
	for i := range n {
		var w []string
		for range 10 + r.IntN(40) {
			w = append(w, pick())
		}
		title := pick() + " " + pick()
		text := strings.Join(w, " ") + "\n"
		d := testDoc(fmt.Sprintf("%03d.md", i), text)
		d.Title = title
		docs = append(docs, d)
	}
	return docs
}

// pairQueries are phrases of common words, of common and rare words, of
// rare words alone, repeated words, word orders no note holds, and
// phrases inside all- and any-groups.
func pairQueries() []cairn.Match {
	ph := func(s string) cairn.Match { return cairn.Match{Op: cairn.MatchPhrase, Words: strings.Fields(s)} }
	out := []cairn.Match{}
	for _, s := range []string{"of the", "the of", "the the", "a in", "in a the", "the walrus", "walrus the", "the walrus of",
		"seal of the harbour", "of the the", "the the the", "walrus seal", "grey ice", "it is", "was from a",
		"and to a in is", "walrus of walrus", "the walrus the walrus", "colony the pups", "north was the ice", "harbour walls",
		"The OF", "of grey herd the"} {
		out = append(out, ph(s))
	}
	out = append(out,
		cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{ph("of the"), cairn.Term("walrus").Weighted(2)}},
		cairn.Match{Op: cairn.MatchAny, Of: []cairn.Match{ph("in the"), ph("the seal").Weighted(3), cairn.Term("pups")}},
		cairn.Match{Op: cairn.MatchAny, Of: []cairn.Match{ph("a walrus"), ph("a seal")}},
	)
	return out
}

// lexicalLines runs ms with a small cap and a larger one and returns what
// each found: ids, scores, the pass's size, lowest id and whether it was
// capped.
func lexicalLines(t *testing.T, s *Store, ms []cairn.Match) []string {
	t.Helper()
	var out []string
	for _, m := range ms {
		for _, max := range []int{25, 0} {
			res, err := s.Lexical(context.Background(), cairn.LexicalQuery{Match: m, Limit: 8, MaxCandidates: max})
			if err != nil {
				t.Fatalf("search %s: %v", m, err)
			}
			line := fmt.Sprintf("%s cap %d: scanned %d low %d capped %v:", m, max, res.Scanned, res.Low, res.Capped)
			for _, c := range res.Candidates {
				line += fmt.Sprintf(" %s %.9f", c.Path, c.Score)
			}
			out = append(out, line)
		}
	}
	return out
}

// withoutPairs runs f with phrases read from their lexemes' postings.
func withoutPairs(f func()) {
	pairPhrases = false
	defer func() { pairPhrases = true }()
	f()
}

// postingsRead sums the rows the postings scans of a pass over m read,
// its phrases read as joins (mergePhrases off: EXPLAIN does not show the
// scans inside cairn_phrase_v1, phrasefn.go).
func postingsRead(t *testing.T, s *Store, m cairn.Match) float64 {
	t.Helper()
	ctx := context.Background()
	mergePhrases = false
	defer func() { mergePhrases = true }()
	c, err := s.compile(ctx, s.pool, m)
	if err != nil {
		t.Fatal(err)
	}
	query, args := scanQuery(cairn.LexicalQuery{Match: m, Limit: 8, MaxCandidates: 2000}, c, false)
	var plan []map[string]any
	if err := s.pool.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+query, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var sum float64
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["Relation Name"] == "postings" {
			rows, _ := n["Actual Rows"].(float64)
			loops, _ := n["Actual Loops"].(float64)
			sum += rows * loops
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
	return sum
}

// TestPairPhrases: phrases read over pair postings find the same chunks
// with the same scores, pass sizes and lowest ids as read over their
// lexemes' postings alone, on PostgreSQL and Citus; a phrase of common
// words reads its pairs' short lists, not its words' long ones; and
// deleting a document takes its pairs with it.
func TestPairPhrases(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			ctx := context.Background()
			b := testBackend(t, env, "cairn_pair_phrases")
			s, other := openTest(t, b, "a"), openTest(t, b, "b")
			docs := pairDocs(300)
			for _, st := range []*Store{s, other} {
				if err := st.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
					t.Fatal(err)
				}
			}
			var pairs int
			if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM postings WHERE agent = 'a' AND lexeme >= chr(31) AND lexeme < chr(32)`).Scan(&pairs); err != nil {
				t.Fatal(err)
			}
			if pairs == 0 {
				t.Fatal("no pair postings written")
			}
			got := lexicalLines(t, s, pairQueries())
			var want []string
			withoutPairs(func() { want = lexicalLines(t, s, pairQueries()) })
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("phrases over pairs (-lexemes alone +pairs):\n%s", d)
			}
			found := 0
			for _, l := range got {
				if !strings.Contains(l, "scanned 0 ") {
					found++
				}
			}
			if found < len(got)/2 {
				t.Errorf("only %d of %d searches found anything: the comparison says little", found, len(got))
			}
			if err := s.CheckFTS(ctx); err != nil {
				t.Errorf("check of a sound index with pairs: %v", err)
			}
			if env == "CAIRN_TEST_POSTGRES_URL" {
				m := cairn.Match{Op: cairn.MatchPhrase, Words: []string{"of", "the"}}
				var before float64
				withoutPairs(func() { before = postingsRead(t, s, m) })
				if after := postingsRead(t, s, m); after*2 > before {
					t.Errorf("phrase %s read %.0f postings over pairs, %.0f over its words; want under half", m, after, before)
				}
			}
			// Deleting every document deletes every posting, pairs too.
			var del []string
			for _, d := range docs {
				del = append(del, d.Path)
			}
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Remove: del}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.GC(ctx); err != nil {
				t.Fatal(err)
			}
			var left int
			if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM postings WHERE agent = 'a'`).Scan(&left); err != nil {
				t.Fatal(err)
			}
			if left != 0 {
				t.Errorf("%d postings left after every document went", left)
			}
		})
	}
}

// TestPairMigration: a database of schema 4 (postings without pairs)
// opened by this version gets the pairs of every stored chunk of every
// agent, in batches, saying when it starts and when it has committed, and
// searches find what they found at schema 5; an open interrupted during
// the migration changes nothing (schema 4, no pairs), and the next open
// finishes it; on both servers.
func TestPairMigration(t *testing.T) {
	defer func(n int64) { pairBatch = n }(pairBatch)
	pairBatch = 7 // several statements for each agent
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			ctx := context.Background()
			b := testBackend(t, env, "cairn_pair_migrate")
			s, other := openTest(t, b, "a"), openTest(t, b, "b")
			for _, st := range []*Store{s, other} {
				if err := st.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: pairDocs(60)}); err != nil {
					t.Fatal(err)
				}
			}
			want := lexicalLines(t, s, pairQueries())
			count := func() (pairs int, version string) {
				t.Helper()
				if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM postings WHERE lexeme >= chr(31) AND lexeme < chr(32)),
					(SELECT value FROM cairn_meta WHERE key = 'schema_version')`).Scan(&pairs, &version); err != nil {
					t.Fatal(err)
				}
				return pairs, version
			}
			pairs, _ := count()
			// Back to schema 4, as a database made before the pairs was.
			for _, q := range []string{`DELETE FROM postings WHERE lexeme >= chr(31) AND lexeme < chr(32)`,
				`UPDATE cairn_meta SET value = '4' WHERE key = 'schema_version'`} {
				if _, err := s.pool.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			other.Close()
			// Interrupted at its start line (as Ctrl-C would).
			cctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			var lines []string
			b.Agent = "a"
			_, err := b.Open(cctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: "test-1", Logf: func(f string, a ...any) {
				lines = append(lines, fmt.Sprintf(f, a...))
				if strings.Contains(lines[len(lines)-1], "writing the phrase pair postings") {
					cancel(errors.New("interrupt signal received"))
				}
			}})
			if !errors.Is(err, context.Canceled) || !strings.Contains(fmt.Sprint(err), "nothing was changed") {
				t.Fatalf("open interrupted during the migration = %v; want context.Canceled saying nothing was changed (lines %q)", err, lines)
			}
			if n, v := count(); n != 0 || v != "4" {
				t.Fatalf("after the interrupted migration: %d pairs, schema %s; want 0 and 4", n, v)
			}
			// Opened again: the migration runs whole.
			lines = nil
			st, err := b.Open(ctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: "test-1", Logf: func(f string, a ...any) {
				lines = append(lines, fmt.Sprintf(f, a...))
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if n, v := count(); n != pairs || v != strconv.Itoa(SchemaVersion) {
				t.Errorf("after the migration: %d pairs, schema %s; want %d (as written at schema 5) and %d", n, v, pairs, SchemaVersion)
			}
			text := strings.Join(lines, "\n")
			if !strings.Contains(text, "writing the phrase pair postings of 120 chunks") || !strings.Contains(text, "upgraded to version 5") {
				t.Errorf("migration lines:\n%s\nwant a start line naming 120 chunks and a done line", text)
			}
			if d := cmp.Diff(want, lexicalLines(t, st.(*Store), pairQueries())); d != "" {
				t.Errorf("searches after the migration (-before +after):\n%s", d)
			}
			if err := st.(*Store).CheckFTS(ctx); err != nil {
				t.Errorf("check after the migration: %v", err)
			}
		})
	}
}
