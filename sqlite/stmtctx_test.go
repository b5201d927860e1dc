package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/metrics"
	"testing"

	"github.com/cairnmemory/cairn"
)

func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// TestApplyRunsRowsOnItsGoroutine: a batch under a cancellable context (a
// sync's) does not start a goroutine a statement. The driver did for every
// statement whose context can be cancelled: 1,505 for these 300 documents.
func TestApplyRunsRowsOnItsGoroutine(t *testing.T) {
	if s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}; func() bool { metrics.Read(s); return s[0].Value.Kind() != metrics.KindUint64 }() {
		t.Skip("runtime has no goroutines-created metric")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	var docs []cairn.Document
	for i := range 300 {
		d := doc("notes", fmt.Sprintf("n%03d.md", i), fmt.Sprintf("walrus note %d of the colony\n", i))
		d.Hash = fmt.Sprintf("h%03d", i)
		docs = append(docs, d)
	}
	before := goroutinesCreated()
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	// At most one a document: database/sql watches each query's rows (the
	// old hash's) for the transaction's context. Before, 5 a document.
	if n := goroutinesCreated() - before; n > 400 {
		t.Fatalf("one batch of 300 documents started %d goroutines, want at most about one a document (not one a statement)", n)
	}
	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 300 {
		t.Fatalf("walrus found in %d chunks, want 300", len(res.Candidates))
	}
}

// TestApplyCancelled: a cancelled context still stops a batch, which
// writes nothing, and the error says it was cancelled.
func TestApplyCancelled(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{doc("notes", "a.md", "walrus\n")}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply under a cancelled context: %v, want context.Canceled", err)
	}
	if n, err := s.ChunkCount(context.Background()); err != nil || n != 0 {
		t.Fatalf("chunks after a cancelled batch: %d (%v), want 0", n, err)
	}
	// A transaction rolled back between rows reports the cancellation too,
	// not the transaction's state.
	ctx2, cancel2 := context.WithCancel(context.Background())
	_, done := statementContext(ctx2)
	cancel2()
	err = errors.New("sql: transaction has already been committed or rolled back")
	done(&err)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("done: %v, want context.Canceled", err)
	}
}
