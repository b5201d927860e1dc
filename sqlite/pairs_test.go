package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// pairVocab: a few pseudo-words far more frequent than the rest (as
// cairnbench's corpus has them: no GramWords pair them), some English
// common words, and rarer words.
var pairVocab = struct{ hot, mid, cold []string }{
	hot:  strings.Fields(`thoupleand pleagaind recrai dripon`),
	mid:  strings.Fields(`the of and walrus kelp seal`),
	cold: strings.Fields(`zibex drour gabruto zachavais brugais chon tupea leax moun vitreast`),
}

func pairLine(r *rand.Rand, n int) string {
	words := make([]string, n)
	for i := range words {
		switch k := r.IntN(10); {
		case k < 4:
			words[i] = pairVocab.hot[r.IntN(len(pairVocab.hot))]
		case k < 7:
			words[i] = pairVocab.mid[r.IntN(len(pairVocab.mid))]
		default:
			words[i] = pairVocab.cold[r.IntN(len(pairVocab.cold))]
		}
	}
	return strings.Join(words, " ")
}

// pairDocs returns n documents of three lines (chunks) each.
func pairDocs(r *rand.Rand, prefix string, n int) []cairn.Document {
	docs := make([]cairn.Document, n)
	for i := range docs {
		var b strings.Builder
		fmt.Fprintf(&b, "%s%03d ", prefix, i) // doc hashes its first bytes: keep the documents apart
		for range 3 {
			b.WriteString(pairLine(r, 4+r.IntN(8)) + "\n")
		}
		docs[i] = doc("n", fmt.Sprintf("%s%03d.md", prefix, i), b.String())
	}
	return docs
}

// pairQueries: phrases of hot words (the ones pairs serve), phrases that
// mix them with others, terms, and groups.
func pairQueries(r *rand.Rand) []cairn.Match {
	var qs []cairn.Match
	for range 40 {
		line := strings.Fields(pairLine(r, 4))
		qs = append(qs, cairn.Phrase(line[:2+r.IntN(3)]...))
	}
	for _, w := range append(slices.Clone(pairVocab.hot), pairVocab.cold...) {
		qs = append(qs, cairn.Term(w))
	}
	qs = append(qs,
		cairn.Phrase("thoupleand", "pleagaind"), cairn.Phrase("of", "the", "recrai"), cairn.Phrase("walrus", "dripon", "kelp"),
		cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{cairn.Phrase("recrai", "dripon"), cairn.Term("zibex")}},
		cairn.Match{Op: cairn.MatchAny, Of: []cairn.Match{cairn.Phrase("dripon", "thoupleand"), cairn.Prefix("zach")}},
	)
	return qs
}

// answers runs every query and renders its hits with ids and exact scores.
func answers(t *testing.T, s *Store, qs []cairn.Match) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, m := range qs {
		res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: m, Limit: 1000})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s:", m)
		for _, c := range res.Candidates {
			fmt.Fprintf(&b, " %s:%d=%v", c.Path, c.StartLine, c.Score)
		}
		out = append(out, b.String())
	}
	return out
}

func diffAnswers(t *testing.T, what string, got, want []string) {
	t.Helper()
	n := 0
	for i := range want {
		if got[i] != want[i] {
			if n++; n <= 3 {
				t.Errorf("%s:\n got %s\nwant %s", what, got[i], want[i])
			}
		}
	}
	if n > 0 {
		t.Errorf("%s: %d of %d queries answered differently", what, n, len(want))
	}
}

// ddl is the CREATE statement of the full-text table.
func ddl(t *testing.T, s *Store) string {
	t.Helper()
	var q string
	if err := s.r.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'`).Scan(&q); err != nil {
		t.Fatal(err)
	}
	return q
}

