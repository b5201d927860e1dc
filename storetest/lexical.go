package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// This file holds every lexical case and the only code that writes a
// query: match, term, phrase, anyOf, allOf, q and idf, over the
// backend-neutral cairn.Match that each backend compiles.

// match is one lexical match.
type match = cairn.Match

// term matches a word.
func term(w string) match { return cairn.Term(w) }

// phrase matches words in sequence.
func phrase(words ...string) match { return cairn.Phrase(words...) }

// anyOf matches chunks that match any of ms; allOf those that match all.
func anyOf(ms ...match) match { return cairn.AnyOf(ms...) }
func allOf(ms ...match) match { return cairn.AllOf(ms...) }

// q is a query for m over every corpus, limit 100, no cap, each leaf
// weighted as m says (1 when unweighted); opts change it.
func q(m match, opts ...func(*cairn.LexicalQuery)) cairn.LexicalQuery {
	lq := cairn.LexicalQuery{Match: m, Limit: 100}
	for _, o := range opts {
		o(&lq)
	}
	return lq
}

func corpora(cs ...string) func(*cairn.LexicalQuery) {
	return func(q *cairn.LexicalQuery) { q.Corpora = cs }
}
func limit(n int) func(*cairn.LexicalQuery) { return func(q *cairn.LexicalQuery) { q.Limit = n } }
func capAt(n int) func(*cairn.LexicalQuery) {
	return func(q *cairn.LexicalQuery) { q.MaxCandidates = n }
}

// idf weighs the leaves of the query's match in order (terms, phrases and
// prefixes as they appear in it); leaves past the last weight keep theirs.
func idf(w ...float64) func(*cairn.LexicalQuery) {
	return func(q *cairn.LexicalQuery) {
		i := 0
		q.Match = weigh(q.Match, w, &i)
	}
}

func weigh(m match, w []float64, i *int) match {
	if m.Leaf() {
		if *i < len(w) {
			m = m.Weighted(w[*i])
		}
		*i++
		return m
	}
	of := make([]match, len(m.Of))
	for k, c := range m.Of {
		of[k] = weigh(c, w, i)
	}
	m.Of = of
	return m
}
func onlyPaths(pathCorpora []string, ps ...string) func(*cairn.LexicalQuery) {
	return func(q *cairn.LexicalQuery) {
		q.Paths, q.PathCorpora = ps, pathCorpora
		if q.Paths == nil {
			q.Paths = []string{}
		}
	}
}

func lexical(t *testing.T, s cairn.Storage, lq cairn.LexicalQuery) *cairn.LexicalResult {
	t.Helper()
	res, err := s.Lexical(context.Background(), lq)
	if err != nil {
		t.Fatalf("lexical %s: %v", lq.Match, err)
	}
	for i, c := range res.Candidates {
		if c.Lane != cairn.LaneLexical || !(c.Score >= 0) {
			t.Errorf("lexical %s: candidate %d (%s) scored %g by lane %q, want a score of 0 or more by %q",
				lq.Match, i, c.Path, c.Score, c.Lane, cairn.LaneLexical)
		}
		if i == 0 {
			continue
		}
		if a := res.Candidates[i-1]; c.Score > a.Score {
			t.Errorf("lexical %s: candidate %d (%s, %g) scores better than %d (%s, %g): want best (highest) first",
				lq.Match, i, c.Path, c.Score, i-1, a.Path, a.Score)
		}
	}
	return res
}

// ranked lists a query's hits as corpus/path, best first.
func ranked(t *testing.T, s cairn.Storage, lq cairn.LexicalQuery) []string {
	t.Helper()
	var out []string
	for _, c := range lexical(t, s, lq).Candidates {
		out = append(out, c.Corpus+"/"+c.Path)
	}
	return out
}

