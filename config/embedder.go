package config

import (
	"fmt"
	"slices"
	"strings"
)

var (
	embedderKeys      = []string{"provider", "model", "library", "base_url", "api_key_env", "query_prefix", "document_prefix"}
	embedderProviders = []string{"onnx", "openai", "none"}
)

type rawEmbedder struct {
	Provider       string `toml:"provider"`
	Model          string `toml:"model"`
	Library        string `toml:"library"`
	BaseURL        string `toml:"base_url"`
	APIKeyEnv      string `toml:"api_key_env"`
	QueryPrefix    string `toml:"query_prefix"`
	DocumentPrefix string `toml:"document_prefix"`
}

// Embedder is the [embedder] table.
type Embedder struct {
	Provider       string // "onnx" or "openai"
	Model          string // onnx: a model directory (absolute); openai: the model name
	Library        string // onnx: the ONNX Runtime library; empty: CAIRN_ONNXRUNTIME_LIB
	BaseURL        string // openai-compatible endpoint
	APIKeyEnv      string
	QueryPrefix    string
	DocumentPrefix string
}

func validateEmbedder(file string, raw *rawEmbedder, r resolver) (*Embedder, error) {
	if raw == nil {
		return nil, nil
	}
	fail := func(format string, args ...any) (*Embedder, error) {
		return nil, &LoadError{File: file, Line: 1, Msg: "[embedder]: " + fmt.Sprintf(format, args...)}
	}
	switch {
	case !slices.Contains(embedderProviders, raw.Provider):
		return fail("provider %q; allowed: %s", raw.Provider, strings.Join(embedderProviders, ", "))
	case raw.Provider == "none":
		return nil, nil
	case strings.TrimSpace(raw.Model) == "":
		return fail("model is missing; allowed: a model directory (onnx) or the endpoint's model name (openai)")
	case raw.Provider == "openai" && !strings.HasPrefix(raw.BaseURL, "http://") && !strings.HasPrefix(raw.BaseURL, "https://"):
		return fail("base_url %q; allowed: an http:// or https:// URL of an OpenAI-compatible endpoint", raw.BaseURL)
	}
	e := &Embedder{Provider: raw.Provider, Model: raw.Model, BaseURL: strings.TrimRight(raw.BaseURL, "/"), APIKeyEnv: raw.APIKeyEnv,
		QueryPrefix: raw.QueryPrefix, DocumentPrefix: raw.DocumentPrefix}
	if raw.Provider == "onnx" {
		var err error
		if e.Model, err = r.resolve(raw.Model); err != nil {
			return fail("model: %v", err)
		}
		if raw.Library != "" {
			if e.Library, err = r.resolve(raw.Library); err != nil {
				return fail("library: %v", err)
			}
		}
	}
	return e, nil
}
