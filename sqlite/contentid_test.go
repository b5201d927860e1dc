package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// hashedDoc is doc with a real content hash (64 hex digits, as the engine
// makes them), so index entries have their real size.
func hashedDoc(corpus, path, text string) cairn.Document {
	d := doc(corpus, path, text)
	sum := sha256.Sum256([]byte(text))
	d.Hash = hex.EncodeToString(sum[:])
	return d
}

// walPages is the number of pages the WAL holds since it was last reset.
func walPages(t *testing.T, s *Store) int64 {
	t.Helper()
	var size int
	if err := s.w.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return (fi.Size() - 32) / int64(size+24)
}

// TestBatchWritesFewPages: a batch of new documents into an index of
// 8,000 writes its index entries at the end of each b-tree. Keyed by
// content hash (schema 11), each of chunks(hash, seq), content(hash) and
// documents(hash) took an entry on a random leaf per row: the batch
// below wrote 366 pages to the WAL (4157f76). Keyed by content id, only
// content(hash) stays random: 135.
func TestBatchWritesFewPages(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	text := func(i int) string {
		return fmt.Sprintf("note %d about walrus %d\nsecond line of note %d with seal %d\n", i, i%97, i, i%89)
	}
	var big []cairn.Document
	for i := range 8000 {
		big = append(big, hashedDoc("notes", fmt.Sprintf("a/%05d.md", i), text(i)))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: big}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	var batch []cairn.Document
	for i := 8000; i < 8100; i++ {
		batch = append(batch, hashedDoc("notes", fmt.Sprintf("b/%05d.md", i), text(i)))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: batch}); err != nil {
		t.Fatal(err)
	}
	n := walPages(t, s)
	t.Logf("%d pages", n)
	if n > 250 {
		t.Errorf("a batch of 100 new documents (200 chunks) wrote %d pages, want under 250", n)
	}
}

// oldIndex writes a schema 11 index (content keyed by hash, chunks by
// (hash, seq)) with rows as the code of that schema wrote them: a.md and
// copy.md share content h1 (two chunks, vectors for both), b.md has h2
// (a chunk and a noise chunk), h3 is content no document names any more
// (GC pending). Statistics are taken, as PRAGMA optimize does.
func oldIndex(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
	for _, m := range migrations[:11] {
		exec(m)
	}
	exec(`INSERT INTO meta(key, value) VALUES('schema_version', '11'), ('feature_version', 'f1'), ('gc_pending', '1')`)
	texts := map[string]string{"h1": "alpha walrus\nbeta seal\n", "h2": "gamma walrus\n----\n", "h3": "orphan walrus\n"}
	for _, h := range []string{"h2", "h1", "h3"} { // rowids not in hash order
		exec(`INSERT INTO content(hash, doc, title, created_at) VALUES(?, ?, ?, 1)`, h, []byte(texts[h]), "Title "+h)
	}
	for _, d := range [][2]string{{"notes/a.md", "h1"}, {"notes/b.md", "h2"}, {"work/copy.md", "h1"}} {
		corpus, p, _ := strings.Cut(d[0], "/")
		exec(`INSERT INTO documents(corpus, path, hash, size, mtime, created_at, modified_at) VALUES(?, ?, ?, 10, 20, 1, 1)`, corpus, p, d[1])
	}
	chunk := func(id int, h string, seq, pos, n, line int, noise bool) {
		exec(`INSERT INTO chunks(id, hash, seq, pos, len, start_line, end_line, tokens, noise) VALUES(?, ?, ?, ?, ?, ?, ?, 2, ?)`,
			id, h, seq, pos, n, line, line, noise)
		if !noise {
			exec(`INSERT INTO chunks_fts(rowid, title, body, ident) VALUES(?, ?, ?, '')`, id, "Title "+h, texts[h][pos:pos+n])
		}
	}
	chunk(1, "h2", 0, 0, 13, 1, false)
	chunk(2, "h2", 1, 13, 5, 2, true)
	chunk(3, "h1", 0, 0, 13, 1, false)
	chunk(4, "h1", 1, 13, 10, 2, false)
	chunk(5, "h3", 0, 0, 14, 1, false)
	for _, id := range []int{3, 4} {
		exec(`INSERT INTO vectors(chunk_id, identity, vec) VALUES(?, 'm', ?)`, id, EncodeVector([]float32{float32(id), 1}))
	}
	exec(`ANALYZE`)
}