// pairTokens counts the index's pair tokens that hold word.
func pairTokens(t *testing.T, s *Store, word string) int {
	t.Helper()
	conn, err := s.r.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `CREATE VIRTUAL TABLE IF NOT EXISTS temp.tv USING fts5vocab(main, chunks_fts, row)`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(context.Background(), `SELECT count(*) FROM temp.tv WHERE term LIKE ?`, gramMarker+"%"+word+"%").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPairRebuildSameAnswers: the hot words are the index's most frequent
// terms; a table rebuilt with them paired (in small steps) holds their pair
// tokens and answers every query (phrases of them, mixed, terms, groups)
// with the same hits and the same scores, bit for bit, as the table of
// GramWords alone.
func TestPairRebuildSameAnswers(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(7, 1))
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "a", 150)}); err != nil {
		t.Fatal(err)
	}
	qs := pairQueries(r)
	want := answers(t, s, qs)
	top, err := s.FrequentTerms(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, td := range top {
		words = append(words, td.Term)
	}
	hot := slices.Clone(pairVocab.hot)
	slices.Sort(hot)
	if got := slices.Sorted(slices.Values(words)); !slices.Equal(got, hot) {
		t.Fatalf("FrequentTerms(4) = %v, want the hot words %v", top, hot)
	}
	before := pairTokens(t, s, "pleagaind")
	rb, err := s.RebuildPairs(ctx, words, 37)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Steps < 10 {
		t.Errorf("rebuild in %d steps of 37 chunks, want at least 10 for 450 chunks", rb.Steps)
	}
	if q := ddl(t, s); !strings.Contains(q, "cairn words ''"+strings.Join(words, " ")+"''") {
		t.Errorf("table after the rebuild: %s", q)
	}
	if after := pairTokens(t, s, "pleagaind"); after <= before {
		t.Errorf("pair tokens holding pleagaind: %d after the rebuild, %d before; want more", after, before)
	}
	if got, err := s.PairWords(ctx); err != nil || !slices.Equal(got, words) {
		t.Errorf("PairWords = %v, %v; want %v", got, err, words)
	}
	diffAnswers(t, "after the rebuild with pairs", answers(t, s, qs), want)
	// Reopened: the tokenizer reads its list from the table's schema.
	s.Close()
	re := openStore(t, s.Path, "f1")
	diffAnswers(t, "reopened", answers(t, re, qs), want)
	if _, err := re.RebuildPairs(ctx, nil, 1<<20); err != nil {
		t.Fatal(err)
	}
	if q := ddl(t, re); strings.Contains(q, "words") {
		t.Errorf("table rebuilt without pair words: %s", q)
	}
	diffAnswers(t, "rebuilt back without pairs", answers(t, re, qs), want)
}

// TestPairRebuildWithWrites: syncs write between the steps of a rebuild
// (new documents, removed ones with their chunks collected, a chunk id
// reused at the cursor); the swapped-in table ends with the answers of a
// table built from scratch over the same chunks, and holds exactly the
// stored chunks.
func TestPairRebuildWithWrites(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(8, 2))
	first := pairDocs(r, "a", 60)
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: first}); err != nil {
		t.Fatal(err)
	}
	qs := pairQueries(r)
	if err := s.StartPairs(ctx, pairVocab.hot); err != nil {
		t.Fatal(err)
	}
	step := func(n int) bool {
		t.Helper()
		done, err := s.PairStep(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	remove := func(paths ...string) {
		t.Helper()
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Remove: paths}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GC(ctx); err != nil {
			t.Fatal(err)
		}
	}
	step(50)
	step(50)
	// Below the cursor: removed; above it: removed before it is reached.
	remove("a001.md", "a002.md", "a050.md")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "b", 10)}); err != nil {
		t.Fatal(err)
	}
	if step(40) {
		t.Fatal("the rebuild finished with chunks left")
	}
	for !cursorAtEnd(t, s) {
		if step(40) {
			t.Fatal("the rebuild finished before its cursor reached the last chunk")
		}
	}
	// The newest document goes and a new one takes its chunk ids, at or
	// below the cursor now.
	var maxBefore int64
	s.r.QueryRow(`SELECT max(id) FROM chunks`).Scan(&maxBefore)
	remove("b009.md")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "c", 1)}); err != nil {
		t.Fatal(err)
	}
	var maxAfter int64
	s.r.QueryRow(`SELECT max(id) FROM chunks`).Scan(&maxAfter)
	if maxAfter != maxBefore {
		t.Logf("chunk ids not reused (max %d before, %d after)", maxBefore, maxAfter)
	}
	if searchedOld := ddl(t, s); strings.Contains(searchedOld, "words") {
		t.Fatalf("readers see the new table before the swap: %s", searchedOld)
	}
	for !step(40) {
	}
	if q := ddl(t, s); !strings.Contains(q, "words") {
		t.Fatalf("table after the rebuild: %s", q)
	}
	assertIndexed(t, s)
	got := answers(t, s, qs)
	// The same chunks indexed from scratch, without pairs.
	if _, err := s.RebuildPairs(ctx, nil, 1<<20); err != nil {
		t.Fatal(err)
	}
	diffAnswers(t, "rebuilt beside writes, against a fresh table", got, answers(t, s, qs))
}

