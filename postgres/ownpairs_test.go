package postgres

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// loadAvg is the machine's 1-minute load average.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// ownCounts is the agent's pair postings, all and those of no common
// lexeme (own pairs alone).
func ownCounts(t *testing.T, s *Store) (pairs, own int64) {
	t.Helper()
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*),
		count(*) FILTER (WHERE NOT (split_part(lexeme, chr(31), 2) = ANY(`+commonLexemesSQL+`) OR split_part(lexeme, chr(31), 3) = ANY(`+commonLexemesSQL+`)))
		FROM postings WHERE agent = $1 AND lexeme >= chr(31) AND lexeme < chr(32)`, s.agent).Scan(&pairs, &own); err != nil {
		t.Fatal(err)
	}
	return pairs, own
}

// TestOwnPairPhrases: an agent past pairMinChunks gets its own pair words
// from Optimize (its frequent words, not cairn.GramWords's), with the
// pairs of every stored chunk; phrases then find the same chunks with the
// same scores, pass sizes and lowest ids as with GramWords's pairs alone
// (readOwnPairs off) and as before the list, and a phrase of two such
// words reads under half the postings (PostgreSQL, where EXPLAIN shows
// the scans). Later writes and deletes keep the pairs exact (CheckFTS
// counts them; deleting everything leaves no posting); RebuildFTS keeps
// every listed word; a store opened before the list was chosen finds the
// same with its older, empty list, and after its own Optimize reads the
// list; another agent's postings and list are untouched. On PostgreSQL
// and Citus.
func TestOwnPairPhrases(t *testing.T) {
	defer func(n int64) { pairMinChunks = n }(pairMinChunks)
	pairMinChunks = 100
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		t.Run(srv.name, func(t *testing.T) {
			b := testBackend(t, srv.env, "cairn_ownpairs")
			ctx := context.Background()
			s, other := openTest(t, b, "own"), openTest(t, b, "other")
			docs := pairDocs(300)
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
				t.Fatal(err)
			}
			if err := other.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: pairDocs(60)}); err != nil {
				t.Fatal(err)
			}
			count := func(agent string) (n int64) {
				if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM postings WHERE agent = $1`, agent).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			if _, own := ownCounts(t, s); own != 0 {
				t.Fatalf("%d own pair postings before any list", own)
			}
			want := lexicalLines(t, s, pairQueries())
			m := cairn.Match{Op: cairn.MatchPhrase, Words: []string{"walrus", "seal"}}
			before, others := postingsRead(t, s, m), count("other")
			// A second handle, open before the list: it reads without it
			// until it optimizes (or opens again).
			late := openTest(t, b, "own")
			if w, err := late.ownWords(ctx, late.pool); err != nil || len(w) != 0 {
				t.Fatalf("pair words before Optimize: %q, %v", w, err)
			}
			if err := s.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			words, err := s.PairWords(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(words, "walrus") || !slices.Contains(words, "seal") || slices.Contains(words, "the") {
				t.Fatalf("own pair words %q: want walrus and seal (in most notes), not the (a GramWord)", words)
			}
			if _, own := ownCounts(t, s); own == 0 {
				t.Fatal("no own pair postings after Optimize")
			}
			if w, err := other.PairWords(ctx); err != nil || len(w) != 0 {
				t.Errorf("another agent's pair words: %q, %v; want none (it has 60 chunks)", w, err)
			}
			if n := count("other"); n != others {
				t.Errorf("another agent's postings: %d, were %d", n, others)
			}
			if err := s.CheckFTS(ctx); err != nil {
				t.Errorf("check with own pairs: %v", err)
			}
			if d := cmp.Diff(want, lexicalLines(t, s, pairQueries())); d != "" {
				t.Errorf("phrases over own pairs (-before the list +after):\n%s", d)
			}
			if srv.name == "postgres" {
				if after := postingsRead(t, s, m); after*2 > before {
					t.Errorf("phrase %s read %.0f postings over own pairs, %.0f without; want under half", m, after, before)
				}
			}
			// The late handle, with its older list, finds the same; after
			// its own Optimize it reads the list, and finds the same.
			if w, _ := late.ownWords(ctx, late.pool); len(w) != 0 {
				t.Errorf("second handle's pair words before its Optimize %q, want its empty copy", w)
			}
			if d := cmp.Diff(want, lexicalLines(t, late, pairQueries())); d != "" {
				t.Errorf("a second handle with the older list (-before +after):\n%s", d)
			}
			if err := late.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			if w, _ := late.ownWords(ctx, late.pool); !slices.Equal(w, words) {
				t.Errorf("second handle's pair words after its Optimize %q, want %q", w, words)
			}
			if d := cmp.Diff(want, lexicalLines(t, late, pairQueries())); d != "" {
				t.Errorf("a second handle over own pairs (-before +after):\n%s", d)
			}
			// A second Optimize adds nothing (the list is chosen once).
			pairs, _ := ownCounts(t, s)
			if err := s.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			if again, _ := s.PairWords(ctx); !slices.Equal(again, words) {
				t.Errorf("a second Optimize changed the list to %q from %q", again, words)
			}
			if n, _ := ownCounts(t, s); n != pairs {
				t.Errorf("a second Optimize: %d pair postings, were %d", n, pairs)
			}
			// Writes after the list: new notes, some replaced, some removed.
			more := pairDocs(340)[300:]
			for i := range more {
				more[i].Path = fmt.Sprintf("more-%s", more[i].Path)
			}
			changed := slices.Clone(docs[:20])
			for i := range changed {
				changed[i].Text = "walrus seal walrus of the seal grey ice " + changed[i].Text
				changed[i].Hash += "-changed"
				changed[i].Size, changed[i].Chunks[0].Len = int64(len(changed[i].Text)), len(changed[i].Text)
			}
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: append(more, changed...), Remove: []string{docs[20].Path, docs[21].Path}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.GC(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.CheckFTS(ctx); err != nil {
				t.Errorf("check after writes and deletes with own pairs: %v", err)
			}
			got := lexicalLines(t, s, pairQueries())
			readOwnPairs = false
			plain := lexicalLines(t, s, pairQueries())
			readOwnPairs = true
			if d := cmp.Diff(plain, got); d != "" {
				t.Errorf("after writes, phrases (-GramWords pairs alone +own pairs too):\n%s", d)
			}
			// A rebuild keeps every listed word and the pairs exact.
			if err := s.RebuildFTS(ctx); err != nil {
				t.Fatal(err)
			}
			if w, _ := s.PairWords(ctx); len(w) < len(words) || !slices.Equal(w[:len(words)], words) {
				t.Errorf("pair words after RebuildFTS %q: want %q first", w, words)
			}
			if err := s.CheckFTS(ctx); err != nil {
				t.Errorf("check after RebuildFTS: %v", err)
			}
			if d := cmp.Diff(got, lexicalLines(t, s, pairQueries())); d != "" {
				t.Errorf("phrases after RebuildFTS (-before +after):\n%s", d)
			}
			// A damaged index: an own pair posting gone is found.
			if _, err := s.pool.Exec(ctx, `DELETE FROM postings WHERE agent = 'own' AND lexeme = chr(31) || 'walrus' || chr(31) || 'seal'`); err != nil {
				t.Fatal(err)
			}
			if err := s.CheckFTS(ctx); err == nil || !strings.Contains(err.Error(), "pairs") {
				t.Errorf("check with own pair postings deleted = %v; want a count mismatch", err)
			}
			if err := s.RebuildFTS(ctx); err != nil {
				t.Fatal(err)
			}
			// Deleting everything leaves no posting; the list stays.
			var del []string
			for _, d := range append(docs, more...) {
				del = append(del, d.Path)
			}
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Remove: del}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.GC(ctx); err != nil {
				t.Fatal(err)
			}
			if n := count("own"); n != 0 {
				t.Errorf("%d postings left after every document went", n)
			}
			if w, _ := s.PairWords(ctx); len(w) < len(words) {
				t.Errorf("pair words after every document went: %q; the list only grows", w)
			}
		})
	}
}

