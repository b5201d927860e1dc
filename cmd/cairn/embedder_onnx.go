package main

import (
	"os"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/tokenize"
)

// onnxEmbedder builds the in-process ONNX embedder: the model directory of
// [embedder] model, ONNX Runtime from [embedder] library or
// CAIRN_ONNXRUNTIME_LIB, the directory's tokenizer.json.
// workers is the number of sessions (0: the package default, 2).
func onnxEmbedder(ec *config.Embedder, workers int) (cairn.Embedder, error) {
	lib := ec.Library
	if lib == "" {
		lib = os.Getenv("CAIRN_ONNXRUNTIME_LIB")
	}
	return onnx.New(onnx.Options{ModelDir: ec.Model, Library: lib, Workers: workers,
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
}
