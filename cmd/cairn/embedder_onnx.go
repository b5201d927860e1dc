package main

import (
	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
)

// onnxEmbedder builds the in-process ONNX embedder.
func onnxEmbedder(ec *config.Embedder) (cairn.Embedder, error) {
	return nil, cairn.Invalidf("[embedder] provider \"onnx\" is not available in this build yet: use provider = \"openai\" with an OpenAI-compatible endpoint")
}
