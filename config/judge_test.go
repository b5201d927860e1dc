package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

const fastTable = "[llm.fast]\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"small\"\n"

func loadText(t *testing.T, text string) (*Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(path, nil)
}

// TestJudgeResolution: [llm.judge] with its own endpoint, the fast model
// when it has none or is absent, disabled, and nothing configured.
func TestJudgeResolution(t *testing.T) {
	tests := []struct {
		name, text string
		want       Judge
	}{
		{"absent: the fast model", fastTable,
			Judge{LLM: LLM{API: "openai", BaseURL: "http://127.0.0.1:8080/v1", Model: "small"}, From: "llm.fast"}},
		{"own endpoint", fastTable + "[llm.judge]\napi = \"anthropic\"\nbase_url = \"https://api.anthropic.com/\"\nmodel = \"claude\"\napi_key_env = \"JUDGE_KEY\"\ntimeout_ms = 2500\n",
			Judge{LLM: LLM{API: "anthropic", BaseURL: "https://api.anthropic.com", Model: "claude", APIKeyEnv: "JUDGE_KEY"}, From: "llm.judge", TimeoutMs: 2500}},
		{"settings only: the fast endpoint", fastTable + "[llm.judge]\ntimeout_ms = 4000\nmax_output_tokens = 64\n",
			Judge{LLM: LLM{API: "openai", BaseURL: "http://127.0.0.1:8080/v1", Model: "small", MaxOutputTokens: 64}, From: "llm.fast", TimeoutMs: 4000}},
		{"disabled", fastTable + "[llm.judge]\nenabled = false\n",
			Judge{LLM: LLM{API: "openai", BaseURL: "http://127.0.0.1:8080/v1", Model: "small"}, From: "llm.fast", Disabled: true}},
		{"no model at all", "", Judge{}},
	}
	for _, tt := range tests {
		cfg, err := loadText(t, tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if cfg.Judge != tt.want {
			t.Errorf("%s: judge %+v, want %+v", tt.name, cfg.Judge, tt.want)
		}
		if _, ok := cfg.LLM["judge"]; ok {
			t.Errorf("%s: [llm.judge] is listed among the other purposes", tt.name)
		}
	}
	cfg, _ := loadText(t, fastTable+"[llm.judge]\nenabled = false\n")
	if cfg.Judge.Configured() || cfg.Judge.Timeout() != 1500*time.Millisecond {
		t.Errorf("disabled judge: configured %v, timeout %s", cfg.Judge.Configured(), cfg.Judge.Timeout())
	}
	var none Judge // no config file
	if none.Configured() || none.Disabled || none.Timeout() != 1500*time.Millisecond {
		t.Errorf("zero judge %+v", none)
	}
}

// TestJudgeInvalid: every key's range is checked at load, naming the key.
func TestJudgeInvalid(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"[llm.judge]\ntimeout_ms = 0\n", "timeout_ms 0; allowed: 1 to 10000"},
		{"[llm.judge]\ntimeout_ms = 10001\n", "timeout_ms 10001; allowed: 1 to 10000"},
		{"[llm.judge]\nenabled = \"yes\"\n", `[llm.judge] enabled = "yes"; allowed: true or false`},
		{"[llm.judge]\ntimeout_seconds = 2\n", `unknown key "timeout_seconds" in [llm.judge]; allowed keys: enabled, api, base_url, model`},
		{"[llm.judge]\nmodel = \"m\"\n", "[llm.judge]: base_url"},
		{"[llm.judge]\nbase_url = \"http://h\"\n", "[llm.judge]: model is missing"},
		{"[llm.judge]\nbase_url = \"http://h\"\nmodel = \"m\"\napi = \"grpc\"\n", "[llm.judge]: api \"grpc\"; allowed: openai, anthropic"},
		{"[llm.judge]\nbase_url = \"http://h\"\nmodel = \"m\"\nmax_output_tokens = -1\n", "max_output_tokens -1"},
		{"[llm.judge]\nmax_output_tokens = 300000\n", "max_output_tokens 300000; allowed: 1 to 200000"},
		{"[llm.judge]\napi_key_env = \"K\"\n", "need base_url and model"},
		{"[llm.judge]\nbase_url = \"http://h\"\nmodel = \"m\"\napi_key_env = \"A\"\napi_key_file = \"/f\"\n", "one of them"},
		{fastTable + "enabled = true\n", `unknown key "enabled" in [llm.fast]`},
		{fastTable + "timeout_ms = 100\n", `unknown key "timeout_ms" in [llm.fast]`},
	} {
		_, err := loadText(t, tt.text)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want invalid with %q", tt.text, err, tt.want)
		}
	}
}
