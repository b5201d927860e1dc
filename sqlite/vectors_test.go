package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestVectorsVersion(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	version := func() int64 {
		t.Helper()
		v, err := s.VectorsVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	d := doc("n", "a.md", "alpha\nbeta\n")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{d}}); err != nil {
		t.Fatal(err)
	}
	v0 := version()
	pending, err := s.PendingChunks(ctx, "id-1", 10)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending = %v, %v", pending, err)
	}
	if err := s.PutVectors(ctx, "id-1", []int64{pending[0].ID}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	v1 := version()
	if v1 == v0 {
		t.Error("storing a vector left the version as it was")
	}
	if err := s.PutVectors(ctx, "id-1", []int64{pending[0].ID}, [][]float32{{0, 1}}); err != nil {
		t.Fatal(err)
	}
	v2 := version()
	if v2 == v1 {
		t.Error("replacing a vector left the version as it was")
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Remove: []string{"a.md"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if version() == v2 {
		t.Error("collecting a chunk with a vector left the version as it was")
	}
}
