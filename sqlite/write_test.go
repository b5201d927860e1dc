package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// ftsLeavesWritten reads FTS5's write counter from the structure record of
// chunks_fts (row 10 of chunks_fts_data): the leaf pages flushed to new
// level-0 segments since the table was made. Each flush writes at least
// one leaf, so it bounds the flushes from above by the data written.
func ftsLeavesWritten(t *testing.T, s *Store) uint64 {
	t.Helper()
	var rec []byte
	if err := s.r.QueryRowContext(context.Background(), `SELECT block FROM chunks_fts_data WHERE id = 10`).Scan(&rec); err != nil {
		t.Fatalf("read structure record: %v", err)
	}
	i := 4 // the cookie
	if len(rec) >= 8 && string(rec[4:8]) == "\xff\x00\x00\x01" {
		i += 4 // a version 2 record
	}
	var v [3]uint64 // levels, segments, write counter
	for k := range v {
		n := 0
		v[k], n = sqliteVarint(rec[i:])
		i += n
	}
	return v[2]
}

// sqliteVarint decodes SQLite's big-endian varint (1 to 9 bytes).
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v, len(b)
}

// One batch of many small chunks reaches the full-text index in one flush:
// a chunk row written between two full-text rows opened a savepoint, at
// which FTS5 flushed its pending postings, one segment per chunk (300
// leaves written here before).
func TestApplyFlushesFullTextOncePerBatch(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	var docs []cairn.Document
	for i := range 300 {
		d := doc("notes", fmt.Sprintf("n%03d.md", i), fmt.Sprintf("walrus note %d of the colony\n", i))
		d.Hash = fmt.Sprintf("h%03d", i)
		docs = append(docs, d)
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	// About 12 KB of postings: a few 4 KB leaves.
	if n := ftsLeavesWritten(t, s); n > 30 {
		t.Fatalf("one batch of 300 chunks wrote %d full-text leaves, want a few (one flush)", n)
	}
	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 300 {
		t.Fatalf("walrus found in %d chunks, want 300", len(res.Candidates))
	}
}

// PruneCorpora deletes the documents of the corpora not kept, and finds
// the indexed corpora by seeks in the (corpus, path) index rather than by
// reading every document: a sync with nothing to prune reads a few index
// entries (the plan has no scan of documents).
func TestPruneCorporaBySeeks(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	for _, c := range []string{"a", "b", "c", ""} {
		var docs []cairn.Document
		for i := range 3 {
			docs = append(docs, doc(c, fmt.Sprintf("%d.md", i), fmt.Sprintf("note %s %d\n", c, i)))
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: c, Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(corpus string) int {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE corpus=?`, corpus).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n, err := s.PruneCorpora(ctx, []string{"a", "b", "c", ""}); err != nil || n != 0 {
		t.Fatalf("PruneCorpora of every corpus kept = %d, %v; want 0", n, err)
	}
	if n, err := s.PruneCorpora(ctx, []string{"b"}); err != nil || n != 9 {
		t.Fatalf("PruneCorpora(b) = %d, %v; want 9", n, err)
	}
	for c, want := range map[string]int{"a": 0, "b": 3, "c": 0, "": 0} {
		if got := count(c); got != want {
			t.Errorf("corpus %q: %d documents after pruning, want %d", c, got, want)
		}
	}
	if n, err := s.PruneCorpora(ctx, nil); err != nil || n != 3 || count("b") != 0 {
		t.Fatalf("PruneCorpora(nil) = %d, %v; want 3, none left", n, err)
	}
	rows, err := s.r.QueryContext(ctx, `EXPLAIN QUERY PLAN `+listCorporaQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(detail, "SCAN documents") {
			t.Errorf("listing corpora scans the documents: %s", detail)
		}
	}
}
