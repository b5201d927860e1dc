package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIGraphCache: a one-shot hybrid search keeps the model's optimized
// graph in the data directory's cache/onnx (embed/onnx cache.go), and the
// next search, made from it, prints the same hits; a damaged file is
// rebuilt and the hits stay the same.
func TestCLIGraphCache(t *testing.T) {
	shared := sharedDir(t)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Garden\n\nThe tomatoes need more compost and water.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Money\n\nQuarterly budget review with the finance team.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"onnx\"\nmodel = %q\nlibrary = %q\n",
		filepath.Join(shared, "models", "use-lite"), filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"))
	f.Close()
	c.ok("sync")
	find := func() []string {
		var found []string
		filepath.WalkDir(c.home, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "onnx" && strings.HasSuffix(p, ".ort") {
				found = append(found, p)
			}
			return nil
		})
		return found
	}
	files := find()
	if len(files) != 1 || !strings.HasSuffix(filepath.Dir(filepath.Dir(files[0])), "cache") {
		t.Fatalf("after sync, cache files %v: want one under cache/onnx in the data directory", files)
	}
	first := c.ok("search", "vegetables in my backyard", "--mode", "hybrid", "--json")
	again := c.ok("search", "vegetables in my backyard", "--mode", "hybrid", "--json")
	if again != first || !strings.Contains(first, "a.md") {
		t.Errorf("from the cache: %s\nwithout: %s", again, first)
	}
	raw, _ := os.ReadFile(files[0])
	raw[len(raw)-100] ^= 1
	os.WriteFile(files[0], raw, 0o600)
	if damaged := c.ok("search", "vegetables in my backyard", "--mode", "hybrid", "--json"); damaged != first {
		t.Errorf("after damage: %s\nwant: %s", damaged, first)
	}
	if got := find(); len(got) != 1 {
		t.Errorf("after damage, cache files %v", got)
	} else if fixed, _ := os.ReadFile(got[0]); string(fixed) == string(raw) {
		t.Errorf("the damaged cache file was kept")
	}
}

// TestCLICacheDirPrivate: the graph cache is $CAIRN_HOME/cache/onnx, one
// for all agents (not inside an agent's folder, as the README said), and
// its folders are 0700 like the rest of what Cairn writes, folders an
// earlier build left 0755 included (before: 0755 kept).
func TestCLICacheDirPrivate(t *testing.T) {
	shared := sharedDir(t)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Garden\n\nThe tomatoes need more compost and water.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"onnx\"\nmodel = %q\nlibrary = %q\n",
		filepath.Join(shared, "models", "use-lite"), filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"))
	f.Close()
	cache := filepath.Join(c.home, "cache")
	for _, d := range []string{cache, filepath.Join(cache, "onnx")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o755) // as an earlier build left it, past the umask
	}
	c.ok("sync")
	if m, _ := filepath.Glob(filepath.Join(cache, "onnx", "*.ort")); len(m) != 1 {
		t.Errorf("cache files in $CAIRN_HOME/cache/onnx: %v, want one", m)
	}
	for _, d := range []string{cache, filepath.Join(cache, "onnx")} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want 0700", d, fi.Mode().Perm(), err)
		}
	}
}
