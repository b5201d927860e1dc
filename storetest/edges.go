package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestEdgeCases checks the inputs a store meets in the field and tests
// rarely make: an empty store and empty batches, empty documents,
// Unicode and odd paths, multi-byte text, huge documents, duplicates, and
// a data folder with an odd name.
func TestEdgeCases(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"EmptyStore", testEmptyStore},
		{"EmptyBatchAndDocument", testEmptyDocument},
		{"UnicodeAndOddPaths", testOddPaths},
		{"MultiByteOffsets", testMultiByte},
		{"HugeDocument", testHugeDocument},
		{"ManyChunks", testManyChunks},
		{"Duplicates", testDuplicates},
		{"QuotesInQueries", testQuotesInQueries},
		{"CanceledContext", testCanceled},
	})
	t.Run("DataFolderWithOddName", func(t *testing.T) { testOddFolder(t, f) })
}

func testEmptyStore(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s on an empty store: %v", what, err)
		}
	}
	st, err := s.DocStates(ctx, "notes")
	check("DocStates", err)
	has, err2 := s.HasContent(ctx, []string{hashOf("x")})
	check("HasContent", err2)
	res, err3 := s.Lexical(ctx, q(term("anything")))
	check("Lexical", err3)
	mc, err4 := s.MatchCount(ctx, term("anything"), 10)
	check("MatchCount", err4)
	sp, err5 := s.Span(ctx)
	check("Span", err5)
	if len(st) != 0 || has[hashOf("x")] || res == nil || len(res.Candidates) != 0 || mc.N != 0 || sp.Rows != 0 {
		t.Errorf("empty store: states %v, has %v, lexical %+v, count %+v, span %+v", st, has, res, mc, sp)
	}
	if _, err := s.DocumentText(ctx, "notes", "a.md"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("DocumentText on an empty store: %v, want ErrNotFound", err)
	}
	if n, err := s.GC(ctx); err != nil || n != 0 {
		t.Errorf("GC = %d, %v", n, err)
	}
	if n, err := s.PruneCorpora(ctx, []string{"notes"}); err != nil || n != 0 {
		t.Errorf("PruneCorpora = %d, %v", n, err)
	}
	sessions, err := s.SessionsOf(ctx, "sessions", "")
	check("SessionsOf", err)
	filtered, err := s.FilterSessions(ctx, nil, cairn.SessionFilter{Provider: "x"})
	check("FilterSessions", err)
	ts, err := s.TranscriptStates(ctx, "sessions")
	check("TranscriptStates", err)
	ms, err := s.Memories(ctx, cairn.MemoryFilter{})
	check("Memories", err)
	cp, err := s.DoneRecords(ctx, "sessions", thread, "main")
	check("DoneRecords", err)
	names, err := s.KnownNames(ctx, "", 10)
	check("KnownNames", err)
	pairs, err := s.JudgedPairs(ctx)
	check("JudgedPairs", err)
	ls, err := s.MemoryLinks(ctx, "m")
	check("MemoryLinks", err)
	fs, err := s.FailedRecords(ctx, "sessions", thread, "main")
	check("FailedRecords", err)
	if len(sessions)+len(filtered)+len(ts)+len(ms)+len(cp)+len(names)+len(pairs)+len(ls)+len(fs) != 0 {
		t.Errorf("empty store returned rows: %v %v %v %v %v %v %v %v %v", sessions, filtered, ts, ms, cp, names, pairs, ls, fs)
	}
	if _, err := s.Memory(ctx, "m"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("Memory on an empty store: %v, want ErrNotFound", err)
	}
	if _, err := s.Session(ctx, "sessions", "a.md"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("Session on an empty store: %v, want ErrNotFound", err)
	}
	for what, fn := range map[string]func(context.Context, string) (int, error){"CountVectors": s.CountVectors, "CountPending": s.CountPending} {
		if n, err := fn(ctx, "id-1"); err != nil || n != 0 {
			t.Errorf("%s = %d, %v", what, n, err)
		}
	}
	if n, err := s.CountEmbeddable(ctx); err != nil || n != 0 {
		t.Errorf("CountEmbeddable = %d, %v", n, err)
	}
	_, err = s.VectorsVersion(ctx)
	check("VectorsVersion", err)
	calls := 0
	check("EachVector", s.EachVector(ctx, "id-1", func(int64, []float32) error { calls++; return nil }))
	check("ChunkDocs", s.ChunkDocs(ctx, func(int64, string, string) { calls++ }))
	if calls != 0 {
		t.Errorf("%d callbacks on an empty store", calls)
	}
}

