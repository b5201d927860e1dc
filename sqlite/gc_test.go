package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestGCPendingMarker: a write that can orphan content (an update to a new
// hash, a removal, a prune) sets the marker in its own transaction; one
// that cannot (a new document, the same content again) leaves it; GC
// clears it. A database without the marker row reads as pending.
func TestGCPendingMarker(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	pending := func() bool {
		t.Helper()
		p, err := s.GCPending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if !pending() {
		t.Error("a database without the marker row should read as pending")
	}
	gc := func() int {
		t.Helper()
		n, err := s.GC(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	apply := func(b *cairn.Batch) {
		t.Helper()
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	gc()
	a := doc("notes", "a.md", "alpha walrus\n")
	apply(&cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{a}})
	if pending() {
		t.Error("adding a document set the marker")
	}
	apply(&cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{a}})
	if pending() {
		t.Error("writing the same content again set the marker")
	}
	a2 := doc("notes", "a.md", "alpha narwhal\n")
	apply(&cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{a2}})
	if !pending() {
		t.Error("replacing a document's content left no marker")
	}
	if n := gc(); n != 1 || pending() {
		t.Errorf("gc collected %d (want 1), pending %v", n, pending())
	}
	apply(&cairn.Batch{Corpus: "notes", Remove: []string{"gone.md"}})
	if pending() {
		t.Error("removing a document that was never indexed set the marker")
	}
	apply(&cairn.Batch{Corpus: "notes", Remove: []string{"a.md"}})
	if !pending() {
		t.Error("a removal left no marker")
	}
	gc()
	apply(&cairn.Batch{Corpus: "work", Upserts: []cairn.Document{doc("work", "w.md", "work text\n")}})
	if n, err := s.PruneCorpora(ctx, []string{"notes"}); err != nil || n != 1 || !pending() {
		t.Errorf("prune: %d, %v, pending %v", n, err, pending())
	}
	if n := gc(); n != 1 {
		t.Errorf("gc after prune collected %d, want 1", n)
	}
	var rows int
	if err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chunks) + (SELECT count(*) FROM content)`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("rows left after gc: %d, %v", rows, err)
	}
	if sp, err := s.Span(ctx); err != nil || sp.Rows != 0 {
		t.Errorf("full-text rows left after gc: %+v, %v", sp, err)
	}
}
