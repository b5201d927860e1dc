package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

func TestBuildVersionReadsVCSStamp(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/cairnmemory/cairn", Version: "v0.3.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}
	v := buildVersion(info, true)
	if v.Version != "v0.3.1" || v.Commit != "0123abcd" || !v.Modified || v.Go != runtime.Version() {
		t.Errorf("buildVersion = %+v", v)
	}
	if v := buildVersion(nil, false); v.Version != "unknown" || v.IndexSchema != sqlite.SchemaVersion {
		t.Errorf("without build info: %+v", v)
	}
}

func TestVersionCommand(t *testing.T) {
	c := newCLI(t)
	var v map[string]any
	out := c.ok("version", "--json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("version --json: %v: %s", err, out)
	}
	wantKeys(t, "version", json.RawMessage(out), "version", "go", "indexSchema", "indexFeatures", "memorySchema", "embedder", "indexVectors")
	if v["indexSchema"] != float64(sqlite.SchemaVersion) || v["memorySchema"] != float64(sqlite.DurableVersion) ||
		v["indexFeatures"] != engine.FeatureVersion || v["embedder"] != nil {
		t.Errorf("version --json = %s", out)
	}
	c.ok("init")
	cfg := filepath.Join(c.home, "config.toml")
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n[embedder]\nprovider = \"openai\"\nmodel = \"nomic-embed-text\"\nbase_url = \"http://127.0.0.1:1/v1\"\n")
	f.Close()
	for _, args := range [][]string{{"--version"}, {"version"}, {"--agent", "x", "--version"}} {
		out := c.ok(args...)
		for _, want := range []string{"cairn ", runtime.Version(), "index schema", engine.FeatureVersion, "memory schema", "embedder: openai nomic-embed-text"} {
			if !strings.Contains(out, want) {
				t.Errorf("cairn %v = %q, want %q in it", args, out, want)
			}
		}
	}
}

// TestVersionIndexQuantize: cairn version says the configured quantize
// and which quantization the agent's index's vectors have, by model, read
// from index.db (a new user's finding: with quantize = "auto" nothing said
// whether the index was int8 or FP32). Before: neither in the text nor in
// --json.
func TestVersionIndexQuantize(t *testing.T) {
	c := newCLI(t)
	c.ok("init")
	cfg := filepath.Join(c.home, "config.toml")
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n[embedder]\nprovider = \"onnx\"\nmodel = \"all-MiniLM-L6-v2\"\nquantize = \"auto\"\n")
	f.Close()

	out := c.ok("version")
	if !strings.Contains(out, "all-MiniLM-L6-v2, quantize auto\n") || !strings.Contains(out, "index vectors: none (agent default has no index yet)") {
		t.Errorf("version before any index = %q", out)
	}

	// An index holding int8 vectors of the model and FP32 ones of another.
	ctx := context.Background()
	s := sqlite.New(filepath.Join(c.home, "agents", "default", sqlite.IndexFile), engine.FeatureVersion)
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	text := "alpha\nbravo\ngamma\n"
	sum := sha256.Sum256([]byte(text))
	d := cairn.Document{Corpus: "notes", Path: "a.md", Text: text, Hash: hex.EncodeToString(sum[:]), Size: int64(len(text))}
	for i := range 3 {
		d.Chunks = append(d.Chunks, cairn.Chunk{Seq: i, Pos: 6 * i, Len: 6, StartLine: i + 1, EndLine: i + 1})
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
		t.Fatal(err)
	}
	int8ID := cairn.EmbedderIdentity{Provider: "onnx", Model: "all-MiniLM-L6-v2+int8", Dimension: 2, Normalized: true, Tokenizer: "wordpiece"}.Key()
	fpID := cairn.EmbedderIdentity{Provider: "openai", Model: "nomic-embed-text", Dimension: 2}.Key()
	pending, err := s.PendingChunks(ctx, int8ID, 10)
	if err != nil || len(pending) != 3 {
		t.Fatalf("PendingChunks = %d, %v", len(pending), err)
	}
	v := []float32{1, 0}
	if err := s.PutVectors(ctx, int8ID, []int64{pending[0].ID, pending[1].ID}, [][]float32{v, v}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutVectors(ctx, fpID, []int64{pending[2].ID}, [][]float32{v}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	out = c.ok("version")
	for _, want := range []string{"all-MiniLM-L6-v2, quantize auto\n",
		"index vectors: onnx all-MiniLM-L6-v2, quantize int8: 2 (agent default)\n",
		"index vectors: openai nomic-embed-text, quantize none: 1 (agent default)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("version = %q, want %q in it", out, want)
		}
	}
	raw := c.ok("version", "--json")
	var got struct {
		Embedder     map[string]any   `json:"embedder"`
		IndexVectors []map[string]any `json:"indexVectors"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("version --json: %v: %s", err, raw)
	}
	wantKeys(t, "version", json.RawMessage(raw), "version", "go", "indexSchema", "indexFeatures", "memorySchema", "embedder", "indexVectors")
	if got.Embedder["quantize"] != "auto" || got.Embedder["provider"] != "onnx" {
		t.Errorf("version --json embedder = %v", got.Embedder)
	}
	want := []map[string]any{
		{"provider": "onnx", "model": "all-MiniLM-L6-v2", "quantize": "int8", "vectors": float64(2)},
		{"provider": "openai", "model": "nomic-embed-text", "quantize": "none", "vectors": float64(1)},
	}
	if fmt.Sprint(got.IndexVectors) != fmt.Sprint(want) {
		t.Errorf("version --json indexVectors = %v, want %v", got.IndexVectors, want)
	}
	// Another agent has no index: null, and version makes none.
	raw = c.ok("--agent", "other", "version", "--json")
	if !strings.Contains(raw, `"indexVectors":null`) {
		t.Errorf("version --json of an agent without an index = %s", raw)
	}
	if _, err := os.Stat(filepath.Join(c.home, "agents", "other")); !os.IsNotExist(err) {
		t.Errorf("version made the other agent's folder: %v", err)
	}
}
