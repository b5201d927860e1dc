package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// bulkDocs is a batch of docs documents of lines one-chunk lines each.
func bulkDocs(docs, lines int, word string) []cairn.Document {
	var out []cairn.Document
	for i := range docs {
		var b strings.Builder
		for l := range lines {
			fmt.Fprintf(&b, "walrus %s note %d line %d of colony%d\n", word, i, l, l%7)
		}
		d := doc("notes", fmt.Sprintf("n%03d.md", i), b.String())
		d.Hash = fmt.Sprintf("h%03d-%s", i, word)
		out = append(out, d)
	}
	return out
}

// postings lists every full-text posting of s (term, chunk, column,
// offset) through fts5vocab's instance table.
func postings(t *testing.T, s *Store) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := s.r.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.bulk_vocab USING fts5vocab(main, chunks_fts, instance)`); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, `SELECT term, doc, col, offset FROM temp.bulk_vocab`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var term, col string
		var id, off int64
		if err := rows.Scan(&term, &id, &col, &off); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %s %d", term, id, col, off))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// writerPragma reads a pragma on the writer's connection.
func writerPragma(t *testing.T, s *Store, name string) int {
	t.Helper()
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	if err := w.QueryRow(`PRAGMA ` + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// ftsConfig is chunks_fts's configuration table as k=v lines.
func ftsConfig(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.Query(`SELECT k, v FROM chunks_fts_config ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, k+"="+v)
	}
	return out
}

