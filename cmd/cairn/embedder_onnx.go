package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/tokenize"
)

// onnxEmbedder builds the in-process ONNX embedder: the model directory of
// [embedder] model, ONNX Runtime from [embedder] library or
// CAIRN_ONNXRUNTIME_LIB, the directory's tokenizer.json, the weights
// quantized as [embedder] quantize says ("int8": onnx.QuantizeInt8; "auto"
// resolved by the caller, embedder_auto.go). workers is the number of
// sessions (0: the package default, 2). cacheDir keeps the model's
// optimized graph between processes (in the data directory, cache/onnx: a
// one-shot hybrid search then skips the graph optimization, about half
// its model load; onnx.Options.CacheDir).
//
// When that cache already names the model's identity (onnx.PeekIdentity),
// the model loads on its own goroutine and the embedder returned at once
// answers Identity from the cache: a one-shot hybrid search then loads its
// vectors, which are stored by identity, while the runtime starts and the
// session is made, not after (earlyEmbedder).
func onnxEmbedder(ec *config.Embedder, workers int, cacheDir string) (cairn.Embedder, error) {
	o := onnxOptions(ec, workers, cacheDir)
	if id, ok := onnx.PeekIdentity(o); ok {
		return startEarly(id, func() (cairn.Embedder, error) { return onnx.New(o) }), nil
	}
	return onnx.New(o)
}

func onnxOptions(ec *config.Embedder, workers int, cacheDir string) onnx.Options {
	lib := ec.Library
	if lib == "" {
		lib = os.Getenv("CAIRN_ONNXRUNTIME_LIB")
	}
	return onnx.Options{ModelDir: ec.Model, Library: lib, Workers: workers, CacheDir: cacheDir,
		Quantize:      ec.Quantize,
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.LoadFast(p) }}
}

// earlyEmbedder is an embedder whose identity is known before it is
// built: build runs on its own goroutine from startEarly on, Embed and
// Close wait for it. A build that fails, or gives another identity than
// the one announced (the model changed between the peek and the load),
// fails every Embed: vectors of one identity are never searched with a
// query of another.
type earlyEmbedder struct {
	id   cairn.EmbedderIdentity
	done chan struct{} // closed when the build returned
	emb  cairn.Embedder
	err  error
	once sync.Once // Close
}

func startEarly(id cairn.EmbedderIdentity, build func() (cairn.Embedder, error)) *earlyEmbedder {
	e := &earlyEmbedder{id: id, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		e.emb, e.err = build()
		if e.err != nil {
			e.emb = nil
			return
		}
		if got := e.emb.Identity(); got != id {
			e.err = fmt.Errorf("load embedder: the model's identity is %s, its cached graph said %s: %w",
				got.Key(), id.Key(), cairn.ErrUnavailable)
		}
	}()
	return e
}

func (e *earlyEmbedder) Identity() cairn.EmbedderIdentity { return e.id }

func (e *earlyEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.emb.Embed(ctx, kind, texts)
}

// Close waits for the build and closes what it built.
func (e *earlyEmbedder) Close() error {
	var err error
	e.once.Do(func() {
		<-e.done
		if c, ok := e.emb.(interface{ Close() error }); ok {
			err = c.Close()
		}
	})
	return err
}