// paths lists a query's hits as corpus/path, sorted.
func paths(t *testing.T, s cairn.Storage, lq cairn.LexicalQuery) []string {
	t.Helper()
	out := ranked(t, s, lq)
	slices.Sort(out)
	return out
}

func equal(got []string, want ...string) bool { return slices.Equal(got, want) }

func matchCount(t *testing.T, s cairn.Storage, m match, max int) cairn.MatchCount {
	t.Helper()
	n, err := s.MatchCount(context.Background(), m, max)
	if err != nil {
		t.Fatalf("match count %s: %v", m, err)
	}
	return n
}

// TestLexical checks Lexical, MatchCount and Span: hits with their exact
// text and lines, best first, IDF weights, corpus and path filters
// (PathCorpora), limits, the MaxCandidates cap, match counts and the
// index span.
func TestLexical(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"Hits", testLexicalHits},
		{"BestFirst", testLexicalOrder},
		{"IDFWeights", testLexicalIDF},
		{"AllAndAny", testLexicalAllAny},
		{"CorpusFilter", testLexicalCorpora},
		{"CorpusFilterBelowBetterHits", testLexicalCorpusFallback},
		{"PathFilter", testLexicalPaths},
		{"Limits", testLexicalLimits},
		{"MaxCandidates", testLexicalCap},
		{"MatchCount", testMatchCount},
		{"Span", testSpan},
		{"NoiseAndIdent", testNoiseAndIdent},
		{"SyntaxErrorIsInvalid", testLexicalSyntax},
	})
}

func testLexicalHits(t *testing.T, s cairn.Storage) {
	a := doc("notes", "dir/a.md", "alpha line\nthe walrus line\nomega\n")
	apply(t, s, "notes", []cairn.Document{a})
	res := lexical(t, s, q(term("walrus")))
	if len(res.Candidates) != 1 {
		t.Fatalf("walrus = %+v, want one hit", res.Candidates)
	}
	c := res.Candidates[0]
	if c.Corpus != "notes" || c.Path != "dir/a.md" || c.Title != "dir/a.md" || c.Seq != 1 || c.StartLine != 2 || c.EndLine != 2 ||
		c.Text != "the walrus line\n" || c.ChunkID == 0 || c.Capped {
		t.Errorf("hit = %+v, want notes/dir/a.md seq 1, line 2, its exact text", c)
	}
	if res.Scanned != 1 || res.Capped || res.Low != c.ChunkID {
		t.Errorf("scan = %d capped %v low %d; want 1, false, the hit's chunk id %d", res.Scanned, res.Capped, res.Low, c.ChunkID)
	}
	// Stemming is the backend's business; the exact word always matches,
	// in any case.
	if got := paths(t, s, q(term("WALRUS"))); !equal(got, "notes/dir/a.md") {
		t.Errorf("WALRUS = %v, want a case-insensitive match", got)
	}
	if res := lexical(t, s, q(term("absent"))); len(res.Candidates) != 0 || res.Scanned != 0 || res.Low != 0 {
		t.Errorf("a word in no chunk = %+v", res)
	}
}

func testLexicalOrder(t *testing.T, s cairn.Storage) {
	// Same length, more occurrences: better.
	apply(t, s, "notes", []cairn.Document{
		doc("notes", "one.md", "walrus pad pad pad\n"),
		doc("notes", "three.md", "walrus walrus walrus pad\n"),
		doc("notes", "two.md", "walrus walrus pad pad\n"),
	})
	if got := ranked(t, s, q(term("walrus"))); !equal(got, "notes/three.md", "notes/two.md", "notes/one.md") {
		t.Errorf("ranked = %v, want three, two, one occurrences", got)
	}
}