func testEmptyDocument(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes"}); err != nil {
		t.Errorf("an empty batch: %v", err)
	}
	empty := doc("notes", "empty.md", "")
	if empty.Chunks == nil || len(empty.Chunks) != 0 {
		t.Fatalf("fixture: an empty document has chunks %v", empty.Chunks)
	}
	apply(t, s, "notes", []cairn.Document{empty})
	if got := docStates(t, s, "notes"); len(got) != 1 || got["empty.md"].Hash != empty.Hash || got["empty.md"].Size != 0 {
		t.Errorf("states with an empty document = %v", got)
	}
	if txt, ok := text(t, s, "notes", "empty.md"); !ok || txt != "" {
		t.Errorf("text of an empty document = %q, %v; want found and empty", txt, ok)
	}
	if sp, err := s.Span(ctx); err != nil || sp.Rows != 0 {
		t.Errorf("span with only an empty document = %+v, %v", sp, err)
	}
	apply(t, s, "notes", nil, "empty.md")
	if n := gc(t, s); n != 1 {
		t.Errorf("gc of an empty document's content collected %d, want 1", n)
	}
}

func testOddPaths(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	odd := []string{
		"Notizen/Größe und Maße.md",
		"日本語/ノート.md",
		"emoji 🦭/walrus 🦭.md",
		"spaces and  double  spaces/a b.md",
		`quotes/it's "quoted".md`,
		"percent/100% sure?.md",
		"hash/#1 & more;.md",
		`back\slash.md`,
		".hidden/.dot.md",
		"combining/cafe\u0301.md", // e + combining acute: not the same path as é
		"combining/café.md",
		strings.Repeat("long/", 150) + "deep.md",
	}
	corpus := "Корпус ünïcode"
	var docs []cairn.Document
	for i, p := range odd {
		docs = append(docs, doc(corpus, p, fmt.Sprintf("walrus %d\n", i)))
	}
	apply(t, s, corpus, docs)
	st := docStates(t, s, corpus)
	if len(st) != len(odd) {
		t.Errorf("%d documents stored, want %d: %v", len(st), len(odd), keys(st))
	}
	for i, p := range odd {
		if st[p].Hash != docs[i].Hash {
			t.Errorf("state of %q = %+v", p, st[p])
		}
		if txt, ok := text(t, s, corpus, p); !ok || txt != docs[i].Text {
			t.Errorf("text of %q = %q, %v", p, txt, ok)
		}
		want := fmt.Sprintf("walrus %d\n", i)
		res := lexical(t, s, q(term("walrus"), corpora(corpus), onlyPaths(nil, p)))
		if len(res.Candidates) != 1 || res.Candidates[0].Path != p || res.Candidates[0].Corpus != corpus || res.Candidates[0].Text != want {
			t.Errorf("search restricted to %q = %+v", p, res.Candidates)
		}
	}
	apply(t, s, corpus, nil, odd[0], odd[9])
	st = docStates(t, s, corpus)
	if _, ok := st[odd[0]]; ok || len(st) != len(odd)-2 {
		t.Errorf("after removing two odd paths: %v", keys(st))
	}
	if _, ok := st[odd[10]]; !ok {
		t.Errorf("removing %q removed %q too", odd[9], odd[10])
	}
	putSession(t, s, session(corpus, odd[2], "/home/ü/🦭 transcripts/a b.jsonl", t0))
	if r, err := s.Session(ctx, corpus, odd[2]); err != nil || r.Transcript != "/home/ü/🦭 transcripts/a b.jsonl" {
		t.Errorf("session at %q = %+v, %v", odd[2], r, err)
	}
	if rs, err := s.SessionsOf(ctx, corpus, "/home/ü/🦭 transcripts/a b.jsonl"); err != nil || len(rs) != 1 {
		t.Errorf("sessions of the odd transcript = %v, %v", rs, err)
	}
}

