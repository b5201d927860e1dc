package onnx

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/tokenize"
)

// cacheFile returns the one cache file in dir and its inode.
func cacheFile(t *testing.T, dir string) (string, uint64) {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "onnx-*.ort"))
	if err != nil || len(m) != 1 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("cache files in %s: %v (%v), folder holds %v", dir, m, err, entries)
	}
	fi, err := os.Stat(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return m[0], fi.Sys().(*syscall.Stat_t).Ino
}

// The optimized graph is saved by the first New and read by the next
// ones, whose vectors and identity equal an uncached embedder's; a damaged
// file is found, removed and rebuilt, never used.
func TestUSELiteGraphCache(t *testing.T) {
	shared := sharedDir(t)
	dir := filepath.Join(shared, "models", "use-lite")
	tok, err := tokenize.Load(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"mountain weather", "which thing did we decide about the release?", ""}
	for _, g := range readGolden(t, dir) {
		texts = append(texts, g.Text)
	}
	ctx := context.Background()
	embed := func(cacheDir string) ([][]float32, cairn.EmbedderIdentity) {
		t.Helper()
		e, err := New(Options{ModelDir: dir, Library: libraryPath(shared), Tokenizer: tok, CacheDir: cacheDir})
		if err != nil {
			t.Fatalf("New(CacheDir %q): %v", cacheDir, err)
		}
		defer func() {
			if err := e.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}()
		v, err := e.Embed(ctx, cairn.EmbedDocument, texts)
		if err != nil {
			t.Fatal(err)
		}
		return v, e.Identity()
	}
	want, wantID := embed("")
	check := func(step string, got [][]float32, id cairn.EmbedderIdentity) {
		t.Helper()
		if id != wantID {
			t.Errorf("%s: identity %+v, want %+v", step, id, wantID)
		}
		for i := range want {
			if d := maxDiff(got[i], want[i]); d > 1e-5 {
				t.Errorf("%s: text %d differs from the uncached embedder by %g", step, i, d)
			}
		}
	}
	cache := filepath.Join(t.TempDir(), "cache", "onnx")
	got, id := embed(cache) // builds the file
	check("first", got, id)
	path, ino := cacheFile(t, cache)
	got, id = embed(cache) // reads it
	check("cached", got, id)
	if _, ino2 := cacheFile(t, cache); ino2 != ino {
		t.Errorf("the second New rewrote the cache file (inode %d -> %d): not read", ino, ino2)
	}
	// A flipped byte in the body (the weights): the checksum finds it.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x40
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	got, id = embed(cache)
	check("damaged", got, id)
	// Compared by content, not inode: the rebuilt file may be given the
	// inode the removed one freed (seen here about one run in three).
	path, _ = cacheFile(t, cache)
	if now, err := os.ReadFile(path); err != nil || bytes.Equal(now, raw) {
		t.Errorf("a damaged cache file was kept (%v)", err)
	}
	if _, err := mapCache(path); err != nil {
		t.Errorf("rebuilt cache file: %v", err)
	}
	// A torn file (cut short) is rebuilt as well.
	if err := os.Truncate(path, 5000); err != nil {
		t.Fatal(err)
	}
	got, id = embed(cache)
	check("torn", got, id)
	path, _ = cacheFile(t, cache)
	if _, err := mapCache(path); err != nil {
		t.Errorf("rebuilt cache file: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(cache, "*"))
	if len(left) != 1 {
		t.Errorf("cache folder holds %v, want the one file", left)
	}
}

// A changed model.onnx (another model written over it) is not answered
// from the old model's cache: the new model's vectors and identity.
func TestGraphCacheModelChanged(t *testing.T) {
	shared := sharedDir(t)
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	ids := map[string][]int{"a": {1}}
	embed := func() ([]float32, cairn.EmbedderIdentity) {
		t.Helper()
		e, err := New(Options{ModelDir: dir, Library: libraryPath(shared), Tokenizer: mapTokenizer(t, ids),
			CacheDir: cache, Workers: 1})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		defer e.Close()
		v, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"a"})
		if err != nil {
			t.Fatal(err)
		}
		return v[0], e.Identity()
	}
	write := func(row []float32, mtime time.Time) {
		t.Helper()
		path := filepath.Join(dir, ModelFile)
		if err := os.WriteFile(path, tinyModel([][]float32{{1, 1}, row}, false), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	write([]float32{3, 4}, at)
	v1, id1 := embed()
	v1again, _ := embed() // from the cache
	// The same size and inode, another modification time: what an
	// editor saving in place or a copy over the file leaves.
	write([]float32{4, 3}, at.Add(time.Second))
	v2, id2 := embed()
	if maxDiff(v1, []float32{0.6, 0.8}) > 1e-6 || maxDiff(v1again, v1) > 1e-6 {
		t.Errorf("first model: %v then %v, want [0.6 0.8]", v1, v1again)
	}
	if maxDiff(v2, []float32{0.8, 0.6}) > 1e-6 {
		t.Errorf("changed model: %v, want [0.8 0.6] (the old model's cache answered?)", v2)
	}
	if id1.Model == id2.Model {
		t.Errorf("identity %q unchanged after the model changed", id1.Model)
	}
	v3, id3 := embed() // the rebuilt cache
	if maxDiff(v3, v2) > 1e-6 || id3 != id2 {
		t.Errorf("from the rebuilt cache: %v %+v, want %v %+v", v3, id3, v2, id2)
	}
}

// TestPrivateCacheDir: the cache folder and the folders above it that it
// creates are 0700 (before, 0755), and one left 0755 by an earlier build
// is tightened.
func TestPrivateCacheDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cache", "onnx")
	if err := privateDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(root, "cache"), dir} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want 0700", d, fi.Mode().Perm(), err)
		}
	}
	old := filepath.Join(root, "old")
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := privateDir(old); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(old); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder made 0755 by an earlier build: %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}