func testLexicalIDF(t *testing.T, s cairn.Storage) {
	apply(t, s, "notes", []cairn.Document{
		doc("notes", "rare.md", "zebra pad pad\n"),
		doc("notes", "common.md", "horse pad pad\n"),
	})
	m := anyOf(term("zebra"), term("horse"))
	if got := ranked(t, s, q(m, idf(5, 0.1))); !equal(got, "notes/rare.md", "notes/common.md") {
		t.Errorf("IDF 5, 0.1: %v, want the zebra chunk first", got)
	}
	if got := ranked(t, s, q(m, idf(0.1, 5))); !equal(got, "notes/common.md", "notes/rare.md") {
		t.Errorf("IDF 0.1, 5: %v, want the horse chunk first", got)
	}
	// Missing weights are 1.
	if got := ranked(t, s, q(m, idf(0.01))); !equal(got, "notes/common.md", "notes/rare.md") {
		t.Errorf("IDF 0.01 and a missing weight: %v, want the horse chunk (weight 1) first", got)
	}
}

func testLexicalAllAny(t *testing.T, s cairn.Storage) {
	apply(t, s, "notes", []cairn.Document{
		doc("notes", "both.md", "busy timeout here\n"),
		doc("notes", "busy.md", "busy only\n"),
		doc("notes", "timeout.md", "timeout only\n"),
		doc("notes", "apart.md", "timeout then busy\n"),
	})
	if got := paths(t, s, q(allOf(term("busy"), term("timeout")))); !equal(got, "notes/apart.md", "notes/both.md") {
		t.Errorf("busy AND timeout = %v", got)
	}
	if got := paths(t, s, q(anyOf(term("busy"), term("timeout")))); len(got) != 4 {
		t.Errorf("busy OR timeout = %v, want all four", got)
	}
	if got := paths(t, s, q(phrase("busy", "timeout"))); !equal(got, "notes/both.md") {
		t.Errorf("phrase busy timeout = %v, want both.md only (in sequence)", got)
	}
}

func testLexicalCorpora(t *testing.T, s cairn.Storage) {
	for _, c := range []string{"notes", "work", "sessions"} {
		apply(t, s, c, []cairn.Document{doc(c, "x.md", "walrus in "+c+"\n")})
	}
	if got := paths(t, s, q(term("walrus"))); len(got) != 3 {
		t.Errorf("every corpus = %v", got)
	}
	if got := paths(t, s, q(term("walrus"), corpora("work"))); !equal(got, "work/x.md") {
		t.Errorf("work = %v", got)
	}
	if got := paths(t, s, q(term("walrus"), corpora("notes", "sessions"))); !equal(got, "notes/x.md", "sessions/x.md") {
		t.Errorf("notes and sessions = %v", got)
	}
	if got := paths(t, s, q(term("walrus"), corpora("other"))); len(got) != 0 {
		t.Errorf("an unknown corpus = %v, want nothing", got)
	}
}

// testLexicalCorpusFallback: a corpus whose matches score below many of
// another corpus's still returns its hits up to the limit.
func testLexicalCorpusFallback(t *testing.T, s cairn.Storage) {
	apply(t, s, "small", []cairn.Document{doc("small", "s1.md", "walrus pad pad pad\n"), doc("small", "s2.md", "walrus pad pad pad\n")})
	var big []cairn.Document
	for i := range 40 {
		big = append(big, doc("big", fmt.Sprintf("b%02d.md", i), fmt.Sprintf("walrus walrus walrus %d\n", i)))
	}
	apply(t, s, "big", big)
	if got := paths(t, s, q(term("walrus"), corpora("small"), limit(2))); !equal(got, "small/s1.md", "small/s2.md") {
		t.Errorf("small, limit 2 = %v, want both of its documents", got)
	}
	if got := paths(t, s, q(term("walrus"), corpora("small"), limit(5))); !equal(got, "small/s1.md", "small/s2.md") {
		t.Errorf("small, limit 5 = %v", got)
	}
	if got := ranked(t, s, q(term("walrus"), limit(3))); len(got) != 3 || strings.HasPrefix(got[0], "small/") {
		t.Errorf("every corpus, limit 3 = %v, want three of big's", got)
	}
}

