package vector

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSaveLoad(t *testing.T) {
	for _, tc := range []struct {
		dim, n int
	}{
		{3, 500},    // odd float count
		{64, 500},   // one code word
		{384, 500},  // six words
		{512, 1100}, // vectors past 2 MB: huge-page blocks on Linux (mem.go)
	} {
		for _, populate := range []bool{false, true} {
			dim := tc.dim
			g := newClustered(7, dim, 8, 0.3)
			ix, vecs := g.build(tc.n)
			ix.Remove(3) // a slot moved: keys are not 0..n-1 in order
			path := filepath.Join(t.TempDir(), "vectors.bin")
			st := Stamp{Version: 42}
			copy(st.Tag[:], "model-a")
			if err := ix.Save(path, st); err != nil {
				t.Fatal(err)
			}
			if read, err := FileStamp(path); err != nil || read != st {
				t.Fatalf("dim %d: FileStamp = %v, %v; want %v", dim, read, err, st)
			}
			got, err := Load(path, st, populate)
			if err != nil {
				t.Fatalf("dim %d populate %v: Load: %v", dim, populate, err)
			}
			if got.Len() != ix.Len() || got.Dim() != dim {
				t.Fatalf("dim %d: loaded %d items of dim %d, want %d of %d", dim, got.Len(), got.Dim(), ix.Len(), dim)
			}
			if populate {
				got.Settle() // as a long-lived process does
			}
			big := 4*tc.n*dim >= hugePage
			if blocksUsed && big && (ix.vecsMem == nil || populate && got.vecsMem == nil) {
				t.Errorf("dim %d populate %v: %d KB of vectors not in a block (built %v, loaded and settled %v)",
					dim, populate, 4*tc.n*dim/1024, ix.vecsMem != nil, got.vecsMem != nil)
			}
			for _, q := range vecs[:20] {
				if diff := cmp.Diff(ix.Search(q, 10, nil), got.Search(q, 10, nil)); diff != "" {
					t.Fatalf("dim %d populate %v: search differs after load (-saved +loaded):\n%s", dim, populate, diff)
				}
			}
			// Changes after a load copy the mapped file first, and leave it as
			// it was.
			if !got.Remove(10) || got.Remove(3) {
				t.Errorf("dim %d: Remove after Load: the key map is wrong", dim)
			}
			if err := got.Add(10, vecs[11]); err != nil {
				t.Fatal(err)
			}
			if res := got.Search(vecs[11], 2, nil); len(res) != 2 || res[0].Score < 0.999 || res[1].Score < 0.999 {
				t.Errorf("dim %d: after re-adding key 10 as a copy of 11: %+v", dim, res)
			}
			// Growing past the loaded room moves every array; the index
			// still answers like one built directly.
			extra := g.next()
			for k := range tc.n / 2 {
				if err := got.Add(int64(tc.n+k), extra); err != nil {
					t.Fatal(err)
				}
				if err := ix.Add(int64(tc.n+k), extra); err != nil {
					t.Fatal(err)
				}
			}
			ix.Remove(10)
			ix.Add(10, vecs[11])
			for _, q := range vecs[20:30] {
				if diff := cmp.Diff(ix.Search(q, 10, nil), got.Search(q, 10, nil)); diff != "" {
					t.Fatalf("dim %d populate %v: search differs after growing (-built +loaded):\n%s", dim, populate, diff)
				}
			}
			again, err := Load(path, st, populate)
			if err != nil || again.Len() != tc.n-1 {
				t.Fatalf("dim %d: file changed by edits of a loaded index: %v, %d items", dim, err, again.Len())
			}
		}
	}
}

func TestLoadStale(t *testing.T) {
	ix, _ := newClustered(1, 16, 2, 0.3).build(10)
	path := filepath.Join(t.TempDir(), "vectors.bin")
	st := Stamp{Version: 1}
	if err := ix.Save(path, st); err != nil {
		t.Fatal(err)
	}
	other := st
	other.Version = 2
	tagged := st
	tagged.Tag[0] = 'x'
	for name, want := range map[string]Stamp{"newer store": other, "other model": tagged} {
		if _, err := Load(path, want, true); !errors.Is(err, ErrStale) {
			t.Errorf("%s: Load = %v, want ErrStale", name, err)
		}
	}
	// A cut file is stale too, never read past its end.
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)-8], 0o644)
	if _, err := Load(path, st, false); !errors.Is(err, ErrStale) {
		t.Errorf("truncated file: Load = %v, want ErrStale", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none"), st, false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: Load = %v, want not exist", err)
	}
}

