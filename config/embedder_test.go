package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// [embedder] quantize: "none" and left out are FP32 (""), "int8" and
// "auto" pass through for onnx; any other value, or int8 for an endpoint, is an
// error naming the key and what it allows.
func TestEmbedderQuantize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	const onnx = "[embedder]\nprovider = \"onnx\"\nmodel = \"models/use-lite\"\n"
	const openai = "[embedder]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"
	for _, tt := range []struct{ text, want, err string }{
		{onnx, "", ""},
		{onnx + "quantize = \"none\"\n", "", ""},
		{onnx + "quantize = \"int8\"\n", "int8", ""},
		{onnx + "quantize = \"auto\"\n", "auto", ""},
		{openai + "quantize = \"auto\"\n", "", `quantize "auto" is for provider "onnx"`},
		{onnx + "quantize = \"int4\"\n", "", `quantize "int4"; allowed: none, int8, auto`},
		{onnx + "quantize = \"INT8\"\n", "", `quantize "INT8"; allowed: none, int8, auto`},
		{onnx + "quantize = \"\"\n", "", `quantize ""; allowed: none, int8, auto (or no quantize key: none)`},
		{openai + "quantize = \"int8\"\n", "", `quantize "int8" is for provider "onnx"`},
		{openai + "quantize = \"none\"\n", "", ""},
	} {
		if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(path, nil)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "[embedder]") {
				t.Errorf("%q: error %v, want %q", tt.text, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.text, err)
			continue
		}
		if cfg.Embedder == nil || cfg.Embedder.Quantize != tt.want {
			t.Errorf("%q: Embedder %+v, want Quantize %q", tt.text, cfg.Embedder, tt.want)
		}
	}
}

// An error in [embedder] names the line of the bad key, or of the table
// when the key is missing (review finding F6: every one said line 1).
func TestEmbedderErrorLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	const head = "# my config\n\n[[corpus]]\nname = \"notes\"\nkind = \"files\"\npaths = [\"notes\"]\n\n[embedder]\n" // the table on line 8
	for _, tt := range []struct {
		body string
		line int
		msg  string
	}{
		{"provider = \"onnx\"\nmodel = \"m\"\n\nquantize = \"int4\"\n", 12, `quantize "int4"`},
		{"model = \"m\"\nprovider = \"tensorflow\"\n", 10, `provider "tensorflow"`},
		{"provider = \"openai\"\nmodel = \"m\"\nbase_url = \"ftp://x\"\n", 11, `base_url "ftp://x"`},
		{"provider = \"openai\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\nquantize = \"int8\"\n", 12, `quantize "int8" is for provider "onnx"`},
		{"provider = \"onnx\"\n", 8, "model is missing"},
	} {
		if err := os.WriteFile(path, []byte(head+tt.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, nil)
		want := fmt.Sprintf("config %s:%d: [embedder]: ", path, tt.line)
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q: error %v, want %q...%q", tt.body, err, want, tt.msg)
		}
	}
}