func testLexicalPaths(t *testing.T, s cairn.Storage) {
	apply(t, s, "notes", []cairn.Document{doc("notes", "n1.md", "walrus note\n"), doc("notes", "s1.md", "walrus note named like a session\n")})
	apply(t, s, "sessions", []cairn.Document{doc("sessions", "s1.md", "walrus one\n"), doc("sessions", "s2.md", "walrus two\n")})
	all := q(term("walrus"))
	if got := paths(t, s, q(term("walrus"), onlyPaths(nil, "s1.md"))); !equal(got, "notes/s1.md", "sessions/s1.md") {
		t.Errorf("Paths s1.md, PathCorpora nil = %v, want s1.md of every corpus", got)
	}
	if got := paths(t, s, q(term("walrus"), onlyPaths([]string{"sessions"}, "s1.md"))); !equal(got, "notes/n1.md", "notes/s1.md", "sessions/s1.md") {
		t.Errorf("Paths s1.md in sessions = %v, want notes untouched and sessions/s1.md", got)
	}
	if got := paths(t, s, q(term("walrus"), onlyPaths([]string{"sessions"}))); !equal(got, "notes/n1.md", "notes/s1.md") {
		t.Errorf("no paths in sessions = %v, want the notes only", got)
	}
	if got := paths(t, s, q(term("walrus"), onlyPaths(nil))); len(got) != 0 {
		t.Errorf("empty Paths, PathCorpora nil = %v, want nothing", got)
	}
	if got := paths(t, s, q(term("walrus"), corpora("sessions"), onlyPaths([]string{"sessions"}, "s2.md"))); !equal(got, "sessions/s2.md") {
		t.Errorf("sessions with Paths s2.md = %v", got)
	}
	if got := paths(t, s, all); len(got) != 4 {
		t.Errorf("nil Paths = %v, want all four", got)
	}
}

func testLexicalLimits(t *testing.T, s cairn.Storage) {
	var docs []cairn.Document
	for i := range 12 {
		docs = append(docs, doc("notes", fmt.Sprintf("%02d.md", i), strings.Repeat("walrus ", 1+i%4)+fmt.Sprintf("pad%d\n", i)))
	}
	apply(t, s, "notes", docs)
	full := ranked(t, s, q(term("walrus")))
	if len(full) != 12 {
		t.Fatalf("limit 100 = %d hits, want 12", len(full))
	}
	best := lexical(t, s, q(term("walrus"))).Candidates
	for _, n := range []int{1, 5, 12} {
		res := lexical(t, s, q(term("walrus"), limit(n)))
		if len(res.Candidates) != n {
			t.Errorf("limit %d = %d hits", n, len(res.Candidates))
		}
		// The best n, whatever ties do to their order.
		for _, c := range res.Candidates {
			if c.Score < best[n-1].Score {
				t.Errorf("limit %d returned %s, which is not among the best %d", n, c.Path, n)
			}
		}
		if res.Scanned != 12 {
			t.Errorf("limit %d scanned %d, want every match (12)", n, res.Scanned)
		}
	}
	if res := lexical(t, s, q(term("walrus"), limit(0))); len(res.Candidates) != 0 {
		t.Errorf("limit 0 = %d hits, want none", len(res.Candidates))
	}
}

