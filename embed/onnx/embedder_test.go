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
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/tokenize"
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

// sharedDir finds the shared folder with the model and the runtime
// library (testshared: skipped without it, failed under
// CAIRN_REQUIRE_SHARED=1).
func sharedDir(t testing.TB) string {
	t.Helper()
	return testshared.Dir(t, testshared.Model, testshared.Library)
}

func libraryPath(shared string) string { return filepath.Join(shared, testshared.Library) }

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
	for _, batch := range []int{DefaultBatch, 3, 32} {
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

// Concurrent calls share the sessions and each gets its own texts' vectors.
func TestUSELiteConcurrent(t *testing.T) {
	shared := sharedDir(t)
	gs := readGolden(t, filepath.Join(shared, "models", "use-lite"))
	ids := map[string][]int{}
	for _, g := range gs {
		ids[g.Text] = g.IDs
	}
	e := newUSELite(t, mapTokenizer(t, ids), 2)
	var wg sync.WaitGroup
	for k := range 4 {
		wg.Go(func() {
			texts := []string{gs[k].Text, gs[k+4].Text, gs[9-k].Text}
			vecs, err := e.Embed(context.Background(), cairn.EmbedDocument, texts)
			if err != nil {
				t.Error(err)
				return
			}
			checkGolden(t, gs[k], vecs[0])
			checkGolden(t, gs[k+4], vecs[1])
			checkGolden(t, gs[9-k], vecs[2])
		})
	}
	wg.Wait()
}

func TestUSELiteBadInput(t *testing.T) {
	e := newUSELite(t, mapTokenizer(t, map[string][]int{"bad": {5, 8002}, "x": {20, 21}}), 0)
	if _, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"x", "bad"}); !errors.Is(err, cairn.ErrInvalid) {
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
	if !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), "CAIRN_ONNXRUNTIME_LIB") {
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

// The ragged layout of the model README's example: "Good morning!" and
// "hello".
func TestRaggedInputs(t *testing.T) {
	indices, values := raggedInputs([][]int64{{702, 1453, 78}, {2002, 102}})
	if want := []int64{702, 1453, 78, 2002, 102}; !slices.Equal(values, want) {
		t.Errorf("values = %v, want %v", values, want)
	}
	if want := []int64{0, 0, 0, 1, 0, 2, 1, 0, 1, 1}; !slices.Equal(indices, want) {
		t.Errorf("indices = %v, want %v", indices, want)
	}
}

func TestPlan(t *testing.T) {
	toks := [][]int64{{1}, nil, {1, 2, 3}, {1, 2}, {}, {1, 2, 3}, {4}}
	got := plan(toks, 2)
	want := [][]int{{2, 5}, {3, 0}, {6}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("plan = %v, want %v", got, want)
	}
}

// BenchmarkEmbedUSELite embeds 100 short texts (8 to 24 tokens) per
// iteration with the default workers and batch; texts/s is the figure to
// compare with the 600 short chunks/s goal, cpu-ms/text the cost per text
// whatever else the machine runs.
func BenchmarkEmbedUSELite(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := map[string][]int{}
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d", i)
		t := make([]int, 8+rng.IntN(17))
		for j := range t {
			t[j] = 6 + rng.IntN(7994)
		}
		ids[texts[i]] = t
	}
	e := newUSELite(b, mapTokenizer(b, ids), 0)
	ctx := context.Background()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := e.Embed(ctx, cairn.EmbedDocument, texts); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(b.N * len(texts))
	b.ReportMetric(n/b.Elapsed().Seconds(), "texts/s")
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e3/n, "cpu-ms/text") // holds on a busy machine
}

// cpuTime is the user and system time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Real texts of every length (paragraphs of the model's README and
// LICENSE, up to and past 128 tokens) get the same vectors in batches of
// the default size, in batches of 32 and one at a time: sorting by length
// and batching change which texts share a run, never a text's vector.
func TestUSELiteBatchesMatchSingle(t *testing.T) {
	shared := sharedDir(t)
	dir := filepath.Join(shared, "models", "use-lite")
	tok, err := tokenize.Load(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, name := range []string{"README.md", "LICENSE"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Split(string(raw), "\n\n") {
			if p = strings.TrimSpace(p); p != "" {
				texts = append(texts, p)
			}
		}
	}
	texts = texts[:min(len(texts), 60)]
	lens := map[bool]int{}
	for _, s := range texts {
		lens[len(tok.Encode(s)) >= 128]++
	}
	if lens[true] == 0 || lens[false] < 10 {
		t.Fatalf("want texts past 128 tokens and shorter ones, got %v", lens)
	}
	single := newUSELite(t, tok, 1)
	want := make([][]float32, len(texts))
	for i, s := range texts {
		v, err := single.Embed(context.Background(), cairn.EmbedDocument, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v[0]
	}
	for _, batch := range []int{0, 2, 8, 32} {
		got, err := newUSELite(t, tok, batch).Embed(context.Background(), cairn.EmbedDocument, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			if d := maxDiff(got[i], want[i]); d > 1e-5 {
				t.Errorf("batch %d, text %d (%d tokens): differs from single by %g", batch, i, len(tok.Encode(texts[i])), d)
			}
		}
	}
	// Other neighbours in each batch (the texts reversed, so the sort by
	// length groups them otherwise), and one session of two threads.
	rev := slices.Clone(texts)
	slices.Reverse(rev)
	two, err := New(Options{ModelDir: dir, Library: libraryPath(sharedDir(t)), Tokenizer: tok, Workers: 1, Threads: 2, Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	for _, e := range []struct {
		name string
		emb  *Embedder
	}{{"reversed, batch 4", newUSELite(t, tok, 4)}, {"reversed, one session of two threads", two}} {
		got, err := e.emb.Embed(context.Background(), cairn.EmbedDocument, rev)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rev {
			if d := maxDiff(got[i], want[len(rev)-1-i]); d > 1e-5 {
				t.Errorf("%s, text %d: differs from single by %g", e.name, len(rev)-1-i, d)
			}
		}
	}
}

// The memory arena and memory pattern off (Options.NoArena, NoMemPattern:
// measurement settings) change where the sessions allocate, not what they
// compute: the golden vectors still come out.
func TestUSELiteArenaOff(t *testing.T) {
	shared := sharedDir(t)
	gs := readGolden(t, filepath.Join(shared, "models", "use-lite"))
	ids := map[string][]int{}
	texts := make([]string, len(gs))
	for i, g := range gs {
		ids[g.Text], texts[i] = g.IDs, g.Text
	}
	for _, o := range []Options{{NoArena: true}, {NoMemPattern: true}, {NoArena: true, NoMemPattern: true}} {
		o.ModelDir, o.Library, o.Tokenizer = filepath.Join(shared, "models", "use-lite"), libraryPath(shared), mapTokenizer(t, ids)
		e, err := New(o)
		if err != nil {
			t.Fatalf("New(NoArena %v, NoMemPattern %v): %v", o.NoArena, o.NoMemPattern, err)
		}
		vecs, err := e.Embed(context.Background(), cairn.EmbedDocument, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range gs {
			checkGolden(t, g, vecs[i])
		}
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}