// TestContentIDMigration: an index of schema 11 opens keyed by content
// id with every row, chunk id, full-text row, vector and statistic kept,
// and answers as before; GC, new writes and a second migration run work.
func TestContentIDMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	oldIndex(t, path)
	s := openStore(t, path, "f1")
	if s.Reindexed {
		t.Fatal("the migration emptied the index")
	}

	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, c := range res.Candidates {
		hits = append(hits, fmt.Sprintf("%d %s/%s:%d-%d %s %q", c.ChunkID, c.Corpus, c.Path, c.StartLine, c.EndLine, c.Title, c.Text))
	}
	slices.Sort(hits)
	want := []string{
		`1 notes/b.md:1-1 Title h2 "gamma walrus\n"`,
		`3 notes/a.md:1-1 Title h1 "alpha walrus\n"`,
		`3 work/copy.md:1-1 Title h1 "alpha walrus\n"`,
	}
	if !slices.Equal(hits, want) {
		t.Errorf("walrus after migrating:\n%s\nwant\n%s", strings.Join(hits, "\n"), strings.Join(want, "\n"))
	}
	if text, err := s.DocumentText(ctx, "work", "copy.md"); err != nil || text != "alpha walrus\nbeta seal\n" {
		t.Errorf("DocumentText(copy.md) = %q, %v", text, err)
	}
	got, err := s.Chunks(ctx, []int64{4, 1})
	if err != nil {
		t.Fatal(err)
	}
	texts, err := s.ChunkTexts(ctx, []int64{4, 1})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []string
	for _, c := range got {
		chunks = append(chunks, fmt.Sprintf("%d %s/%s:%d-%d %q", c.ChunkID, c.Corpus, c.Path, c.StartLine, c.EndLine, texts[c.ChunkID]))
	}
	slices.Sort(chunks)
	if want := []string{`1 notes/b.md:1-1 "gamma walrus\n"`, `4 notes/a.md:2-2 "beta seal\n"`, `4 work/copy.md:2-2 "beta seal\n"`}; !slices.Equal(chunks, want) {
		t.Errorf("Chunks(4, 1) = %q, want %q", chunks, want)
	}
	var docs []string
	if err := s.ChunkDocs(ctx, func(id int64, corpus, path string) { docs = append(docs, fmt.Sprintf("%d %s/%s", id, corpus, path)) }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(docs)
	if want := []string{"1 notes/b.md", "3 notes/a.md", "3 work/copy.md", "4 notes/a.md", "4 work/copy.md"}; !slices.Equal(docs, want) {
		t.Errorf("ChunkDocs = %q, want %q", docs, want)
	}
	pending, err := s.PendingChunks(ctx, "m", 10)
	if err != nil {
		t.Fatal(err)
	}
	var pend []string
	for _, p := range pending {
		pend = append(pend, fmt.Sprintf("%d %q", p.ID, p.Text))
	}
	if want := []string{`1 "gamma walrus\n"`, `5 "orphan walrus\n"`}; !slices.Equal(pend, want) {
		t.Errorf("PendingChunks = %q, want %q", pend, want)
	}
	var vecs []string
	if err := s.EachVector(ctx, "m", func(id int64, v []float32) error {
		vecs = append(vecs, fmt.Sprint(id, v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"3 [3 1]", "4 [4 1]"}; !slices.Equal(vecs, want) {
		t.Errorf("vectors = %q, want %q", vecs, want)
	}
	var stats []string
	rows, err := s.r.Query(`SELECT tbl || ' ' || idx || ' ' || stat FROM sqlite_stat1 WHERE tbl IN ('chunks', 'content', 'documents') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var st string
		rows.Scan(&st)
		stats = append(stats, st)
	}
	rows.Close()
	if want := []string{"chunks chunks_content 5 2 1", "content content_hash 3 1", "documents documents_content 3 2",
		"documents sqlite_autoindex_documents_1 3 2 1"}; !slices.Equal(stats, want) {
		t.Errorf("statistics after migrating:\n%s\nwant\n%s", strings.Join(stats, "\n"), strings.Join(want, "\n"))
	}

	if st, err := s.FindStrays(ctx); err != nil || st != (cairn.Strays{Content: 1}) {
		t.Errorf("strays before GC = %+v, %v, want the one orphaned content", st, err)
	}
	if n, err := s.GC(ctx); err != nil || n != 1 {
		t.Errorf("GC = %d, %v, want h3 collected", n, err)
	}
	if m, err := s.countExpr(ctx, `"orphan"`, 10); err != nil || m.N != 0 {
		t.Errorf("orphan after GC = %+v, %v", m, err)
	}
	// New content takes the next id; known content (no chunks given) is
	// found by hash.
	fresh := hashedDoc("notes", "c.md", "delta walrus\n")
	known := cairn.Document{Corpus: "notes", Path: "d.md", Hash: "h2", Size: 5}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{fresh, known}, Remove: []string{"a.md"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.GC(ctx); err != nil || n != 0 {
		t.Errorf("GC after removing a.md = %d, %v: copy.md still holds h1", n, err)
	}
	var cid, maxOld int64
	if err := s.r.QueryRow(`SELECT (SELECT cid FROM documents WHERE path = 'c.md'), (SELECT max(cid) FROM documents WHERE path <> 'c.md')`).Scan(&cid, &maxOld); err != nil || cid <= maxOld {
		t.Errorf("new content id %d, largest before %d (%v)", cid, maxOld, err)
	}
	if m, err := s.countExpr(ctx, "walrus", 10); err != nil || m.N != 3 {
		t.Errorf("walrus after writes = %+v, %v, want chunks 1, 3 and the new one", m, err)
	}
	if text, err := s.DocumentText(ctx, "notes", "d.md"); err != nil || text != "gamma walrus\n----\n" {
		t.Errorf("DocumentText(d.md) = %q, %v", text, err)
	}
	if st, err := s.FindStrays(ctx); err != nil || st != (cairn.Strays{}) {
		t.Errorf("strays after writes = %+v, %v", st, err)
	}

	// A store whose recorded version was set back migrates again without
	// touching what is there.
	if _, err := s.w.Exec(`UPDATE meta SET value = '11' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	again := openStore(t, path, "f1")
	if m, err := again.countExpr(ctx, "walrus", 10); err != nil || m.N != 3 {
		t.Errorf("walrus after a second migration run = %+v, %v", m, err)
	}
}

// committedVersion reads the schema version as another connection sees
// it: what a kill at this moment would leave on disk.
func committedVersion(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestContentIDMigrationLines: the migration says when it starts, even
// on a small index, and says it is done only once the upgrade is
// committed (before, its one line came inside the transaction: a kill
// after it kept schema 11), naming the downgrade limit and cairn export.
func TestContentIDMigrationLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	oldIndex(t, path)
	s := New(path, "f1")
	type line struct{ text, version string }
	var lines []line
	s.Logf = func(format string, args ...any) {
		lines = append(lines, line{fmt.Sprintf(format, args...), committedVersion(t, path)})
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(lines) != 2 {
		t.Fatalf("lines = %q, want a start and a done line", lines)
	}
	start, done := lines[0], lines[1]
	for _, want := range []string{"3 documents, 5 chunks", "runs once", "may take minutes"} {
		if !strings.Contains(start.text, want) {
			t.Errorf("start line %q lacks %q", start.text, want)
		}
	}
	if start.version != "11" {
		t.Errorf("schema on disk at the start line = %s, want 11", start.version)
	}
	for _, want := range []string{"upgraded to schema 12", "3 documents, 5 chunks", "cannot open it", "cairn export"} {
		if !strings.Contains(done.text, want) {
			t.Errorf("done line %q lacks %q", done.text, want)
		}
	}
	if done.version != "12" {
		t.Errorf("schema on disk at the done line = %s, want 12: the line came before the commit", done.version)
	}
}

// TestContentIDMigrationInterrupted: a cancel during the migration (Ctrl-C)
// is reported as an interruption that changed nothing, still matching
// context.Canceled, and the index is left at schema 11 to migrate at the
// next open.
func TestContentIDMigrationInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	oldIndex(t, path)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s := New(path, "f1")
	// At the start line, as cmd/cairn's signal.NotifyContext cancels: with
	// a cause that is not context.Canceled.
	s.Logf = func(string, ...any) { cancel(errors.New("interrupt signal received")) }
	err := s.Open(ctx)
	s.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Open cancelled during the migration = %v, want context.Canceled", err)
	}
	for _, want := range []string{"interrupted", "nothing was changed", "run the command again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if v := committedVersion(t, path); v != "11" {
		t.Errorf("schema after the interruption = %s, want 11", v)
	}
	again := openStore(t, path, "f1")
	if m, err := again.countExpr(context.Background(), "walrus", 10); err != nil || m.N != 3 {
		t.Errorf("walrus after migrating again = %+v, %v", m, err)
	}
}
