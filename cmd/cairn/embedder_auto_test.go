package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

// pickQuantize: the identity with vectors wins, or the one with more,
// whatever the CPU; none of either, or a tie, goes the CPU's way.
func TestPickQuantize(t *testing.T) {
	cpu := autoChoice{Quantize: onnx.QuantizeInt8, ByCPU: true, Why: "cpu"}
	for _, tt := range []struct {
		fp, q8 int
		want   string
		byCPU  bool
	}{
		{0, 0, onnx.QuantizeInt8, true},
		{1, 0, onnx.QuantizeNone, false},
		{10, 3, onnx.QuantizeNone, false},
		{3, 10, onnx.QuantizeInt8, false},
		{4, 4, onnx.QuantizeInt8, true},
	} {
		if got := pickQuantize(tt.fp, tt.q8, cpu); got.Quantize != tt.want || got.ByCPU != tt.byCPU || got.Why == "" {
			t.Errorf("fp %d, int8 %d: %+v, want %q (by CPU %v)", tt.fp, tt.q8, got, tt.want, tt.byCPU)
		}
	}
	cpu.Quantize = onnx.QuantizeNone
	if got := pickQuantize(0, 1, cpu); got.Quantize != onnx.QuantizeInt8 {
		t.Errorf("an int8 index on a CPU without VNNI: %+v, want int8 kept", got)
	}
	if got := pickQuantize(0, 0, cpu); got.Quantize != onnx.QuantizeNone {
		t.Errorf("a new index on a CPU without VNNI: %+v, want none", got)
	}
}

// autoHome is a CLI home whose notes (a.md, b.md) are configured with
// USE-lite under quantize.
func autoHome(t *testing.T, quantize string) (*cli, string) {
	t.Helper()
	shared := sharedDir(t)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Garden\n\nThe tomatoes need more compost and water.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Money\n\nQuarterly budget review with the finance team.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	f, _ := os.OpenFile(filepath.Join(c.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"onnx\"\nmodel = %q\nlibrary = %q\nquantize = %q\n",
		filepath.Join(shared, "models", "use-lite"), filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"), quantize)
	f.Close()
	return c, notes
}

// toAuto rewrites c's quantize = from as quantize = "auto".
func toAuto(c *cli, from string) {
	path := filepath.Join(c.home, "config.toml")
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(raw), fmt.Sprintf("quantize = %q", from), `quantize = "auto"`, 1)), 0o600)
}

var embeddedLine = regexp.MustCompile(`embedded (\d+) chunks`)

// syncEmbedded runs sync: how many chunks it embedded, and its stderr.
func syncEmbedded(t *testing.T, c *cli) (int, string) {
	t.Helper()
	out, errs, code := c.run("sync")
	if code != 0 {
		t.Fatalf("sync: exit %d: %s", code, errs)
	}
	m := embeddedLine.FindStringSubmatch(out)
	if m == nil { // nothing waited for vectors: sync says nothing of embedding
		return 0, errs
	}
	n, _ := strconv.Atoi(m[1])
	return n, errs
}

// hybridFinds: a hybrid search of a paraphrase finds a.md from the
// vectors (no "waiting for vectors").
func hybridFinds(t *testing.T, c *cli) {
	t.Helper()
	out, errs, code := c.run("search", "vegetables in my backyard", "--mode", "hybrid")
	if code != 0 || !strings.Contains(out, "a.md") || strings.Contains(errs, "waiting for vectors") {
		t.Errorf("hybrid search: exit %d\n%s%s", code, out, errs)
	}
}

// storedQuant reports which of USE-lite's identities c's index has
// vectors of.
func storedQuant(t *testing.T, c *cli) (fp, q8 bool) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Backend{}.Open(ctx, filepath.Join(c.home, "agents", "default"), cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := modelIdentity(&config.Embedder{Provider: "onnx", Model: filepath.Join(sharedDir(t), "models", "use-lite")}, "")
	if err != nil {
		t.Fatal(err)
	}
	p := st.(cairn.VectorProber)
	fp, err1 := p.HasVectors(ctx, onnx.QuantizedIdentity(id, onnx.QuantizeNone).Key())
	q8, err2 := p.HasVectors(ctx, onnx.QuantizedIdentity(id, onnx.QuantizeInt8).Key())
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	return fp, q8
}

func addNote(notes string) {
	os.WriteFile(filepath.Join(notes, "c.md"), []byte("# Travel\n\nTrain tickets to the coast for the summer holiday.\n"), 0o644)
}