// testLexicalCap: with MaxCandidates set, only the newest matches are
// scored (newest: the most recently written), even when older ones score
// better, and the result says it was capped.
func testLexicalCap(t *testing.T, s cairn.Storage) {
	for i := range 6 {
		// Older documents repeat the word more: uncapped they rank first.
		apply(t, s, "notes", []cairn.Document{doc("notes", fmt.Sprintf("%d.md", i), strings.Repeat("common ", 6-i)+fmt.Sprintf("doc%d\n", i))})
	}
	res := lexical(t, s, q(term("common")))
	if len(res.Candidates) != 6 || res.Candidates[0].Path != "0.md" || res.Capped || res.Scanned != 6 {
		t.Errorf("uncapped = %v scanned %d capped %v; want all six, 0.md first", pathList(res), res.Scanned, res.Capped)
	}
	res = lexical(t, s, q(term("common"), capAt(2)))
	if got := pathList(res); !equal(got, "4.md", "5.md") || !res.Capped || res.Scanned != 2 {
		t.Errorf("cap 2 = %v scanned %d capped %v; want the two newest, 4.md first, capped", got, res.Scanned, res.Capped)
	}
	for _, c := range res.Candidates {
		if !c.Capped {
			t.Errorf("candidate %s of a capped scan is not marked Capped", c.Path)
		}
	}
	if mc := matchCount(t, s, term("common"), 2); res.Low != mc.Low || res.Low == 0 {
		t.Errorf("capped scan's Low = %d, MatchCount's oldest of the newest 2 = %d; want the same chunk", res.Low, mc.Low)
	}
	res = lexical(t, s, q(term("common"), capAt(6)))
	if len(res.Candidates) != 6 || res.Capped || res.Scanned != 6 {
		t.Errorf("cap equal to the matches = %d hits scanned %d capped %v; want 6, 6, false", len(res.Candidates), res.Scanned, res.Capped)
	}
	res = lexical(t, s, q(term("common"), capAt(10)))
	if len(res.Candidates) != 6 || res.Capped {
		t.Errorf("cap above the matches = %d hits capped %v", len(res.Candidates), res.Capped)
	}
	if res := lexical(t, s, q(term("common"), capAt(2), corpora("other"))); len(res.Candidates) != 0 {
		t.Errorf("cap with a corpus that has nothing = %v", pathList(res))
	}
}

func pathList(res *cairn.LexicalResult) []string {
	var out []string
	for _, c := range res.Candidates {
		out = append(out, c.Path)
	}
	return out
}

func testMatchCount(t *testing.T, s cairn.Storage) {
	if mc := matchCount(t, s, term("walrus"), 10); mc != (cairn.MatchCount{}) {
		t.Errorf("empty store: %+v, want zero", mc)
	}
	for i := range 5 {
		apply(t, s, "notes", []cairn.Document{doc("notes", fmt.Sprintf("%d.md", i), fmt.Sprintf("walrus %d\nother %d\n", i, i))})
	}
	all := lexical(t, s, q(term("walrus")))
	var ids []int64
	for _, c := range all.Candidates {
		ids = append(ids, c.ChunkID)
	}
	slices.Sort(ids)
	if mc := matchCount(t, s, term("walrus"), 10); mc.N != 5 || mc.Low != ids[0] {
		t.Errorf("max 10 = %+v, want 5 matches, oldest %d", mc, ids[0])
	}
	if mc := matchCount(t, s, term("walrus"), 5); mc.N != 5 || mc.Low != ids[0] {
		t.Errorf("max 5 = %+v, want 5 matches, oldest %d", mc, ids[0])
	}
	// Capped: the newest 2, so the oldest counted is the second newest.
	newest := lexical(t, s, q(term("walrus"), capAt(2)))
	if mc := matchCount(t, s, term("walrus"), 2); mc.N != 2 || mc.Low != newest.Low || !slices.Contains(ids[3:], mc.Low) {
		t.Errorf("max 2 = %+v, want 2, oldest one of the newest two %v", mc, ids[3:])
	}
	if mc := matchCount(t, s, term("absent"), 10); mc != (cairn.MatchCount{}) {
		t.Errorf("no match: %+v", mc)
	}
	if mc := matchCount(t, s, anyOf(term("walrus"), term("other")), 100); mc.N != 10 {
		t.Errorf("walrus OR other = %+v, want 10 chunks", mc)
	}
}

