package judge

import (
	"errors"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/llm/anthropic"
	"github.com/cairnmemory/cairn/llm/openai"
)

// ErrNotConfigured is FromConfig's error for a judge that is disabled or
// has no endpoint.
var ErrNotConfigured = fmt.Errorf("%w: no judge model: set [llm.judge] or [llm.fast], and leave [llm.judge] enabled", cairn.ErrUnavailable)

// FromConfig returns the judge the configuration describes (see
// config.Judge): an llm/openai client (log-probabilities first) or an
// llm/anthropic one (structured answers), with no retries, redirects
// refused, statuses observed for error codes, the key read on every
// request, and a MemoryCache. getenv reads api_key_env (nil: no
// environment).
func FromConfig(cfg config.Judge, getenv func(string) string) (*Judge, error) {
	if !cfg.Configured() {
		return nil, ErrNotConfigured
	}
	keys := keySource(cfg, getenv)
	hc := httpClient()
	// The client's own timeout is longer than the judgment's, so the
	// judgment's deadline always ends a slow answer first and reads as a
	// timeout.
	clientTimeout := cfg.Timeout() + time.Second
	var model cairn.LLM
	switch cfg.API {
	case "openai", "":
		c := openai.New(cfg.BaseURL, cfg.Model, "")
		c.KeySource, c.HTTP, c.Timeout, c.Retries = keys, hc, clientTimeout, 0
		model = c
	case "anthropic":
		c := anthropic.New(cfg.BaseURL, cfg.Model, "")
		c.KeySource, c.HTTP, c.Timeout, c.Retries = keys, hc, clientTimeout, 0
		model = c
	default:
		return nil, cairn.Invalidf("[llm.judge] api %q; allowed: openai, anthropic", cfg.API)
	}
	j := New(model, cfg.Model)
	j.Timeout, j.MaxOutputTokens = cfg.Timeout(), cfg.MaxOutputTokens
	return j, nil
}

// Credential is C16's credential state of a judge: "disabled", "missing"
// (no endpoint, or a key that is configured but absent), "unreadable" (a
// key file that cannot be read), or "available" (a key, or a keyless
// OpenAI-compatible endpoint). It reads the key as a request would and
// never calls a model.
func Credential(cfg config.Judge, getenv func(string) string) string {
	switch {
	case cfg.Disabled:
		return "disabled"
	case cfg.From == "":
		return "missing"
	}
	_, err := keySource(cfg, getenv)()
	switch {
	case err == nil:
		return "available"
	case errors.Is(err, errUnreadable):
		return "unreadable"
	}
	return "missing"
}

var errUnreadable = errors.New("unreadable")

// keySource resolves the key on every request; its errors wrap
// errCredentials (and cairn.ErrUnavailable, as the clients expect).
func keySource(cfg config.Judge, getenv func(string) string) func() (string, error) {
	l, table := cfg.LLM, "["+cfg.From+"]"
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return func() (string, error) {
		key, err := l.Key(getenv)
		switch {
		case err != nil:
			return "", fmt.Errorf("%w: %w: %w: %s %v", cairn.ErrUnavailable, errCredentials, errUnreadable, table, err)
		case key != "":
			return key, nil
		case l.APIKeyFile != "":
			return "", fmt.Errorf("%w: %w: %s no API key: api_key_file %s is missing or empty", cairn.ErrUnavailable, errCredentials, table, l.APIKeyFile)
		case l.APIKeyEnv != "":
			return "", fmt.Errorf("%w: %w: %s no API key: environment variable %s is unset or empty", cairn.ErrUnavailable, errCredentials, table, l.APIKeyEnv)
		case l.API == "anthropic":
			return "", fmt.Errorf("%w: %w: %s no API key: set api_key_env or api_key_file", cairn.ErrUnavailable, errCredentials, table)
		}
		return "", nil // a keyless local server
	}
}