// A batch of at least bulkMinRows full-text rows is written with merging
// deferred and secure_delete still on (seen inside the batch), and
// commits the same postings as without, FTS5's settings as they were (a
// non-default automerge kept).
func TestBulkApplySetsBack(t *testing.T) {
	ctx := context.Background()
	docs := bulkDocs(40, 40, "plain") // 1,600 chunks
	var stores []*Store
	for _, bulk := range []bool{true, false} {
		s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
		w, err := s.writer()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 7)`); err != nil {
			t.Fatal(err)
		}
		before := ftsConfig(t, s)
		var inside []string
		bulkLoadHook = func(ctx context.Context, tx *sql.Tx) error {
			var sd int
			if err := tx.QueryRowContext(ctx, `PRAGMA secure_delete`).Scan(&sd); err != nil {
				t.Error(err)
			}
			set, err := ftsSettings(ctx, tx)
			if err != nil {
				t.Error(err)
			}
			inside = append(inside, fmt.Sprintf("secure_delete=%d automerge=%d crisismerge=%d hashsize=%d", sd, set["automerge"], set["crisismerge"], set["hashsize"]))
			return nil
		}
		if !bulk {
			bulkMinRows = len(docs)*40 + 1
		}
		err = s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs})
		bulkLoadHook, bulkMinRows = nil, 1000
		if err != nil {
			t.Fatal(err)
		}
		want := []string(nil)
		if bulk {
			want = []string{fmt.Sprintf("secure_delete=1 automerge=0 crisismerge=%d hashsize=%d", bulkCrisisMerge, bulkHashSize)}
		}
		if !slices.Equal(inside, want) {
			t.Fatalf("bulk %v: inside the batch %q, want %q", bulk, inside, want)
		}
		checkSettings(t, s, before)
		stores = append(stores, s)
	}
	a, b := postings(t, stores[0]), postings(t, stores[1])
	if len(a) < 1600*8 || !slices.Equal(a, b) {
		t.Fatalf("postings: %d in bulk, %d without; equal %v", len(a), len(b), slices.Equal(a, b))
	}
}

// checkSettings fails unless chunks_fts's automerge is 7 and crisismerge
// and hashsize are FTS5's defaults (a row of them or none), and the
// writer's secure_delete is on.
func checkSettings(t *testing.T, s *Store, before []string) {
	t.Helper()
	after := ftsConfig(t, s)
	for _, kv := range after {
		k, _, _ := strings.Cut(kv, "=")
		if k == "automerge" && kv != "automerge=7" || k == "crisismerge" && kv != "crisismerge=16" || k == "hashsize" && kv != "hashsize=1048576" {
			t.Fatalf("settings after the batch %q (before %q)", after, before)
		}
	}
	if !slices.Contains(after, "automerge=7") {
		t.Fatalf("settings after the batch %q, want automerge=7 kept", after)
	}
	if sd := writerPragma(t, s, "secure_delete"); sd != 1 {
		t.Fatalf("secure_delete %d after the batch, want 1", sd)
	}
}

// Text indexed in bulk and removed later leaves the database file, and
// the bulk batches keep secure_delete on: the merge of their segments
// must zero the pages it frees, though every posting on them is still in
// the merged segment then, or a copy of the postings the merged segment
// drops later can stay on the free list. (Here the later writes happen to
// reuse those free pages, so the file check alone passed with
// secure_delete off; the check inside the batches failed.)
func TestBulkRemovedTextLeavesFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStore(t, path, "f1")
	const secret = "zqjvkxsecretwombat"
	var inside []int
	bulkLoadHook = func(ctx context.Context, tx *sql.Tx) error {
		var sd int
		if err := tx.QueryRowContext(ctx, `PRAGMA secure_delete`).Scan(&sd); err != nil {
			t.Error(err)
		}
		inside = append(inside, sd)
		return nil
	}
	defer func() { bulkLoadHook = nil }()
	// Two bulk batches, two segments: the Optimize merges them into one
	// and frees the pages of both.
	first := bulkDocs(30, 40, secret)
	for _, dir := range []string{"a/", "b/"} {
		docs := slices.Clone(first)
		for i := range docs {
			docs[i].Path = dir + docs[i].Path
			docs[i].Hash = dir + docs[i].Hash
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	if seg, err := s.FTSSegments(ctx); err != nil || seg.Count < 2 {
		t.Fatalf("segments after two bulk batches: %+v, %v; want at least 2", seg, err)
	}
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	// Every document replaced: its old content, chunks and full-text rows
	// go in GC, leaving tombstones that the next Optimize merges away.
	for _, dir := range []string{"a/", "b/"} {
		docs := bulkDocs(30, 1, "other")
		for i := range docs {
			docs[i].Path = dir + docs[i].Path
			docs[i].Hash = dir + docs[i].Hash
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(inside, []int{1, 1}) {
		t.Fatalf("secure_delete inside the bulk batches: %v, want [1 1]", inside)
	}
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		raw, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		// Terms share prefixes on a leaf page; the tail is the term's own.
		if bytes.Contains(raw, []byte(secret[4:])) {
			t.Fatalf("%s still holds the removed text's term", filepath.Base(f))
		}
	}
}

// A bulk batch that fails, is cancelled or panics after the settings were
// set commits nothing; the settings stay as they were, FTS5 works with
// them again (small batches are merged as they come), and the writer's
// connection is free for the next batch.
func TestBulkFailedBatch(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 7)`); err != nil {
		t.Fatal(err)
	}
	before := ftsConfig(t, s)
	defer func() { bulkLoadHook = nil }()
	boom := errors.New("boom")
	ran := 0
	for _, how := range []string{"error", "cancel", "panic"} {
		bctx, cancel := context.WithCancel(ctx)
		bulkLoadHook = func(ctx context.Context, tx *sql.Tx) error {
			ran++
			switch how {
			case "error":
				return boom
			case "cancel":
				cancel()
			case "panic":
				panic(boom)
			}
			return nil
		}
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			err = s.Apply(bctx, &cairn.Batch{Corpus: "notes", Upserts: bulkDocs(30, 40, how)})
		}()
		cancel()
		bulkLoadHook = nil
		if err == nil || how == "cancel" && !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: Apply returned %v", how, err)
		}
		if n, err := s.ChunkCount(ctx); err != nil || n != 0 {
			t.Fatalf("%s: %d chunks after the failed batch (%v), want 0", how, n, err)
		}
		checkSettings(t, s, before)
	}
	if ran != 3 {
		t.Fatalf("hook ran %d times, want 3", ran)
	}
	// With automerge 0 and crisismerge 1000 still in force, 40 batches of
	// one chunk would leave 40 segments; automerge 7 merges them as they
	// come. A dead connection would make this wait: a deadline ends it.
	wctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	for i := range 40 {
		d := doc("notes", fmt.Sprintf("s%02d.md", i), fmt.Sprintf("walrus small %d\n", i))
		if err := s.Apply(wctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
	}
	if seg, err := s.FTSSegments(ctx); err != nil || seg.Count >= 20 {
		t.Fatalf("segments after 40 small batches: %+v, %v; want fewer than 20", seg, err)
	}
	checkSettings(t, s, before)
}