// cursorAtEnd reports whether the build's cursor reached the last chunk.
func cursorAtEnd(t *testing.T, s *Store) bool {
	t.Helper()
	var cur, last int64
	if err := s.r.QueryRow(`SELECT CAST(value AS INTEGER), (SELECT max(id) FROM chunks) FROM meta WHERE key = 'pair_cursor'`).Scan(&cur, &last); err != nil {
		t.Fatal(err)
	}
	return cur >= last
}

// assertIndexed: the full-text table holds exactly the stored chunks that
// are not noise, and its row total agrees.
func assertIndexed(t *testing.T, s *Store) {
	t.Helper()
	var stray, missing, chunks int
	if err := s.r.QueryRow(`SELECT
		(SELECT count(*) FROM chunks_fts_docsize f WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = f.id)),
		(SELECT count(*) FROM chunks c WHERE c.noise = 0 AND NOT EXISTS (SELECT 1 FROM chunks_fts_docsize f WHERE f.id = c.id)),
		(SELECT count(*) FROM chunks WHERE noise = 0)`).Scan(&stray, &missing, &chunks); err != nil {
		t.Fatal(err)
	}
	sp, err := s.Span(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stray != 0 || missing != 0 || int(sp.Rows) != chunks {
		t.Errorf("full-text rows: %d stray, %d missing, total %d; want 0, 0, %d", stray, missing, sp.Rows, chunks)
	}
}

// TestPairStepInterrupted: a step cancelled halfway rolls back whole (the
// cursor and the old table as they were); the rebuild then goes on and
// ends with the same answers.
func TestPairStepInterrupted(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(9, 3))
	if err := s.Apply(context.Background(), &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "a", 40)}); err != nil {
		t.Fatal(err)
	}
	qs := pairQueries(r)
	want := answers(t, s, qs)
	if err := s.StartPairs(context.Background(), pairVocab.hot); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PairStep(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	cursor := func() string {
		v, err := s.readMeta(context.Background(), s.r, pairCursorKey)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	at := cursor()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	s.Ident = func(body string) string {
		if calls++; calls == 10 {
			cancel()
		}
		return ""
	}
	if _, err := s.PairStep(ctx, 60); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled step: %v, want context.Canceled", err)
	}
	s.Ident = nil
	if got := cursor(); got != at {
		t.Fatalf("cursor after the cancelled step %s, before %s", got, at)
	}
	diffAnswers(t, "after a cancelled step", answers(t, s, qs), want)
	for done := false; !done; {
		var err error
		if done, err = s.PairStep(context.Background(), 30); err != nil {
			t.Fatal(err)
		}
	}
	assertIndexed(t, s)
	diffAnswers(t, "rebuilt after the interruption", answers(t, s, qs), want)
}

