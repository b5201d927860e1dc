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
// CAIRN_ONNXRUNTIME_LIB, the directory's tokenizer.json, the weights
// quantized as [embedder] quantize says ("int8": onnx.QuantizeInt8).
// workers is the number of sessions (0: the package default, 2). cacheDir
// keeps the model's optimized graph between processes (in the data
// directory, cache/onnx: a one-shot hybrid search then skips the graph
// optimization, about half its model load; onnx.Options.CacheDir).
func onnxEmbedder(ec *config.Embedder, workers int, cacheDir string) (cairn.Embedder, error) {
	lib := ec.Library
	if lib == "" {
		lib = os.Getenv("CAIRN_ONNXRUNTIME_LIB")
	}
	return onnx.New(onnx.Options{ModelDir: ec.Model, Library: lib, Workers: workers, CacheDir: cacheDir,
		Quantize:      ec.Quantize,
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
}