// testMultiByte: chunk offsets are bytes, so a chunk after multi-byte
// characters is read back exactly.
func testMultiByte(t *testing.T, s cairn.Storage) {
	txt := "🦭🦭 Größe naïve 日本語\r\nthe walrus line\r\nlast ünïcode line"
	d := doc("notes", "mb.md", txt)
	apply(t, s, "notes", []cairn.Document{d})
	res := lexical(t, s, q(term("walrus")))
	if len(res.Candidates) != 1 || res.Candidates[0].Text != "the walrus line\r\n" || res.Candidates[0].StartLine != 2 {
		t.Errorf("the chunk after multi-byte text = %+v, want line 2 exactly", res.Candidates)
	}
	res = lexical(t, s, q(term("naïve")))
	if len(res.Candidates) != 1 || res.Candidates[0].Text != "🦭🦭 Größe naïve 日本語\r\n" {
		t.Errorf("naïve = %+v, want line 1 exactly", res.Candidates)
	}
	res = lexical(t, s, q(term("last")))
	if len(res.Candidates) != 1 || res.Candidates[0].Text != "last ünïcode line" {
		t.Errorf("the last line, without a newline = %+v", res.Candidates)
	}
	if got, _ := text(t, s, "notes", "mb.md"); got != txt {
		t.Errorf("text = %q, want %q", got, txt)
	}
}

// testHugeDocument: a document of several megabytes, one chunk of them a
// single 3 MB line, is stored and read back whole and exactly.
func testHugeDocument(t *testing.T, s cairn.Storage) {
	long := strings.Repeat("filler ", 3<<20/7) + "needle\n"
	txt := "head line\n" + long + "tail walrus\n"
	d := doc("notes", "huge.md", txt)
	apply(t, s, "notes", []cairn.Document{d})
	if got, _ := text(t, s, "notes", "huge.md"); got != txt {
		t.Errorf("huge text read back: %d bytes, want %d, equal %v", len(got), len(txt), got == txt)
	}
	res := lexical(t, s, q(term("needle")))
	if len(res.Candidates) != 1 || res.Candidates[0].Text != long || res.Candidates[0].StartLine != 2 {
		t.Errorf("needle: %d hits, text of %d bytes, want the %d-byte line 2", len(res.Candidates), textLen(res), len(long))
	}
	res = lexical(t, s, q(term("walrus")))
	if len(res.Candidates) != 1 || res.Candidates[0].Text != "tail walrus\n" || res.Candidates[0].StartLine != 3 {
		t.Errorf("walrus after the huge line = %+v", res.Candidates)
	}
}

func textLen(res *cairn.LexicalResult) int {
	if len(res.Candidates) == 0 {
		return 0
	}
	return len(res.Candidates[0].Text)
}

func testManyChunks(t *testing.T, s cairn.Storage) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d of many walrus%d\n", i, i%10)
	}
	d := doc("notes", "many.md", b.String())
	apply(t, s, "notes", []cairn.Document{d})
	if mc := matchCount(t, s, term("many"), 10000); mc.N != 3000 {
		t.Errorf("chunks matching many = %d, want 3000", mc.N)
	}
	res := lexical(t, s, q(term("walrus7"), limit(1000)))
	if len(res.Candidates) != 300 {
		t.Errorf("walrus7 = %d hits, want 300", len(res.Candidates))
	}
	for _, c := range res.Candidates {
		if want := fmt.Sprintf("line %d of many walrus7\n", c.StartLine-1); c.Text != want {
			t.Errorf("line %d = %q, want %q", c.StartLine, c.Text, want)
			break
		}
	}
	if sp, err := s.Span(context.Background()); err != nil || sp.Rows != 3000 || sp.MaxID-sp.MinID < 2999 {
		t.Errorf("span = %+v, %v; want 3000 rows", sp, err)
	}
}

