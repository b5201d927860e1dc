package vector

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSaveLoad(t *testing.T) {
	for _, dim := range []int{3, 64, 384} { // odd float count, one code word, six words
		g := newClustered(7, dim, 8, 0.3)
		ix, vecs := g.build(500)
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
		got, err := Load(path, st, false)
		if err != nil {
			t.Fatalf("dim %d: Load: %v", dim, err)
		}
		if got.Len() != ix.Len() || got.Dim() != dim {
			t.Fatalf("dim %d: loaded %d items of dim %d, want %d of %d", dim, got.Len(), got.Dim(), ix.Len(), dim)
		}
		for _, q := range vecs[:20] {
			if diff := cmp.Diff(ix.Search(q, 10, nil), got.Search(q, 10, nil)); diff != "" {
				t.Fatalf("dim %d: search differs after load (-saved +loaded):\n%s", dim, diff)
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
		again, err := Load(path, st, false)
		if err != nil || again.Len() != ix.Len() {
			t.Fatalf("dim %d: file changed by edits of a loaded index: %v, %d items", dim, err, again.Len())
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
