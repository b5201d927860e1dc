package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

var (
	llmPurposes = []string{cairn.PurposeConsolidate, cairn.PurposeFast}
	llmKeys     = []string{"api", "base_url", "model", "api_key_env", "api_key_file", "timeout_seconds", "max_output_tokens"}
	llmAPIs     = []string{"openai", "anthropic"}
)

type rawLLM struct {
	API             string `toml:"api"`
	BaseURL         string `toml:"base_url"`
	Model           string `toml:"model"`
	APIKeyEnv       string `toml:"api_key_env"`
	APIKeyFile      string `toml:"api_key_file"`
	TimeoutSeconds  int    `toml:"timeout_seconds"`
	MaxOutputTokens int    `toml:"max_output_tokens"`
	// [llm.judge] only (see judge.go).
	Enabled   *bool `toml:"enabled"`
	TimeoutMs *int  `toml:"timeout_ms"`
}

// LLM is one [llm.<purpose>] table: where a model is and how to reach it.
type LLM struct {
	API             string // "openai" (any OpenAI-compatible endpoint) or "anthropic"
	BaseURL         string
	Model           string
	APIKeyEnv       string // environment variable holding the key
	APIKeyFile      string // or a file holding it
	TimeoutSeconds  int
	MaxOutputTokens int
}

func validateLLM(file string, data []byte, raw map[string]rawLLM) (map[string]LLM, error) {
	var out map[string]LLM
	lines := llmLines(data)
	for _, purpose := range slices.Sorted(maps.Keys(raw)) { // the same first error on every load
		r := raw[purpose]
		if purpose == judgePurpose {
			continue // read by validateJudge
		}
		l, err := checkLLM(file, purpose, r, lines)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]LLM{}
		}
		out[purpose] = l
	}
	return out, nil
}

// llmLines maps "llm.<purpose>" and "llm.<purpose>.<key>" to their lines.
func llmLines(data []byte) map[string]int {
	return tableLines(data, func(t []string) bool { return len(t) == 2 && t[0] == "llm" })
}

// checkLLM validates one [llm.<purpose>] table's endpoint keys; an error
// names the line of the key at fault (else of the table).
func checkLLM(file, purpose string, r rawLLM, lines map[string]int) (LLM, error) {
	fail := func(key, format string, args ...any) (LLM, error) {
		return LLM{}, &LoadError{File: file, Line: lineOf(lines, "llm."+purpose, key), Msg: fmt.Sprintf("[llm.%s]: ", purpose) + fmt.Sprintf(format, args...)}
	}
	api := r.API
	if api == "" {
		api = "openai"
	}
	switch {
	case !slices.Contains(llmAPIs, api):
		return fail("api", "api %q; allowed: %s", r.API, strings.Join(llmAPIs, ", "))
	case strings.TrimSpace(r.BaseURL) == "" || !strings.HasPrefix(r.BaseURL, "http://") && !strings.HasPrefix(r.BaseURL, "https://"):
		return fail("base_url", "base_url %q; allowed: an http:// or https:// URL", r.BaseURL)
	case strings.TrimSpace(r.Model) == "":
		return fail("model", "model is missing; allowed: the model id the endpoint serves")
	case r.APIKeyEnv != "" && r.APIKeyFile != "":
		return fail("api_key_file", "api_key_env and api_key_file are both set; allowed: one of them")
	case r.TimeoutSeconds < 0 || r.TimeoutSeconds > 3600:
		return fail("timeout_seconds", "timeout_seconds %d; allowed: 1 to 3600", r.TimeoutSeconds)
	case r.MaxOutputTokens < 0 || r.MaxOutputTokens > 200000:
		return fail("max_output_tokens", "max_output_tokens %d; allowed: 1 to 200000", r.MaxOutputTokens)
	}
	return LLM{API: api, BaseURL: strings.TrimRight(r.BaseURL, "/"), Model: r.Model, APIKeyEnv: r.APIKeyEnv,
		APIKeyFile: r.APIKeyFile, TimeoutSeconds: r.TimeoutSeconds, MaxOutputTokens: r.MaxOutputTokens}, nil
}

// ConsolidateTokensNeeded is the answer budget a consolidation window may
// need (consolidate.DefaultMaxTokens).
const ConsolidateTokensNeeded = 32000

// Warning says what in an [llm.<purpose>] table will likely fail, or "":
// a consolidate max_output_tokens under ConsolidateTokensNeeded caps
// answers that may need that much, so long windows are cut short.
func (l LLM) Warning(purpose string) string {
	if purpose == cairn.PurposeConsolidate && l.MaxOutputTokens > 0 && l.MaxOutputTokens < ConsolidateTokensNeeded {
		return fmt.Sprintf("[llm.%s] max_output_tokens %d is under the %d a consolidation window may need: long windows may be cut short and fail", purpose, l.MaxOutputTokens, ConsolidateTokensNeeded)
	}
	return ""
}

// Key resolves the model's API key on every use (so rotation needs no
// restart): from the file, else the environment variable, else none.
func (l LLM) Key(getenv func(string) string) (string, error) {
	if l.APIKeyFile != "" {
		data, err := os.ReadFile(l.APIKeyFile)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("read api_key_file: %w", err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	if l.APIKeyEnv != "" {
		return strings.TrimSpace(getenv(l.APIKeyEnv)), nil
	}
	return "", nil
}