// TestPairsDrift: idle maintenance (IdleMergeDue, MergeStep) finds that
// the index's frequent terms are not its pair list, rebuilds the table
// with them in steps, and ends with the same answers and nothing due; a
// check with few changed rows since does not read the terms again, and a
// list whose words fell out of use is rebuilt.
func TestPairsDrift(t *testing.T) {
	defer setPairPolicy(50, 0.3)()
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(10, 4))
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "a", 30)}); err != nil {
		t.Fatal(err)
	}
	qs := pairQueries(r)
	want := answers(t, s, qs)
	idle := func() int {
		t.Helper()
		due, err := s.IdleMergeDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		steps := 0
		for more := due; more; steps++ {
			if more, err = s.MergeStep(ctx, 256); err != nil {
				t.Fatal(err)
			}
		}
		return steps
	}
	if steps := idle(); steps < 2 {
		t.Fatalf("idle maintenance with a drifted list took %d steps, want a rebuild", steps)
	}
	words, err := s.PairWords(ctx)
	if err != nil || len(words) == 0 {
		t.Fatalf("pair words after idle maintenance: %v, %v", words, err)
	}
	for _, w := range words {
		if !slices.Contains(pairVocab.hot, w) && !slices.Contains(pairVocab.mid, w) {
			t.Errorf("pair word %q is not one of the frequent words", w)
		}
	}
	diffAnswers(t, "after the idle rebuild", answers(t, s, qs), want)
	if due, err := s.IdleMergeDue(ctx); err != nil || due {
		t.Fatalf("due again right after the rebuild: %v, %v", due, err)
	}
	// The hot words go out of use: documents of cold words alone replace
	// them, and the next check (the rows moved) rebuilds without them.
	var paths []string
	for i := range 30 {
		paths = append(paths, fmt.Sprintf("a%03d.md", i))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Remove: paths}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(ctx); err != nil {
		t.Fatal(err)
	}
	var cold []cairn.Document
	for i := range 60 {
		cold = append(cold, doc("n", fmt.Sprintf("c%03d.md", i), fmt.Sprintf("c%03d %s %s walrus\n", i, pairVocab.cold[i%len(pairVocab.cold)], pairVocab.cold[(i+3)%len(pairVocab.cold)])))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: cold}); err != nil {
		t.Fatal(err)
	}
	if idle() < 2 {
		t.Fatal("no rebuild after the pair words fell out of use")
	}
	words, err = s.PairWords(ctx)
	if err != nil || slices.ContainsFunc(words, func(w string) bool { return slices.Contains(pairVocab.hot, w) }) || !slices.Contains(words, "walru") {
		t.Fatalf("pair words after the drift: %v, %v; want walru (Porter's stem of walrus) and no hot word", words, err)
	}
	assertIndexed(t, s)
}

// TestDriftTermsSampled: above driftSample rows the drift check counts
// terms in an even sample of chunks; its estimates of the frequent words
// are near the exact counts (the same four most frequent, each within a
// fifth), terms of no sampled chunk are not invented, and idle
// maintenance over the sample pairs the hot words.
func TestDriftTermsSampled(t *testing.T) {
	defer func(n int) { driftSample = n }(driftSample)
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(12, 6))
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "a", 150)}); err != nil {
		t.Fatal(err)
	}
	sp, err := s.Span(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := int(sp.Rows)
	all := func(TermDocs) bool { return true }
	exact, err := s.termDocs(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	driftSample = rows / 5
	est, err := s.driftTerms(ctx, rows, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(est) == 0 || len(est) > len(exact) {
		t.Fatalf("sampled %d terms, exact %d", len(est), len(exact))
	}
	held := map[string]int{}
	for _, td := range exact {
		held[td.Term] = td.Docs
	}
	for i, td := range est {
		n, ok := held[td.Term]
		if !ok {
			t.Errorf("sampled term %q is not in the index", td.Term)
			continue
		}
		if i < 4 {
			if !slices.Contains(pairVocab.hot, td.Term) {
				t.Errorf("sampled top %d: %q (%d), want a hot word; exact top: %v", i+1, td.Term, td.Docs, exact[:4])
			}
			if d := td.Docs - n; d*5 > n || -d*5 > n {
				t.Errorf("%s: estimated %d chunks, exact %d", td.Term, td.Docs, n)
			}
		}
	}
	defer setPairPolicy(50, 0.2)()
	due, err := s.IdleMergeDue(ctx)
	if err != nil || !due {
		t.Fatalf("IdleMergeDue = %v, %v; want a rebuild", due, err)
	}
	for more := true; more; {
		if more, err = s.MergeStep(ctx, 256); err != nil {
			t.Fatal(err)
		}
	}
	words, err := s.PairWords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range pairVocab.hot {
		if !slices.Contains(words, w) {
			t.Errorf("pair words after the sampled check %v, want the hot word %q", words, w)
		}
	}
	assertIndexed(t, s)
}

// setPairPolicy sets pairPolicy's row floor and share for a test and
// returns what puts the whole policy back: defer setPairPolicy(50, 0.2)().
func setPairPolicy(minRows int, share float64) (restore func()) {
	old := pairPolicy
	pairPolicy.MinRows, pairPolicy.Share = minRows, share
	return func() { pairPolicy = old }
}

// retiredRows counts the rows of each retired full-text table.
func retiredRows(t *testing.T, s *Store) map[string]int {
	t.Helper()
	names, err := retiredTables(context.Background(), s.r)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range names {
		var c int
		if err := s.r.QueryRow(`SELECT count(*) FROM ` + n).Scan(&c); err != nil {
			t.Fatal(err)
		}
		out[n] = c
	}
	return out
}

// integrityOK runs SQLite's integrity_check (which checks FTS5 tables
// too) and FTS5's own on chunks_fts.
func integrityOK(t *testing.T, s *Store, when string) {
	t.Helper()
	var res string
	if err := s.r.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("%s: integrity_check %q, %v", when, res, err)
	}
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')`); err != nil {
		t.Errorf("%s: FTS5 integrity-check: %v", when, err)
	}
}