// A batch loads in bulk only when it is at least 1/bulkShare of the rows
// already indexed; ftsRows counts them.
func TestBulkShareOfIndex(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	bulks := 0
	bulkLoadHook = func(context.Context, *sql.Tx) error { bulks++; return nil }
	bulkMinRows = 10
	defer func() { bulkLoadHook, bulkMinRows = nil, 1000 }()
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: bulkDocs(5, 40, "base")}); err != nil {
		t.Fatal(err)
	}
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	n, err := ftsRows(ctx, tx)
	tx.Rollback()
	if err != nil || n != 200 {
		t.Fatalf("ftsRows: %d, %v; want 200", n, err)
	}
	for _, c := range []struct {
		lines, want int
	}{{12, 1}, {14, 2}} { // 12*16 < 200: merged as it comes; 14*16 >= 212: bulk
		d := bulkDocs(1, c.lines, fmt.Sprintf("more%d", c.lines))[0]
		d.Path = fmt.Sprintf("more%d.md", c.lines)
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
		if bulks != c.want {
			t.Fatalf("after a batch of %d rows: %d bulk batches, want %d", c.lines, bulks, c.want)
		}
	}
}

// TestMemoryStatisticsOff: SQLite's memory statistics are off in this
// process (set before SQLite initialized, so it took), and stay off
// through a store's open and a bulk batch: SQLite counts nothing in use,
// which it does for every allocation while they are on.
func TestMemoryStatisticsOff(t *testing.T) {
	if !memStatusOff {
		t.Fatal("sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) failed: SQLite was initialized before the package's variables were set")
	}
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	if err := s.Apply(context.Background(), &cairn.Batch{Corpus: "notes", Upserts: bulkDocs(30, 40, "stats")}); err != nil {
		t.Fatal(err)
	}
	if n := sqliteMemoryUsed(); n != 0 {
		t.Fatalf("SQLite counts %d bytes in use: memory statistics are on", n)
	}
}

// TestContentStoredAsBlob: a document's text is stored as a BLOB of its
// bytes (blobOf passes the string's bytes without a copy), so substr
// counts bytes as chunk positions do, the text given is left as it was,
// and empty text is an empty BLOB, not NULL (doc is NOT NULL).
func TestContentStoredAsBlob(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	multi := "Größe ändern: naïve café\nzweite Zeile\n"
	keep := strings.Clone(multi)
	empty := cairn.Document{Corpus: "notes", Path: "empty.md", Hash: "h-empty", Chunks: []cairn.Chunk{}}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{doc("notes", "m.md", multi), empty}}); err != nil {
		t.Fatal(err)
	}
	if multi != keep {
		t.Fatalf("the text given changed: %q", multi)
	}
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	var typ, second string
	var n int
	if err := w.QueryRow(`SELECT typeof(ct.doc), length(ct.doc), substr(ct.doc, c.pos + 1, c.len) FROM content ct JOIN chunks c ON c.cid = ct.id
		WHERE ct.hash = ? AND c.seq = 1`, doc("notes", "m.md", multi).Hash).Scan(&typ, &n, &second); err != nil {
		t.Fatal(err)
	}
	if typ != "blob" || n != len(multi) || second != "zweite Zeile\n" {
		t.Fatalf("stored %s of %d bytes, second chunk %q; want a blob of %d bytes, %q", typ, n, second, len(multi), "zweite Zeile\n")
	}
	if err := w.QueryRow(`SELECT typeof(doc), length(doc) FROM content WHERE hash = 'h-empty'`).Scan(&typ, &n); err != nil {
		t.Fatal(err)
	}
	if typ != "blob" || n != 0 {
		t.Fatalf("empty text stored as %s of %d bytes, want an empty blob", typ, n)
	}
}
