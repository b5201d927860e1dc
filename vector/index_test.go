package vector

import (
	"errors"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestAddDimension(t *testing.T) {
	tests := []struct {
		name string
		len  int
		ok   bool
	}{
		{"match", 8, true},
		{"short", 7, false},
		{"long", 9, false},
		{"empty", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := New(8)
			err := ix.Add(1, make([]float32, tt.len))
			if tt.ok != (err == nil) {
				t.Fatalf("Add(len %d) = %v, want ok=%v", tt.len, err, tt.ok)
			}
			if err != nil && !errors.Is(err, cairn.ErrInvalid) {
				t.Fatalf("Add(len %d) = %v, want an error matching cairn.ErrInvalid", tt.len, err)
			}
			if want := map[bool]int{true: 1, false: 0}[tt.ok]; ix.Len() != want {
				t.Fatalf("Len() = %d, want %d", ix.Len(), want)
			}
		})
	}
}

func TestNewPanicsOnBadDim(t *testing.T) {
	for _, dim := range []int{0, -1, MaxDim + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("New(%d) did not panic", dim)
				}
			}()
			New(dim)
		}()
	}
}

func TestSearchWrongQueryDim(t *testing.T) {
	ix := New(4)
	ix.Add(1, []float32{1, 0, 0, 0})
	if got := ix.Search([]float32{1, 0, 0}, 1, nil); got != nil {
		t.Fatalf("Search(dim 3) = %v, want nil", got)
	}
	if got := ix.Exact([]float32{1, 0, 0}, 1, nil); got != nil {
		t.Fatalf("Exact(dim 3) = %v, want nil", got)
	}
}

func TestAddReplaces(t *testing.T) {
	ix := New(4)
	ix.Add(7, []float32{1, 0, 0, 0})
	ix.Add(8, []float32{0, 1, 0, 0})
	ix.Add(7, []float32{0, 0, 1, 0})
	if ix.Len() != 2 {
		t.Fatalf("Len() = %d after replacing, want 2", ix.Len())
	}
	got := ix.Search([]float32{0, 0, 1, 0}, 1, nil)
	if len(got) != 1 || got[0] != (Result{Key: 7, Score: 1}) {
		t.Fatalf("Search for the new vector = %v, want [{7 1}]", got)
	}
	got = ix.Search([]float32{1, 0, 0, 0}, 3, nil)
	for _, r := range got {
		if r.Score != 0 {
			t.Fatalf("Search for the replaced vector = %v, want all scores 0", got)
		}
	}
}

func TestAddCopies(t *testing.T) {
	ix := New(2)
	v := []float32{1, 0}
	ix.Add(1, v)
	v[0] = -1
	if got := ix.Search([]float32{1, 0}, 1, nil); got[0].Score != 1 {
		t.Fatalf("Search after mutating the caller's slice = %v, want score 1", got)
	}
}

func TestRemove(t *testing.T) {
	g := newClustered(1, 64, 10, 1)
	ix, vs := g.build(1000)
	removed := map[int64]bool{}
	for k := int64(0); k < 1000; k += 3 {
		if !ix.Remove(k) {
			t.Fatalf("Remove(%d) = false, want true", k)
		}
		removed[k] = true
	}
	if ix.Remove(0) {
		t.Fatal("Remove(0) twice = true, want false")
	}
	if want := 1000 - len(removed); ix.Len() != want {
		t.Fatalf("Len() = %d, want %d", ix.Len(), want)
	}
	for i, q := range vs[:200] {
		for _, r := range ix.Search(q, 20, nil) {
			if removed[r.Key] {
				t.Fatalf("query %d: Search returned removed key %d", i, r.Key)
			}
		}
		// A kept item is still its own nearest neighbor, so the moved
		// slots kept their vectors and codes together.
		if !removed[int64(i)] {
			if got := ix.Search(q, 1, nil); got[0].Key != int64(i) {
				t.Fatalf("query %d: top hit %v, want key %d", i, got, i)
			}
		}
	}
	for k := range removed {
		ix.Remove(k + 1)
		ix.Remove(k + 2)
	}
	if ix.Len() != 0 {
		t.Fatalf("Len() = %d after removing everything, want 0", ix.Len())
	}
	if got := ix.Search(vs[0], 5, nil); got != nil {
		t.Fatalf("Search on emptied index = %v, want nil", got)
	}
}

func TestEmptyIndex(t *testing.T) {
	ix := New(16)
	q := make([]float32, 16)
	if got := ix.Search(q, 10, nil); got != nil {
		t.Fatalf("Search = %v, want nil", got)
	}
	if got := ix.Exact(q, 10, nil); got != nil {
		t.Fatalf("Exact = %v, want nil", got)
	}
	if ix.Remove(1) {
		t.Fatal("Remove = true, want false")
	}
}

func TestConcurrent(t *testing.T) {
	g := newClustered(2, 128, 10, 1)
	ix, vs := g.build(2000)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				if got := ix.Search(vs[(w*200+i)%len(vs)], 10, nil); len(got) == 0 {
					t.Errorf("Search returned nothing")
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 500 {
			ix.Remove(int64(i))
			ix.Add(int64(i), vs[i])
		}
	})
	wg.Wait()
	if ix.Len() != 2000 {
		t.Fatalf("Len() = %d, want 2000", ix.Len())
	}
}
