package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestFTSSegments writes the index in several batches (a segment each),
// deletes some documents (tombstones), and checks what FTSSegments reads
// from the structure record against what the writes made; then
// MergeSmall and Optimize leave fewer segments and the same hits.
func TestFTSSegments(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	seg, err := s.FTSSegments(ctx)
	if err != nil || seg.Count != 0 || seg.Pages != 0 {
		t.Fatalf("empty index: %+v, %v; want no segments", seg, err)
	}
	for b := range 3 {
		var docs []cairn.Document
		for i := range 20 {
			docs = append(docs, doc("notes", fmt.Sprintf("n%d-%d.md", b, i), fmt.Sprintf("b%d-%d walrus\nkelp\n", b, i)))
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	seg, err = s.FTSSegments(ctx)
	if err != nil || seg.Count != 3 || len(seg.Sizes) != 3 || seg.Pages < 3 || seg.Tombstones != 0 {
		t.Fatalf("after three batches: %+v, %v; want three segments, no tombstones", seg, err)
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Remove: []string{"n0-1.md", "n0-2.md"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(ctx); err != nil { // deletes their full-text rows
		t.Fatal(err)
	}
	seg, err = s.FTSSegments(ctx)
	if err != nil || seg.Tombstones == 0 {
		t.Fatalf("after deleting two documents: %+v, %v; want tombstones", seg, err)
	}
	hits := func() []string {
		t.Helper()
		res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range res.Candidates {
			out = append(out, fmt.Sprintf("%s:%d:%g", c.Path, c.StartLine, c.Score))
		}
		return out
	}
	want := hits()
	if len(want) != 58 {
		t.Fatalf("%d hits before merging, want 58", len(want))
	}
	before := seg.Count
	if err := s.MergeSmall(ctx, 2, 1000); err != nil {
		t.Fatal(err)
	}
	seg, err = s.FTSSegments(ctx)
	if err != nil || seg.Count >= before {
		t.Fatalf("after MergeSmall: %+v, %v; want fewer than %d segments", seg, err, before)
	}
	var um int
	if err := s.r.QueryRowContext(ctx, `SELECT v FROM chunks_fts_config WHERE k = 'usermerge'`).Scan(&um); err != nil || um != 4 {
		t.Fatalf("usermerge after MergeSmall = %d, %v; want 4", um, err)
	}
	if got := hits(); !slices.Equal(got, want) {
		t.Fatalf("hits after merging:\n%v\nbefore:\n%v", got, want)
	}
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if seg, err = s.FTSSegments(ctx); err != nil || seg.Count != 1 || seg.Tombstones != 0 {
		t.Fatalf("after Optimize: %+v, %v; want one segment without tombstones", seg, err)
	}
	if got := hits(); !slices.Equal(got, want) {
		t.Fatalf("hits after optimizing:\n%v\nbefore:\n%v", got, want)
	}
}

// TestParseStructureCut: a structure record cut anywhere is an error, not
// a panic or a wrong count.
func TestParseStructureCut(t *testing.T) {
	// cookie, v2 marker, 1 level, 2 segments, write counter 5; level 0:
	// no merge, 2 segments: id 1 pages 1..3, origins 1 1, tombstone pages
	// 0, entries 4, rows 7; id 2 pages 4..4, origins 2 2, 0 0 3.
	rec := []byte{0, 0, 0, 1, 0xff, 0, 0, 1, 1, 2, 5, 0, 2, 1, 1, 3, 1, 1, 0, 4, 7, 2, 4, 4, 2, 2, 0, 0, 3}
	seg, err := parseStructure(rec)
	if err != nil || seg.Count != 2 || seg.Levels != 1 || seg.Pages != 4 || seg.Tombstones != 4 || !slices.Equal(seg.Sizes, []int{3, 1}) {
		t.Fatalf("parseStructure = %+v, %v", seg, err)
	}
	for n := range len(rec) - 1 {
		if seg, err := parseStructure(rec[:n]); err == nil {
			t.Fatalf("record cut to %d bytes: %+v, want an error", n, seg)
		}
	}
	if v, n := fts5Varint([]byte{0x81, 0x00}); v != 128 || n != 2 {
		t.Fatalf("fts5Varint(81 00) = %d, %d; want 128, 2", v, n)
	}
}
