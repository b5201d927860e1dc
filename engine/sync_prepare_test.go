package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/sqlite"
)

// preparingBackend opens the SQLite storage and counts, over its store,
// the batches prepared (PrepareApply) and those written by Apply alone.
type preparingBackend struct {
	sqlite.Backend
	prepared, applied *atomic.Int32
}

type preparingStore struct {
	*sqlite.Store
	prepared, applied *atomic.Int32
}

func (b preparingBackend) Open(ctx context.Context, dir string, o cairn.StorageOptions) (cairn.Storage, error) {
	st, err := b.Backend.Open(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	return &preparingStore{Store: st.(*sqlite.Store), prepared: b.prepared, applied: b.applied}, nil
}

func (s *preparingStore) PrepareApply(ctx context.Context, b *cairn.Batch, workers int) (func(context.Context) error, error) {
	s.prepared.Add(1)
	return s.Store.PrepareApply(ctx, b, workers)
}

func (s *preparingStore) Apply(ctx context.Context, b *cairn.Batch) error {
	s.applied.Add(1)
	return s.Store.Apply(ctx, b)
}

// TestSyncPreparesWrites: a sync hands each batch it writes to the
// store's PrepareApply on the preparing goroutines (the SQLite store
// tokenizes the full-text columns there, off its writer), and writes none
// with Apply alone; what it indexed is found. Before PrepareApply every
// batch went to Apply, tokenized on the writer.
func TestSyncPreparesWrites(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nThe walrus of note qz%02dword sings.\n", i, i)
	}
	var prepared, applied atomic.Int32
	f := newFixture(t, files, Options{BatchSize: 16, Backend: preparingBackend{prepared: &prepared, applied: &applied}})
	if got := f.sync(); got.Added != 40 || got.Failed != 0 {
		t.Fatalf("first sync: %+v, want 40 added", counts(got))
	}
	if prepared.Load() != 3 || applied.Load() != 0 {
		t.Fatalf("%d batches prepared, %d applied alone; want 3 (40 files, 16 a batch) and 0", prepared.Load(), applied.Load())
	}
	hits, err := f.eng.Search(context.Background(), "qz07word", &cairn.SearchOptions{Limit: 5, Mode: "lexical"})
	if err != nil || len(hits) != 1 || hits[0].Path != "cairn://notes/n07.md" {
		t.Fatalf("search qz07word: %v, %v; want n07.md", hits, err)
	}
}
