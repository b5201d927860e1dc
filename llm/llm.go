// Package llm builds Cairn's model clients from configuration and wraps
// them with what every call needs: redaction of what is sent and token
// accounting per purpose.
//
// Quick start (in a command, where config is read):
//
//	model, err := llm.New(cfg.LLM[cairn.PurposeConsolidate], cairn.PurposeConsolidate, os.Getenv)
//	if err != nil { ... }                             // only a malformed table fails here
//	usage, err := llm.OpenUsage(filepath.Join(agentDir, llm.UsageFile))
//	if err != nil { ... }
//	model = llm.Counting(model, usage)
//	res, err := model.Complete(ctx, &cairn.LLMRequest{System: sys, Prompt: window,
//		Purpose: cairn.PurposeConsolidate, Schema: schema, SchemaName: "window"})
//	switch {
//	case errors.Is(err, cairn.ErrUnavailable): // pause: no endpoint, no key, refused, 401/403
//	case errors.Is(err, cairn.ErrBusy):        // pause: 429, overloaded, 5xx, timeout
//	case errors.Is(err, cairn.ErrInvalid):     // errors.As(err, &ioe) with *cairn.InvalidOutputError keeps the raw answer
//	}
//	...
//	err = usage.Flush() // reports a save that kept failing
//
// The clients are llm/openai (any OpenAI-compatible chat-completions
// endpoint) and llm/anthropic (the Messages API); both ask for
// schema-constrained output and validate the answer against the schema
// themselves.
package llm

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/llm/anthropic"
	"github.com/cairnmemory/cairn/llm/openai"
)

// Defaults by purpose for what an [llm.<purpose>] table leaves out
// (timeout_seconds, max_output_tokens). A consolidation window may answer
// with up to 32,000 tokens within 300 s; a fast call (a gather part, a
// judgment) within 120 s.
const (
	DefaultConsolidateTimeout   = 300 * time.Second
	DefaultConsolidateMaxTokens = 32000
	DefaultFastTimeout          = 120 * time.Second
	DefaultFastMaxTokens        = 4096
)

// New returns the model client one [llm.<purpose>] table describes: an
// llm/openai or llm/anthropic client with the table's timeout and output
// limit, behind Redacting, that fills an empty request Purpose with
// purpose (Counting sees that purpose too).
//
// max_output_tokens is both the default for requests that set no
// MaxTokens and a cap on those that ask for more (so a window's 32,000
// fits a local model that allows 8,192).
//
// The key is resolved on every call (api_key_file, else the environment
// variable api_key_env through getenv; nil getenv reads no environment),
// so a rotated key file needs no restart. A key that is configured but
// missing is not an error here: the client's calls fail with an error
// wrapping cairn.ErrUnavailable that names the variable or file, so a
// consolidation run pauses cleanly. New fails only for an empty purpose
// or an unknown api.
func New(cfg config.LLM, purpose string, getenv func(string) string) (cairn.LLM, error) {
	if purpose == "" {
		return nil, cairn.Invalidf("llm purpose is empty; allowed: %s, %s", cairn.PurposeConsolidate, cairn.PurposeFast)
	}
	timeout, maxTokens := DefaultFastTimeout, DefaultFastMaxTokens
	if purpose == cairn.PurposeConsolidate {
		timeout, maxTokens = DefaultConsolidateTimeout, DefaultConsolidateMaxTokens
	}
	if cfg.TimeoutSeconds > 0 {
		timeout = time.Duration(cfg.TimeoutSeconds) * time.Second
	}
	if cfg.MaxOutputTokens > 0 {
		maxTokens = cfg.MaxOutputTokens
	}
	keys := keySource(cfg, purpose, getenv)
	var client cairn.LLM
	switch cfg.API {
	case "openai", "":
		c := openai.New(cfg.BaseURL, cfg.Model, "")
		c.KeySource, c.Timeout, c.MaxTokens = keys, timeout, maxTokens
		client = c
	case "anthropic":
		c := anthropic.New(cfg.BaseURL, cfg.Model, "")
		c.KeySource, c.Timeout, c.MaxTokens = keys, timeout, maxTokens
		client = c
	default:
		return nil, cairn.Invalidf("[llm.%s] api %q; allowed: openai, anthropic", purpose, cfg.API)
	}
	return &configured{inner: Redacting(client), purpose: purpose, maxTokens: cfg.MaxOutputTokens}, nil
}

// keySource resolves the key on each call; see New.
func keySource(cfg config.LLM, purpose string, getenv func(string) string) func() (string, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return func() (string, error) {
		key, err := cfg.Key(getenv)
		switch {
		case err != nil:
			return "", fmt.Errorf("%w: [llm.%s] %v", cairn.ErrUnavailable, purpose, err)
		case key != "":
			return key, nil
		case cfg.APIKeyFile != "":
			return "", fmt.Errorf("%w: [llm.%s] no API key: api_key_file %s is missing or empty", cairn.ErrUnavailable, purpose, cfg.APIKeyFile)
		case cfg.APIKeyEnv != "":
			return "", fmt.Errorf("%w: [llm.%s] no API key: environment variable %s is unset or empty", cairn.ErrUnavailable, purpose, cfg.APIKeyEnv)
		case cfg.API == "anthropic":
			return "", fmt.Errorf("%w: [llm.%s] no API key: set api_key_env or api_key_file", cairn.ErrUnavailable, purpose)
		}
		return "", nil // a keyless local server
	}
}

// configured applies a table's purpose and output cap to each request.
type configured struct {
	inner     cairn.LLM
	purpose   string
	maxTokens int // cap; 0: none
}

// Purpose names the table the client was made from; Counting counts a
// request without a Purpose under it.
func (c *configured) Purpose() string { return c.purpose }

func (c *configured) Complete(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	r := *req
	if r.Purpose == "" {
		r.Purpose = c.purpose
	}
	if c.maxTokens > 0 && r.MaxTokens > c.maxTokens {
		r.MaxTokens = c.maxTokens
	}
	return c.inner.Complete(ctx, &r)
}