// TestPairSwapRetires: the swap of a pair rebuild frees none of the old
// table's pages: its shadow tables are retired (renamed, still holding
// every row) and idle-time steps delete at most retiredDataRows*pages
// rows of a %_data table and retiredSmallRows*pages of another, until
// none is left. A rebuild started over one in progress retires the
// unfinished table the same way. Answers, integrity and the indexed rows
// stay those of the table before.
func TestPairSwapRetires(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(13, 7))
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "a", 150)}); err != nil {
		t.Fatal(err)
	}
	qs := pairQueries(r)
	want := answers(t, s, qs)
	var oldData, oldDocsize int
	if err := s.r.QueryRow(`SELECT (SELECT count(*) FROM chunks_fts_data), (SELECT count(*) FROM chunks_fts_docsize)`).Scan(&oldData, &oldDocsize); err != nil {
		t.Fatal(err)
	}
	// A rebuild abandoned after one step for another.
	if err := s.StartPairs(ctx, pairVocab.hot[:2]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PairStep(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if err := s.StartPairs(ctx, pairVocab.hot); err != nil {
		t.Fatal(err)
	}
	if got := retiredRows(t, s); got["fts_retired_1_docsize"] != 100 {
		t.Fatalf("after a rebuild abandoned at 100 chunks, retired %v; want fts_retired_1_docsize with 100 rows", got)
	}
	for done := false; !done; {
		var err error
		if done, err = s.PairStep(ctx, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	got := retiredRows(t, s)
	if got["fts_retired_2_data"] != oldData || got["fts_retired_2_docsize"] != oldDocsize {
		t.Fatalf("after the swap, retired %v; want the old table's %d data and %d docsize rows in fts_retired_2", got, oldData, oldDocsize)
	}
	integrityOK(t, s, "after the swap")
	diffAnswers(t, "after the swap", answers(t, s, qs), want)
	if due, err := s.IdleMergeDue(ctx); err != nil || !due {
		t.Fatalf("IdleMergeDue with retired tables = %v, %v; want due", due, err)
	}
	const pages = 1
	steps, dataSteps := 0, 0
	for len(got) > 0 {
		more, err := s.MergeStep(ctx, pages)
		if err != nil {
			t.Fatal(err)
		}
		steps++
		after := retiredRows(t, s)
		deleted := 0
		for name, n := range got {
			d := n - after[name]
			deleted += d
			bound := retiredSmallRows * pages
			if strings.HasSuffix(name, "_data") {
				bound = retiredDataRows * pages
				if d > 0 {
					dataSteps++
				}
			}
			if d > bound {
				t.Fatalf("step %d deleted %d rows of %s, want at most %d", steps, d, name, bound)
			}
		}
		if deleted == 0 && len(after) == len(got) {
			t.Fatalf("step %d deleted nothing and dropped nothing: %v", steps, after)
		}
		if !more && len(after) > 0 {
			t.Fatalf("step %d reported nothing left with %v retired", steps, after)
		}
		if steps == 3 {
			integrityOK(t, s, "while retired tables are emptied")
			diffAnswers(t, "while retired tables are emptied", answers(t, s, qs), want)
		}
		got = after
	}
	if min := oldData / (retiredDataRows * pages); dataSteps < min {
		t.Errorf("the old table's %d data rows went in %d steps, want at least %d", oldData, dataSteps, min)
	}
	if retired, err := s.Retired(ctx); err != nil || retired {
		t.Errorf("Retired after the steps = %v, %v", retired, err)
	}
	integrityOK(t, s, "after the retired tables are gone")
	assertIndexed(t, s)
	diffAnswers(t, "after the retired tables are gone", answers(t, s, qs), want)
}
