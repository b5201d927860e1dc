package vector

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestVector: Vector returns a copy of the stored vector, by key, from an
// index built in memory and from one loaded from a file (no key map yet).
func TestVector(t *testing.T) {
	ix := New(3)
	for k, v := range map[int64][]float32{7: {1, 0, 0}, 9: {0, 0.6, 0.8}} {
		if err := ix.Add(k, v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "v.bin")
	stamp := Stamp{Version: 1}
	if err := ix.Save(path, stamp); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path, stamp, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*Index{"built": ix, "loaded": loaded} {
		v, ok := x.Vector(9)
		if !ok || !slices.Equal(v, []float32{0, 0.6, 0.8}) {
			t.Errorf("%s: Vector(9) = %v, %v", name, v, ok)
		}
		v[0] = 5 // a copy: the index keeps its own
		if again, _ := x.Vector(9); again[0] != 0 {
			t.Errorf("%s: Vector returned the stored slice", name)
		}
		if _, ok := x.Vector(8); ok {
			t.Errorf("%s: Vector(8) found a key never added", name)
		}
	}
}