// TestOwnPairsImport: an import of an agent past pairMinChunks chooses its
// pair words and writes their pairs in its one postings statement: the
// imported agent holds exactly the pairs (CheckFTS) and answers phrases
// as with GramWords's pairs alone, and as the exported agent (no list: it
// was never optimized) does, but for chunk ids.
func TestOwnPairsImport(t *testing.T) {
	defer func(n int64) { pairMinChunks = n }(pairMinChunks)
	pairMinChunks = 100
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			b := testBackend(t, env, "cairn_ownpairs_import")
			ctx := context.Background()
			src := openTest(t, b, "src")
			if err := src.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: pairDocs(200)}); err != nil {
				t.Fatal(err)
			}
			dst := openTest(t, b, "dst")
			if err := dst.Import(ctx, false, &testSource{rows: exportRows(t, src)}); err != nil {
				t.Fatal(err)
			}
			words, err := dst.PairWords(ctx)
			if err != nil || !slices.Contains(words, "walrus") {
				t.Fatalf("imported agent's pair words %q, %v: want walrus among them", words, err)
			}
			if _, own := ownCounts(t, dst); own == 0 {
				t.Error("no own pair postings after the import")
			}
			if err := dst.CheckFTS(ctx); err != nil {
				t.Errorf("check after the import: %v", err)
			}
			// Chunk ids are the importing store's, so the lowest ids of a
			// pass are compared on the imported agent itself.
			got := lexicalLines(t, dst, pairQueries())
			readOwnPairs = false
			plain := lexicalLines(t, dst, pairQueries())
			readOwnPairs = true
			if d := cmp.Diff(plain, got); d != "" {
				t.Errorf("phrases after the import (-GramWords pairs alone +own pairs too):\n%s", d)
			}
			if d := cmp.Diff(stripLow(lexicalLines(t, src, pairQueries())), stripLow(got)); d != "" {
				t.Errorf("phrases after the import, lowest ids left out (-exported +imported):\n%s", d)
			}
		})
	}
}

// stripLow drops the lowest chunk id from lexicalLines's lines.
func stripLow(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = lowRE.ReplaceAllString(l, "low ?")
	}
	return out
}

var lowRE = regexp.MustCompile(`low \d+`)