func testSpan(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	sp, err := s.Span(ctx)
	if err != nil || sp.Rows != 0 {
		t.Errorf("empty store span = %+v, %v; want no rows", sp, err)
	}
	a := doc("notes", "a.md", "alpha\nbeta\ngamma\n")
	b := doc("notes", "b.md", "delta\n")
	apply(t, s, "notes", []cairn.Document{a, b})
	sp, err = s.Span(ctx)
	if err != nil || sp.Rows != 4 {
		t.Fatalf("span = %+v, %v; want 4 rows", sp, err)
	}
	for _, c := range lexical(t, s, q(anyOf(term("alpha"), term("beta"), term("gamma"), term("delta")))).Candidates {
		if c.ChunkID < sp.MinID || c.ChunkID > sp.MaxID {
			t.Errorf("chunk %d outside the span %d..%d", c.ChunkID, sp.MinID, sp.MaxID)
		}
	}
	apply(t, s, "notes", nil, "a.md")
	gc(t, s)
	if sp, err := s.Span(ctx); err != nil || sp.Rows != 1 {
		t.Errorf("span after collecting a.md = %+v, %v; want 1 row", sp, err)
	}
}

// testNoiseAndIdent: noise chunks are stored (DocumentText is whole) but
// never found; a chunk's Ident text is searchable.
func testNoiseAndIdent(t *testing.T, s cairn.Storage) {
	d := doc("notes", "a.md", "---- zebra ----\nreal walrus text\n")
	d.Chunks[0].Noise = true
	d.Chunks[1].Ident = "getWalrusCount get walrus count"
	apply(t, s, "notes", []cairn.Document{d})
	if got := paths(t, s, q(term("zebra"))); len(got) != 0 {
		t.Errorf("noise chunk found: %v", got)
	}
	if got := lexical(t, s, q(term("getwalruscount"))); len(got.Candidates) != 1 || got.Candidates[0].Text != "real walrus text\n" {
		t.Errorf("an identifier of the ident text = %+v, want the chunk it was given with", got.Candidates)
	}
	if txt, _ := text(t, s, "notes", "a.md"); txt != d.Text {
		t.Errorf("text with a noise chunk = %q", txt)
	}
	if sp, err := s.Span(context.Background()); err != nil || sp.Rows != 1 {
		t.Errorf("span = %+v, %v; want one indexed row (noise is not indexed)", sp, err)
	}
}

// testLexicalSyntax: a match no backend can run (a group without members,
// a leaf without words) is ErrInvalid, from Lexical and MatchCount alike;
// characters that are syntax in a backend's own query language (quotes,
// parentheses, an asterisk, operator words) are only text in a word.
func testLexicalSyntax(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "the walrus (seal) said \"star\" AND NOT\n")})
	for _, m := range []match{allOf(), anyOf(term("walrus"), allOf()), phrase(), {Op: cairn.MatchTerm}, term("")} {
		if _, err := s.Lexical(ctx, q(m, limit(1))); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("lexical %s: %v, want ErrInvalid", m, err)
		}
		if _, err := s.MatchCount(ctx, m, 1); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("match count %s: %v, want ErrInvalid", m, err)
		}
	}
	for _, m := range []match{term(`"walrus`), term(`walrus"`), term(`(seal`), term(`seal)`), term(`star*`), term(`"star"`),
		phrase(`"walrus`, `(seal)`), anyOf(term(`)`), term(`walrus`))} {
		if got := paths(t, s, q(m)); !equal(got, "notes/a.md") {
			t.Errorf("%s = %v, want notes/a.md (punctuation is not syntax)", m, got)
		}
	}
	for _, w := range []string{"AND", "OR", "NOT", "NEAR", "and", "*", `""`, "^walrus", "+walrus", ":", "-"} {
		if _, err := s.Lexical(ctx, q(term(w))); err != nil {
			t.Errorf("term %q: %v, want no error (a word is text)", w, err)
		}
	}
}
