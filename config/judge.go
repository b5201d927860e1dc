package config

import (
	"fmt"
	"strings"
	"time"
)

// The judge model's table. Cairn reads it as [llm.judge], beside
// [llm.consolidate] and [llm.fast], rather than as a top-level [judge]
// (issue 17 item 8 leaves the choice open): the judge is one more model
// purpose, so it takes the same endpoint keys (api, base_url, model,
// api_key_env, api_key_file, max_output_tokens) with the same rules, and a
// user who has configured a fast model gets a judge with no new table. Two
// keys are its own: enabled and timeout_ms (per request, C2's
// judge.timeoutMs). timeout_seconds is not accepted there: a judgment waits
// milliseconds, not minutes.
//
// Resolution (Config.Judge):
//   - no [llm.judge]: the [llm.fast] endpoint, enabled, timeout_ms 1500;
//   - [llm.judge] with base_url and model: its own endpoint;
//   - [llm.judge] with neither: the [llm.fast] endpoint with this table's
//     enabled, timeout_ms and max_output_tokens (so `timeout_ms = 4000`
//     alone slows the judge on a local fast model);
//   - enabled = false: no judge, whatever else is configured.
//
// Key resolution is that of every [llm.<purpose>] table (LLM.Key, read on
// each use), not C2's CAIRN_JUDGE_API_KEY file rules.
const judgePurpose = "judge"

// Defaults and limits of [llm.judge].
const (
	DefaultJudgeTimeoutMs = 1500
	MaxJudgeTimeoutMs     = 10000
)

// judgeKeys are the keys of [llm.judge], in documentation order.
var judgeKeys = []string{"enabled", "api", "base_url", "model", "api_key_env", "api_key_file", "timeout_ms", "max_output_tokens"}

// Judge is the judge model as configured (see the resolution rules above).
type Judge struct {
	LLM              // the endpoint; zero when none is configured
	From      string // the table the endpoint comes from: "llm.judge", "llm.fast", or "" for none
	Disabled  bool   // enabled = false in [llm.judge]
	TimeoutMs int    // per request, 1 to MaxJudgeTimeoutMs; 0: DefaultJudgeTimeoutMs
}

// The zero Judge (no config file) is enabled, with no endpoint and the
// default timeout.

// Configured reports whether judgments can be asked: the judge is enabled
// and an endpoint is configured.
func (j Judge) Configured() bool { return !j.Disabled && j.From != "" }

// Timeout is the per-request timeout.
func (j Judge) Timeout() time.Duration {
	if j.TimeoutMs <= 0 {
		return DefaultJudgeTimeoutMs * time.Millisecond
	}
	return time.Duration(j.TimeoutMs) * time.Millisecond
}

// validateJudge resolves the judge from the raw [llm.judge] table (nil when
// absent) and the validated other purposes.
func validateJudge(file string, data []byte, raw *rawLLM, llms map[string]LLM) (Judge, error) {
	var j Judge
	fast, hasFast := llms["fast"]
	if raw == nil {
		if hasFast {
			j.LLM, j.From = fast, "llm.fast"
		}
		return j, nil
	}
	lines := llmLines(data)
	fail := func(key, format string, args ...any) error {
		return &LoadError{File: file, Line: lineOf(lines, "llm."+judgePurpose, key), Msg: "[llm.judge]: " + fmt.Sprintf(format, args...)}
	}
	if raw.Enabled != nil {
		j.Disabled = !*raw.Enabled
	}
	if raw.TimeoutMs != nil {
		if *raw.TimeoutMs < 1 || *raw.TimeoutMs > MaxJudgeTimeoutMs {
			return j, fail("timeout_ms", "timeout_ms %d; allowed: 1 to %d", *raw.TimeoutMs, MaxJudgeTimeoutMs)
		}
		j.TimeoutMs = *raw.TimeoutMs
	}
	own := strings.TrimSpace(raw.BaseURL) != "" || strings.TrimSpace(raw.Model) != ""
	if !own {
		if raw.API != "" || raw.APIKeyEnv != "" || raw.APIKeyFile != "" {
			return j, fail("", "api, api_key_env and api_key_file need base_url and model; allowed: all of them, or none to judge with the [llm.fast] model")
		}
		if raw.MaxOutputTokens < 0 || raw.MaxOutputTokens > 200000 {
			return j, fail("max_output_tokens", "max_output_tokens %d; allowed: 1 to 200000", raw.MaxOutputTokens)
		}
		if hasFast {
			j.LLM, j.From = fast, "llm.fast"
			if raw.MaxOutputTokens > 0 {
				j.MaxOutputTokens = raw.MaxOutputTokens
			}
		}
		return j, nil
	}
	l, err := checkLLM(file, judgePurpose, *raw, lines)
	if err != nil {
		return j, err
	}
	j.LLM, j.From = l, "llm.judge"
	return j, nil
}

// judgeTable returns the decoded [llm.judge] table, nil when absent.
func judgeTable(raw map[string]rawLLM) *rawLLM {
	r, ok := raw[judgePurpose]
	if !ok {
		return nil
	}
	return &r
}
