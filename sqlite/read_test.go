package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// A batch committed between a search's scan and its join to documents
// (outside a transaction: the fast path) loses the scan's winners; the
// search runs again in a read transaction and finds the document as one
// commit holds it.
func TestLexicalTornRetries(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", "a.md", "common alpha\n")}}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	afterScan = func() {
		calls++
		if calls == 1 {
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", "a.md", "common beta\n")}}); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(func() { afterScan = nil })
	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("common"), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("passes = %d, want 2 (the torn one and the one in a transaction)", calls)
	}
	if len(res.Candidates) != 1 || res.Candidates[0].Path != "a.md" || res.Candidates[0].Text != "common beta\n" {
		t.Fatalf("candidates = %+v, want a.md as the batch left it", res.Candidates)
	}
}
