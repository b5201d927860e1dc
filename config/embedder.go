package config

import (
	"fmt"
	"slices"
	"strings"
)

var (
	embedderKeys      = []string{"provider", "model", "library", "base_url", "api_key_env", "query_prefix", "document_prefix", "quantize"}
	embedderProviders = []string{"onnx", "openai", "none"}
	// embedderQuantize is what quantize allows (onnx.Quantizations, and
	// "auto", which cmd/cairn resolves to one of them for the index;
	// config does not import the runtime's package).
	embedderQuantize = []string{"none", "int8", "auto"}
)

type rawEmbedder struct {
	Provider       string  `toml:"provider"`
	Model          string  `toml:"model"`
	Library        string  `toml:"library"`
	BaseURL        string  `toml:"base_url"`
	APIKeyEnv      string  `toml:"api_key_env"`
	QueryPrefix    string  `toml:"query_prefix"`
	DocumentPrefix string  `toml:"document_prefix"`
	Quantize       *string `toml:"quantize"` // nil when absent, so that quantize = "" is refused
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
	// Quantize is onnx's weight quantization: "" (none: the model's FP32
	// weights), "int8" (onnx.Options.Quantize) or "auto": the identity
	// the index's vectors already have, and for an index without vectors
	// int8 where the CPU has VNNI, else none (cmd/cairn/embedder_auto.go).
	// Part of the embedder's identity: changing it between none and int8
	// re-embeds the index; auto never does.
	Quantize string
}

// validateEmbedder checks the [embedder] table; an error names the line of
// the bad key (of the table when the key is missing).
func validateEmbedder(file string, data []byte, raw *rawEmbedder, r resolver) (*Embedder, error) {
	if raw == nil {
		return nil, nil
	}
	lines := tableLines(data, func(t []string) bool { return len(t) == 1 && t[0] == "embedder" })
	fail := func(key, format string, args ...any) (*Embedder, error) {
		return nil, &LoadError{File: file, Line: lineOf(lines, "embedder", key), Msg: "[embedder]: " + fmt.Sprintf(format, args...)}
	}
	switch {
	case !slices.Contains(embedderProviders, raw.Provider):
		return fail("provider", "provider %q; allowed: %s", raw.Provider, strings.Join(embedderProviders, ", "))
	case raw.Provider == "none":
		return nil, nil
	case strings.TrimSpace(raw.Model) == "":
		return fail("model", "model is missing; allowed: a model directory (onnx) or the endpoint's model name (openai)")
	case raw.Quantize != nil && !slices.Contains(embedderQuantize, *raw.Quantize):
		return fail("quantize", "quantize %q; allowed: %s (or no quantize key: none)", *raw.Quantize, strings.Join(embedderQuantize, ", "))
	case raw.Quantize != nil && *raw.Quantize != "none" && raw.Provider != "onnx":
		return fail("quantize", "quantize %q is for provider \"onnx\" (the model runs in process); provider %q embeds elsewhere", *raw.Quantize, raw.Provider)
	case raw.Provider == "openai" && !strings.HasPrefix(raw.BaseURL, "http://") && !strings.HasPrefix(raw.BaseURL, "https://"):
		return fail("base_url", "base_url %q; allowed: an http:// or https:// URL of an OpenAI-compatible endpoint", raw.BaseURL)
	}
	e := &Embedder{Provider: raw.Provider, Model: raw.Model, BaseURL: strings.TrimRight(raw.BaseURL, "/"), APIKeyEnv: raw.APIKeyEnv,
		QueryPrefix: raw.QueryPrefix, DocumentPrefix: raw.DocumentPrefix}
	if raw.Quantize != nil && *raw.Quantize != "none" {
		e.Quantize = *raw.Quantize
	}
	if raw.Provider == "onnx" {
		var err error
		if e.Model, err = r.resolve(raw.Model); err != nil {
			return fail("model", "model: %v", err)
		}
		if raw.Library != "" {
			if e.Library, err = r.resolve(raw.Library); err != nil {
				return fail("library", "library: %v", err)
			}
		}
	}
	return e, nil
}