// quantize = "auto" with USE-lite: an index synced FP32 stays FP32 and
// one synced INT8 stays INT8 (a new note then embeds that note alone, not
// every chunk again, and sync says nothing of the choice); a new index
// takes the CPU's pick, which sync says with its reason, and stores
// vectors of that identity; hybrid search answers from the vectors every
// time.
func TestCLIQuantizeAuto(t *testing.T) {
	for _, from := range []string{"none", "int8"} {
		c, notes := autoHome(t, from)
		if n, _ := syncEmbedded(t, c); n != 2 {
			t.Fatalf("first sync with quantize %s embedded %d chunks, want 2", from, n)
		}
		toAuto(c, from)
		addNote(notes)
		if n, errs := syncEmbedded(t, c); n != 1 || strings.Contains(errs, "quantize auto") {
			t.Errorf("%s index, then auto and a new note: embedded %d, stderr %q; want 1 and no word of the choice", from, n, errs)
		}
		if fp, q8 := storedQuant(t, c); fp != (from == "none") || q8 != (from == "int8") {
			t.Errorf("%s index, then auto: FP32 vectors %v, int8 vectors %v", from, fp, q8)
		}
		hybridFinds(t, c)
	}
	c, notes := autoHome(t, "auto")
	n, errs := syncEmbedded(t, c)
	want, wantQ8 := "quantize auto: none (no vectors of this model yet", false
	if onnx.Int8Fast() {
		want, wantQ8 = "quantize auto: int8 (no vectors of this model yet", true
	}
	if n != 2 || !strings.Contains(errs, want) {
		t.Errorf("new index with auto: embedded %d, stderr %q; want 2 and %q", n, errs, want)
	}
	if fp, q8 := storedQuant(t, c); fp == wantQ8 || q8 != wantQ8 {
		t.Errorf("new index with auto (VNNI %v): FP32 vectors %v, int8 vectors %v", wantQ8, fp, q8)
	}
	hybridFinds(t, c)
	addNote(notes)
	if n, errs := syncEmbedded(t, c); n != 1 || strings.Contains(errs, "quantize auto") {
		t.Errorf("second sync with auto and a new note: embedded %d, stderr %q; want 1 and no word of the choice", n, errs)
	}
}

// An export embedded with the quantization this CPU would not pick
// imports into a new index under quantize = "auto" (before: refused,
// "models: ... --any-model"), and the index keeps the export's vectors:
// the next sync embeds nothing, hybrid search answers from them.
func TestCLIImportQuantizeAuto(t *testing.T) {
	other := "int8"
	if onnx.Int8Fast() {
		other = "none"
	}
	c, _ := autoHome(t, other)
	if n, _ := syncEmbedded(t, c); n != 2 {
		t.Fatalf("sync with quantize %s embedded %d, want 2", other, n)
	}
	file := filepath.Join(t.TempDir(), "agent.jsonl")
	c.ok("export", file)
	d := secondHome(t, c)
	toAuto(d, other)
	if _, errs, code := d.run("import", file); code != 0 {
		t.Fatalf("import of a %s export under quantize auto: exit %d, %s", other, code, errs)
	}
	if n, errs := syncEmbedded(t, d); n != 0 {
		t.Errorf("sync after the import embedded %d chunks again, stderr %q", n, errs)
	}
	if fp, q8 := storedQuant(t, d); fp != (other == "none") || q8 != (other == "int8") {
		t.Errorf("imported %s export: FP32 vectors %v, int8 vectors %v", other, fp, q8)
	}
	hybridFinds(t, d)
}

// An index that cannot be opened fails the embedder with quantize auto
// instead of guessing FP32: a guess could re-embed an INT8 index.
func TestQuantizeAutoUnreadableIndex(t *testing.T) {
	shared := sharedDir(t)
	home := t.TempDir()
	t.Setenv("CAIRN_HOME", home)
	dir := filepath.Join(home, "agents", "default")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sqlite.IndexFile), []byte("not a database, not at all, just text"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(io.Discard, io.Discard)
	ec := &config.Embedder{Provider: "onnx", Model: filepath.Join(shared, "models", "use-lite"), Quantize: quantizeAuto}
	c, err := e.chooseQuantize(context.Background(), &config.Config{Embedder: ec}, ec, filepath.Join(home, "cache", "onnx"))
	if err == nil || !strings.Contains(err.Error(), "quantize auto: which vectors the index holds") {
		t.Fatalf("chooseQuantize over a damaged index = %+v, %v; want an error", c, err)
	}
}
