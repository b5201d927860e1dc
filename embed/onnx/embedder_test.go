package onnx

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
)

// tokenizerFunc is a fake Tokenizer.
type tokenizerFunc func(text string) []int

func (f tokenizerFunc) Encode(text string) []int { return f(text) }

// mapTokenizer returns the recorded ids of known texts and fails the test on
// any other text.
func mapTokenizer(t testing.TB, ids map[string][]int) Tokenizer {
	return tokenizerFunc(func(text string) []int {
		v, ok := ids[text]
		if !ok {
			t.Errorf("tokenizer: unexpected text %q", text)
		}
		return v
	})
}

// sharedDir finds the shared folder with the models and the runtime library:
// $CAIRN_SHARED, else a sibling "shared" of the working directory or one of
// its parents. Without it the test is skipped, or fails when
// CAIRN_REQUIRE_SHARED=1 (as in CI).
func sharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("CAIRN_SHARED"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared")
		if _, err := os.Stat(filepath.Join(cand, "models", "use-lite", ModelFile)); err == nil {
			return cand
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if os.Getenv("CAIRN_REQUIRE_SHARED") == "1" {
		t.Fatal("shared folder with models/use-lite not found: set CAIRN_SHARED")
	}
	t.Skip("shared folder with models/use-lite not found (set CAIRN_SHARED)")
	return ""
}

func libraryPath(shared string) string {
	return filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1")
}

type golden struct {
	Text   string    `json:"text"`
	IDs    []int     `json:"ids"`
	First8 []float64 `json:"first8"`
	Norm   float64   `json:"norm"`
}

func readGolden(t testing.TB, dir string) []golden {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var gs []golden
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var g golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("golden.jsonl line %d: %v", len(gs)+1, err)
		}
		gs = append(gs, g)
	}
	if err := sc.Err(); err != nil || len(gs) == 0 {
		t.Fatalf("read golden.jsonl: %d lines, %v", len(gs), err)
	}
	return gs
}

func newUSELite(t testing.TB, tok Tokenizer, batch int) *Embedder {
	t.Helper()
	shared := sharedDir(t)
	e, err := New(Options{ModelDir: filepath.Join(shared, "models", "use-lite"), Library: libraryPath(shared),
		Tokenizer: tok, Batch: batch})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestUSELiteGolden(t *testing.T) {
	shared := sharedDir(t)
	gs := readGolden(t, filepath.Join(shared, "models", "use-lite"))
	ids := map[string][]int{}
	texts := make([]string, len(gs))
	for i, g := range gs {
		ids[g.Text], texts[i] = g.IDs, g.Text
	}
	e := newUSELite(t, mapTokenizer(t, ids), 0)
	id := e.Identity()
	if id.Provider != "onnx" || id.Model != "use-lite@efd926c91a23" || id.Dimension != 512 || !id.Normalized ||
		id.Tokenizer != "tokenizer.json@75dfff23cb9c" {
		t.Errorf("Identity() = %+v", id)
	}
	single := make([][]float32, len(gs))
	for i, g := range gs {
		vecs, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{g.Text})
		if err != nil {
			t.Fatalf("Embed(%q): %v", g.Text, err)
		}
		single[i] = vecs[0]
		checkGolden(t, g, vecs[0])
	}
	for _, batch := range []int{DefaultBatch, 3} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			e := newUSELite(t, mapTokenizer(t, ids), batch)
			vecs, err := e.Embed(context.Background(), cairn.EmbedQuery, texts)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range gs {
				checkGolden(t, g, vecs[i])
				if d := maxDiff(vecs[i], single[i]); d > 1e-5 {
					t.Errorf("%q: batched differs from single by %g", g.Text, d)
				}
			}
		})
	}
}

func checkGolden(t *testing.T, g golden, v []float32) {
	t.Helper()
	if len(v) != 512 {
		t.Fatalf("%q: %d dimensions, want 512", g.Text, len(v))
	}
	for i, want := range g.First8 {
		if math.Abs(float64(v[i])-want) > 1e-5 {
			t.Errorf("%q: dim %d = %.9f, want %.9f", g.Text, i, v[i], want)
		}
	}
	if n := norm(v); math.Abs(n-g.Norm) > 1e-5 {
		t.Errorf("%q: norm %.9f, want %.9f", g.Text, n, g.Norm)
	}
}

func maxDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// Empty texts anywhere in the batch get zero vectors and leave the others
// unchanged; long texts are cut to 128 tokens.
func TestUSELiteEmptyAndLong(t *testing.T) {
	shared := sharedDir(t)
	gs := readGolden(t, filepath.Join(shared, "models", "use-lite"))
	long := slices.Repeat(gs[0].IDs, 30) // 300 tokens
	ids := map[string][]int{"long": long, "long128": long[:128], "nothing": nil}
	for _, g := range gs {
		ids[g.Text] = g.IDs
	}
	e := newUSELite(t, mapTokenizer(t, ids), 0)
	vecs, err := e.Embed(context.Background(), cairn.EmbedDocument,
		[]string{"", gs[0].Text, "nothing", "long", "long128", gs[1].Text, ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2, 6} {
		if len(vecs[i]) != 512 || norm(vecs[i]) != 0 {
			t.Errorf("vector %d: length %d, norm %g; want a zero vector of 512", i, len(vecs[i]), norm(vecs[i]))
		}
	}
	checkGolden(t, gs[0], vecs[1])
	checkGolden(t, gs[1], vecs[5])
	if d := maxDiff(vecs[3], vecs[4]); d > 1e-6 {
		t.Errorf("300 tokens differ from their first 128 by %g", d)
	}
}

func TestUSELiteBadInput(t *testing.T) {
	e := newUSELite(t, tokenizerFunc(func(string) []int { return []int{5, 8002} }), 0)
	if _, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"x"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("id 8002: got %v, want ErrInvalid", err)
	}
	if _, err := e.Embed(context.Background(), "passage", []string{"x"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("kind passage: got %v, want ErrInvalid", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, cairn.EmbedDocument, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	e.Close()
	if _, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"x"}); !errors.Is(err, cairn.ErrUnavailable) {
		t.Errorf("after Close: got %v, want ErrUnavailable", err)
	}
}

func TestNewErrors(t *testing.T) {
	tok := tokenizerFunc(func(string) []int { return nil })
	_, err := New(Options{ModelDir: filepath.Join(t.TempDir(), "missing"), Tokenizer: tok})
	if !errors.Is(err, cairn.ErrUnavailable) {
		t.Errorf("missing model dir: got %v, want ErrUnavailable", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ModelFile), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{ModelDir: dir, Library: filepath.Join(dir, "libonnxruntime.so"), Tokenizer: tok})
	if !errors.Is(err, cairn.ErrUnavailable) || !contains(err.Error(), "CAIRN_ONNXRUNTIME_LIB") {
		t.Errorf("bad library path: got %v, want ErrUnavailable naming CAIRN_ONNXRUNTIME_LIB", err)
	}
	if _, err = New(Options{ModelDir: dir}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("no tokenizer: got %v, want ErrInvalid", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"pooling": "max"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = New(Options{ModelDir: dir, Tokenizer: tok}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("bad manifest: got %v, want ErrInvalid", err)
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || len(s) >= len(sub) && slices.ContainsFunc([]int{0}, func(int) bool { return indexOf(s, sub) >= 0 }) }