func testDuplicates(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("notes", "a.md", "walrus once\n")
	apply(t, s, "notes", []cairn.Document{a})
	before := docStates(t, s, "notes")
	// The same batch again changes nothing and duplicates nothing.
	apply(t, s, "notes", []cairn.Document{a})
	if d := cmp.Diff(before, docStates(t, s, "notes")); d != "" {
		t.Errorf("states after the same batch again (-before +after):\n%s", d)
	}
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("hits after the same batch again = %v", got)
	}
	if n := gc(t, s); n != 0 {
		t.Errorf("gc after the same batch again = %d", n)
	}
	// Two documents with the same new content in one batch share it.
	b, c := doc("notes", "b.md", "walrus twice\n"), doc("notes", "c.md", "walrus twice\n")
	apply(t, s, "notes", []cairn.Document{b, c})
	if got := paths(t, s, q(term("twice"))); !equal(got, "notes/b.md", "notes/c.md") {
		t.Errorf("one new content in two documents of a batch = %v", got)
	}
	if sp, err := s.Span(ctx); err != nil || sp.Rows != 2 {
		t.Errorf("span = %+v, %v; want 2 rows (shared content is indexed once)", sp, err)
	}
	has, err := s.HasContent(ctx, []string{b.Hash, b.Hash, a.Hash})
	if err != nil || !has[b.Hash] || !has[a.Hash] {
		t.Errorf("HasContent with a repeated hash = %v, %v", has, err)
	}
	// One memory id twice in a window is one memory; the later copy wins.
	m1, m2 := memory("m-1", "fact", "r"), memory("m-1", "fact", "r")
	m2.Summary = "second"
	commit(t, s, cairn.WindowCommit{Records: []string{"r"}, Memories: []cairn.Memory{m1, m2}})
	if ms := listMemories(t, s, cairn.MemoryFilter{}); len(ms) != 1 || ms[0].Summary != "second" {
		t.Errorf("a repeated memory id = %+v, want one memory, the later copy", ms)
	}
	// Repeated records in a window are done once.
	commit(t, s, cairn.WindowCommit{Records: []string{"x", "x"}, Hashes: []string{"h", "h"}})
	if cp := done(t, s, "main"); len(cp) != 2 || cp["x"].Hash != "h" {
		t.Errorf("checkpoint with a repeated record = %v", cp)
	}
}

func testQuotesInQueries(t *testing.T, s cairn.Storage) {
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", `he said "walrus" twice: it's a walrus`+"\n")})
	for _, w := range []string{`"walrus"`, `it's`, `walrus"`} {
		if _, err := s.Lexical(context.Background(), q(term(w))); err != nil {
			t.Errorf("a term holding quotes, %q: %v", w, err)
		}
	}
	if got := paths(t, s, q(term(`"walrus"`))); !equal(got, "notes/a.md") {
		t.Errorf(`the term "walrus" with its quotes = %v`, got)
	}
}

// testOddFolder: a data folder whose name holds spaces, Unicode and the
// characters URIs reserve works like any other, reopened too.
func testOddFolder(t *testing.T, f Factory) {
	dir := filepath.Join(t.TempDir(), "my data ü 🦭 #1 ?x=y&z %20 'q'")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := open(t, f, dir)
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "walrus in an odd folder\n")})
	commit(t, s, cairn.WindowCommit{Records: []string{"r"}, Memories: []cairn.Memory{memory("m-odd", "fact", "r")}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, f, dir)
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("after reopening in %q: %v", dir, got)
	}
	if _, err := s.Memory(context.Background(), "m-odd"); err != nil {
		t.Errorf("memory after reopening in %q: %v", dir, err)
	}
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the store wrote beside its folder: %v", names)
	}
}

// testCanceled: a write asked with a canceled context fails and writes
// nothing; a read fails too, and the storage goes on.
func testCanceled(t *testing.T, s cairn.Storage) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{doc("notes", "a.md", "walrus\n")}}); err == nil {
		t.Error("Apply with a canceled context succeeded")
	}
	if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: thread, Pass: "main", Records: []string{"r"},
		Memories: []cairn.Memory{memory("m", "fact", "r")}}); err == nil {
		t.Error("CommitWindow with a canceled context succeeded")
	}
	if _, err := s.Lexical(ctx, q(term("walrus"))); err == nil {
		t.Error("Lexical with a canceled context succeeded")
	}
	if st := docStates(t, s, "notes"); len(st) != 0 {
		t.Errorf("a canceled Apply wrote %v", keys(st))
	}
	if ms := listMemories(t, s, cairn.MemoryFilter{}); len(ms) != 0 {
		t.Errorf("a canceled commit wrote %v", ids(ms))
	}
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "walrus\n")})
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("after the canceled calls: %v", got)
	}
}