// TestSettleDuringSearches moves a mapped index into its own memory while
// searches run and checks every answer, before, during and after, is the
// same. Under -race the arrays are Go slices (mem_other.go), which the
// detector can watch.
func TestSettleDuringSearches(t *testing.T) {
	ix, vecs, path := savedIndex(t, 9)
	got := loadMapped(t, path)
	want := make([][]Result, 20)
	for i := range want {
		want[i] = ix.Search(vecs[i], 10, nil)
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 50 {
				i := (w + r) % len(want)
				if diff := cmp.Diff(want[i], got.Search(vecs[i], 10, nil)); diff != "" {
					t.Errorf("search %d during Settle differs:\n%s", i, diff)
					return
				}
			}
		}()
	}
	got.Settle()
	wg.Wait()
	got.Settle() // a second call finds nothing mapped
	if blocksUsed && got.vecsMem == nil {
		t.Error("vectors not in a block after Settle")
	}
	for i := range want {
		if diff := cmp.Diff(want[i], got.Search(vecs[i], 10, nil)); diff != "" {
			t.Fatalf("search %d after Settle differs:\n%s", i, diff)
		}
	}
}

// TestSettleRacesAdd runs Settle beside changes to the same mapped index:
// whichever copies the mapping first, the index ends up with every change
// and answers like one built directly.
func TestSettleRacesAdd(t *testing.T) {
	_, vecs, path := savedIndex(t, 10)
	for round := range 5 {
		got, want := loadMapped(t, path), loadMapped(t, path)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			got.Settle()
		}()
		for k := range 20 {
			v := vecs[(k*37+round)%len(vecs)]
			key := int64(2000 + k)
			if err := got.Add(key, v); err != nil {
				t.Fatal(err)
			}
			want.Add(key, v)
			if k%5 == 0 {
				got.Remove(int64(k))
				want.Remove(int64(k))
			}
		}
		wg.Wait()
		got.Settle()
		if got.Len() != want.Len() {
			t.Fatalf("round %d: %d items, want %d", round, got.Len(), want.Len())
		}
		for _, q := range vecs[:10] {
			if diff := cmp.Diff(want.Search(q, 10, nil), got.Search(q, 10, nil)); diff != "" {
				t.Fatalf("round %d: search differs (-want +got):\n%s", round, diff)
			}
		}
	}
}

// TestSettleFileCutShort: a file cut short under the mapping faults where
// it is read. Settle must give up its copy, not crash the process (the
// engine's tests damage the file in place while a settle may run).
func TestSettleFileCutShort(t *testing.T) {
	_, _, path := savedIndex(t, 11)
	got := loadMapped(t, path)
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	got.Settle()
	if got.vecsMem != nil || got.mapping == nil {
		t.Error("Settle finished a copy of a file cut short")
	}
	// The lock was released on the way out: a change can take it.
	done := make(chan struct{})
	go func() {
		got.mu.Lock()
		got.mu.Unlock()
		close(done)
	}()
	<-done
}

// savedIndex builds an index whose vectors pass 2 MB (so they get a
// block where blocks are used) and saves it; it returns the index, its
// vectors and the file.
func savedIndex(t *testing.T, seed uint64) (*Index, [][]float32, string) {
	t.Helper()
	ix, vecs := newClustered(seed, 512, 8, 0.3).build(1100)
	path := filepath.Join(t.TempDir(), "vectors.bin")
	if err := ix.Save(path, Stamp{}); err != nil {
		t.Fatal(err)
	}
	return ix, vecs, path
}

// loadMapped loads path mapped, as a one-shot process does.
func loadMapped(t *testing.T, path string) *Index {
	t.Helper()
	ix, err := Load(path, Stamp{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
