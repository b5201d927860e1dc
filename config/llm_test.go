package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLLMTables(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte("sk-file\n"), 0o600)
	text := "[llm.fast]\napi = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1/\"\nmodel = \"small\"\napi_key_env = \"FAST_KEY\"\n\n" +
		"[llm.consolidate]\nbase_url = \"https://api.example.com/v1\"\nmodel = \"big\"\napi_key_file = \"" + keyFile + "\"\n"
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte(text), 0o600)
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	fast, big := cfg.LLM["fast"], cfg.LLM["consolidate"]
	if fast.BaseURL != "http://127.0.0.1:8080/v1" || fast.Model != "small" || big.API != "openai" {
		t.Errorf("llm = %+v", cfg.LLM)
	}
	if k, _ := fast.Key(func(n string) string { return map[string]string{"FAST_KEY": " sk-env "}[n] }); k != "sk-env" {
		t.Errorf("env key = %q", k)
	}
	if k, _ := big.Key(os.Getenv); k != "sk-file" {
		t.Errorf("file key = %q", k)
	}
	for _, tt := range []struct{ text, want string }{
		{"[llm.fast]\nbase_url = \"x\"\nmodel = \"m\"\n", "allowed: an http:// or https:// URL"},
		{"[llm.fast]\nbase_url = \"http://h\"\n", "model is missing"},
		{"[llm.fast]\napi = \"grpc\"\nbase_url = \"http://h\"\nmodel = \"m\"\n", "allowed: openai, anthropic"},
		{"[llm.fast]\nbase_url = \"http://h\"\nmodel = \"m\"\ntemperature = 1\n", `unknown key "temperature" in [llm.fast]; allowed keys: api, base_url`},
		{"[llm.slow]\nmodel = \"m\"\n", "unknown table [llm.slow]"},
		{"[llm.fast]\nbase_url = \"http://h\"\nmodel = \"m\"\napi_key_env = \"A\"\napi_key_file = \"/f\"\n", "one of them"},
	} {
		os.WriteFile(path, []byte(tt.text), 0o600)
		if _, err := Load(path, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
	}
}

func TestEmbedderTable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	for _, tt := range []struct{ text, want string }{
		{"[embedder]\nprovider = \"openai\"\nmodel = \"nomic\"\nbase_url = \"http://127.0.0.1:11434/v1\"\n", ""},
		{"[embedder]\nprovider = \"onnx\"\nmodel = \"models/use-lite\"\nlibrary = \"/lib/libonnxruntime.so.1\"\n", ""},
		{"[embedder]\nprovider = \"none\"\n", ""},
		{"[embedder]\nprovider = \"bert\"\nmodel = \"m\"\n", "allowed: onnx, openai, none"},
		{"[embedder]\nprovider = \"openai\"\nmodel = \"m\"\n", "base_url"},
		{"[embedder]\nprovider = \"onnx\"\n", "model is missing"},
		{"[embedder]\nprovider = \"onnx\"\nmodel = \"m\"\ndevice = \"gpu\"\n", `unknown key "device" in [embedder]`},
	} {
		os.WriteFile(path, []byte(tt.text), 0o600)
		cfg, err := Load(path, nil)
		if tt.want != "" {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.text, err)
			continue
		}
		if strings.Contains(tt.text, "onnx") && (cfg.Embedder == nil || cfg.Embedder.Model != filepath.Join(dir, "models/use-lite")) {
			t.Errorf("onnx model path not resolved against the config folder: %+v", cfg.Embedder)
		}
		if strings.Contains(tt.text, "none") && cfg.Embedder != nil {
			t.Errorf("provider none gave %+v", cfg.Embedder)
		}
	}
}

// TestLLMWarning: a consolidate max_output_tokens under the 32,000 a
// window may need is a warning; unset, enough, or another purpose is not.
func TestLLMWarning(t *testing.T) {
	for _, tt := range []struct {
		purpose string
		max     int
		warn    bool
	}{
		{"consolidate", 8192, true}, {"consolidate", 0, false}, {"consolidate", 32000, false}, {"fast", 4096, false},
	} {
		w := LLM{MaxOutputTokens: tt.max}.Warning(tt.purpose)
		if (w != "") != tt.warn || tt.warn && !strings.Contains(w, "max_output_tokens 8192") {
			t.Errorf("%s with max_output_tokens %d: warning %q, want one: %v", tt.purpose, tt.max, w, tt.warn)
		}
	}
}

// TestLLMErrorLines: an error in an [llm.*] table names the line of the
// key at fault, or of the table when the key is missing. Before, every
// such error said line 1.
func TestLLMErrorLines(t *testing.T) {
	corpus := "[[corpus]]\nname = \"notes\"\nkind = \"files\"\npaths = [\".\"]\n\n"
	for _, tt := range []struct {
		name, text string
		line       int
		want       string
	}{
		{"bad api", corpus + "[llm.consolidate]\nmodel = \"m\"\napi = \"x\"\n", 8, `[llm.consolidate]: api "x"`},
		{"missing model", corpus + "[llm.fast]\nbase_url = \"http://h\"\n", 6, "[llm.fast]: model is missing"},
		{"bad timeout", corpus + "[llm.fast]\nbase_url = \"http://h\"\nmodel = \"m\"\ntimeout_seconds = 9999\n", 9, "timeout_seconds 9999"},
		{"second table", corpus + "[llm.fast]\nbase_url = \"http://h\"\nmodel = \"m\"\n\n[llm.consolidate]\nbase_url = \"ftp://h\"\nmodel = \"m\"\n", 11, `[llm.consolidate]: base_url "ftp://h"`},
		{"before the corpora", "[llm.fast]\nbase_url = \"http://h\"\nmodel = \"m\"\nmax_output_tokens = -1\n\n" + corpus, 4, "max_output_tokens -1"},
		{"judge", corpus + "[llm.fast]\nbase_url = \"http://h\"\nmodel = \"m\"\n\n[llm.judge]\ntimeout_ms = 0\n", 11, "[llm.judge]: timeout_ms 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.toml")
			os.WriteFile(path, []byte(tt.text), 0o600)
			_, err := Load(path, nil)
			var le *LoadError
			if !errors.As(err, &le) || le.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: %v; want a *LoadError at line %d holding %q", err, tt.line, tt.want)
			}
		})
	}
}
