package vector

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadCorruptBody (issue 13, item 12): one flipped byte anywhere in
// the body (a key, a code, a vector) makes Load refuse the file as
// corrupt, where it used to serve nonsense scores; a version 1 file
// (no checksum) is stale.
func TestLoadCorruptBody(t *testing.T) {
	ix, _ := newClustered(3, 64, 4, 0.3).build(100)
	path := filepath.Join(t.TempDir(), "vectors.bin")
	if err := ix.Save(path, Stamp{}); err != nil {
		t.Fatal(err)
	}
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys := headerSize
	codes := keys + 8*100
	vecs := codes + 8*100
	for name, off := range map[string]int{"key": keys + 3, "code": codes + 17, "vector": vecs + 4*64*50 + 2, "last byte": len(clean) - 1} {
		b := append([]byte(nil), clean...)
		b[off] ^= 0x40
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, populate := range []bool{false, true} {
			if _, err := Load(path, Stamp{}, populate); !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrStale) {
				t.Errorf("%s flipped (populate %v): Load = %v, want ErrCorrupt", name, populate, err)
			}
		}
	}
	v1 := append([]byte(nil), clean...)
	binary.LittleEndian.PutUint32(v1[8:], 1)
	os.WriteFile(path, v1, 0o600)
	if _, err := Load(path, Stamp{}, false); !errors.Is(err, ErrStale) || errors.Is(err, ErrCorrupt) {
		t.Errorf("version 1 file: Load = %v, want ErrStale", err)
	}
	os.WriteFile(path, clean, 0o600)
	if _, err := Load(path, Stamp{}, false); err != nil {
		t.Errorf("intact file: %v", err)
	}
}

// BenchmarkLoadVerify loads a 100k × 384 file (159 MB) as a one-shot
// process does (mapped, not populated), checksum included, which reads
// every page; crc-in-memory is the checksum alone over a heap copy.
// Measured here: 30 ms each (5.2 GB/s), so the page faults of a warm page
// cache add next to nothing and the check is the whole cost.
func BenchmarkLoadVerify(b *testing.B) {
	ix, _ := newClustered(5, 384, 64, 0.3).build(100_000)
	path := filepath.Join(b.TempDir(), "vectors.bin")
	if err := ix.Save(path, Stamp{}); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("load", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if _, err := Load(path, Stamp{}, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("crc-in-memory", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			bodyIntact(data[headerSize:], 0)
		}
	})
}
