package main

import (
	"os"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	embedopenai "github.com/cairnmemory/cairn/embed/openai"
)

// embedder builds the configured embedder, or nil without one. The ONNX
// provider is built by onnxEmbedder (embedder_onnx.go).
func (e *env) embedder(cfg *config.Config) (cairn.Embedder, error) {
	ec := cfg.Embedder
	if ec == nil {
		return nil, nil
	}
	switch ec.Provider {
	case "openai":
		key := ""
		if ec.APIKeyEnv != "" {
			key = strings.TrimSpace(os.Getenv(ec.APIKeyEnv))
		}
		emb := embedopenai.New(ec.BaseURL, ec.Model, key)
		emb.QueryPrefix, emb.DocumentPrefix = ec.QueryPrefix, ec.DocumentPrefix
		return emb, nil
	case "onnx":
		return onnxEmbedder(ec)
	}
	return nil, cairn.Invalidf("[embedder] provider %q: allowed onnx, openai, none", ec.Provider)
}
