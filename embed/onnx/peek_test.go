package onnx

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/tokenize"
)

// PeekIdentity reads the identity New gives from the cache file New
// wrote, finds nothing before it, for another quantization, or once the
// model file's modification time changed.
func TestPeekIdentity(t *testing.T) {
	shared := sharedDir(t)
	dir := filepath.Join(t.TempDir(), "use-lite")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(shared, "models", "use-lite")
	for _, f := range []string{ModelFile, TokenizerFile} {
		raw, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := Options{ModelDir: dir, Library: libraryPath(shared), Tokenizer: mapTokenizer(t, nil),
		CacheDir: filepath.Join(t.TempDir(), "cache"), Workers: 1}
	if id, ok := PeekIdentity(o); ok {
		t.Fatalf("peek before any cache file: %+v", id)
	}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	want := e.Identity()
	e.Close()
	id, ok := PeekIdentity(o)
	if !ok || id != want {
		t.Fatalf("peek = %+v, %v; New's identity %+v", id, ok, want)
	}
	if id.Dimension != 512 || id.Tokenizer == "" {
		t.Errorf("peeked identity %+v: want dimension 512 and the tokenizer's hash", id)
	}
	q := o
	q.Quantize = QuantizeInt8
	if id, ok := PeekIdentity(q); ok {
		t.Errorf("peek for int8 from the FP32 file: %+v", id)
	}
	if id, ok := PeekIdentity(Options{ModelDir: dir}); ok {
		t.Errorf("peek without a cache folder: %+v", id)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(dir, ModelFile), later, later); err != nil {
		t.Fatal(err)
	}
	if id, ok := PeekIdentity(o); ok {
		t.Errorf("peek after the model file changed: %+v", id)
	}
}

// The vectors a one-shot search now makes, with tokenize.LoadFast and the
// model from its cache file, equal bit for bit those of tokenize.Load and
// the model read and optimized anew (the path before either change).
func TestUSELiteFastTokenizerSameVectors(t *testing.T) {
	shared := sharedDir(t)
	dir := filepath.Join(shared, "models", "use-lite")
	texts := []string{"mountain weather", "which thing did we decide about the release?", "", "Ünïcödé ➜ 東京"}
	for _, g := range readGolden(t, dir) {
		texts = append(texts, g.Text)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	embed := func(load func(string) (*tokenize.Tokenizer, error), cacheDir string) [][]float32 {
		t.Helper()
		e, err := New(Options{ModelDir: dir, Library: libraryPath(shared), CacheDir: cacheDir, Workers: 1,
			LoadTokenizer: func(p string) (Tokenizer, error) { return load(p) }})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		v, err := e.Embed(context.Background(), cairn.EmbedQuery, texts)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := embed(tokenize.Load, "")
	embed(tokenize.LoadFast, cache) // writes the cache file
	after := embed(tokenize.LoadFast, cache)
	for i := range texts {
		if !slices.Equal(before[i], after[i]) {
			t.Errorf("text %d (%q): vectors differ, max %g", i, texts[i], maxDiff(before[i], after[i]))
		}
	}
}

// IdentityFor, with no cache file to peek at, reads the identity New
// gives from the model itself, for FP32 and INT8; QuantizedIdentity turns
// either into the other; a missing model is an error.
func TestIdentityFor(t *testing.T) {
	shared := sharedDir(t)
	o := Options{ModelDir: filepath.Join(shared, "models", "use-lite"), Library: libraryPath(shared), Tokenizer: mapTokenizer(t, nil), Workers: 1}
	ids := map[string]cairn.EmbedderIdentity{}
	for _, q := range []string{QuantizeNone, QuantizeInt8} {
		o.Quantize = q
		got, err := IdentityFor(o)
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		want := e.Identity()
		e.Close()
		if got != want {
			t.Errorf("quantize %q: IdentityFor = %+v, New's identity %+v", q, got, want)
		}
		ids[q] = got
	}
	if ids[QuantizeNone] == ids[QuantizeInt8] {
		t.Fatalf("FP32 and INT8 share an identity: %+v", ids[QuantizeNone])
	}
	for from, fid := range ids {
		for to, tid := range ids {
			if got := QuantizedIdentity(fid, to); got != tid {
				t.Errorf("QuantizedIdentity(%q identity, %q) = %+v, want %+v", from, to, got, tid)
			}
		}
	}
	if got := QuantizedIdentity(ids[QuantizeInt8], "none"); got != ids[QuantizeNone] {
		t.Errorf(`QuantizedIdentity(int8 identity, "none") = %+v`, got)
	}
	o.ModelDir = t.TempDir()
	if id, err := IdentityFor(o); err == nil {
		t.Errorf("IdentityFor of an empty folder = %+v, want an error", id)
	}
}
