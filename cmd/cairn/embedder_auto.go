package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
)

// quantizeAuto is [embedder] quantize = "auto".
//
// It is not what a config without the key means: that stays "none" (FP32),
// as it was before auto existed, because a key's meaning is a fixed
// surface. The template of cairn init shows quantize = "auto" for a new
// [embedder]. The evidence (bench/RESULTS.md, "INT8 on a VNNI CPU" and
// session 12-04): on a CPU with VNNI, INT8 embeds at 0.36 to 0.49 of
// FP32's CPU with 0.77 of its peak memory, and LoCoMo dev turn recall@10
// is 68.1 either way (@1 38.2 FP32, 37.9 INT8: three questions of 883).
const quantizeAuto = "auto"

// autoChoice is what quantize = "auto" became for one agent's index, and
// why, in words for sync's stderr.
type autoChoice struct {
	Quantize string // onnx.QuantizeNone or onnx.QuantizeInt8
	Why      string
	// ByCPU: the index held no vectors of the model (or as many of each),
	// so the CPU chose; otherwise the index's vectors did.
	ByCPU bool
}

func (c autoChoice) String() string {
	q := c.Quantize
	if q == onnx.QuantizeNone {
		q = "none"
	}
	return fmt.Sprintf("quantize auto: %s (%s)", q, c.Why)
}

// chooseQuantize resolves quantize = "auto" for the agent's index:
//   - the index holds vectors of this model in FP32 or INT8: that one (the
//     one with more, when it holds both: a change of quantize that a sync
//     has not finished), so an existing index is never re-embedded by the
//     choice: an index embedded before auto existed stays FP32, and a data
//     directory moved to another CPU keeps its vectors;
//   - it holds none of either, or as many of each: int8 where
//     onnx.Int8Fast (amd64 with AVX-512 VNNI or AVX-VNNI: half the
//     embedding CPU, LoCoMo recall@10 unchanged), else none (without VNNI
//     INT8 saved 0 to 20% with 7-bit weights).
//
// The index is asked with one probe an identity (cairn.VectorProber),
// counted only when it holds both. When the model's identity or the
// index's vectors cannot be had, it fails: a guess could re-embed the
// index, and sync pauses embedding on an embedder that cannot be built.
func (e *env) chooseQuantize(ctx context.Context, cfg *config.Config, ec *config.Embedder, cacheDir string) (autoChoice, error) {
	cpu := autoChoice{Quantize: onnx.QuantizeNone, ByCPU: true, Why: "no vectors of this model yet; no VNNI on this CPU, where int8 saves little"}
	if onnx.Int8Fast() {
		cpu = autoChoice{Quantize: onnx.QuantizeInt8, ByCPU: true, Why: "no vectors of this model yet; the CPU has VNNI, where int8 halves the embedding CPU"}
	}
	id, err := modelIdentity(ec, cacheDir)
	if err != nil {
		return autoChoice{}, fmt.Errorf("quantize auto: the model's identity: %w", err)
	}
	fpKey := onnx.QuantizedIdentity(id, onnx.QuantizeNone).Key()
	q8Key := onnx.QuantizedIdentity(id, onnx.QuantizeInt8).Key()
	fp, q8, err := e.vectorsOf(ctx, cfg, fpKey, q8Key)
	if err != nil {
		return autoChoice{}, fmt.Errorf("quantize auto: which vectors the index holds: %w", err)
	}
	return pickQuantize(fp, q8, cpu), nil
}

// modelIdentity is the model's identity under any quantization (the
// caller derives both with onnx.QuantizedIdentity): from a graph cache
// file of either (no model file read), else read from the model.
func modelIdentity(ec *config.Embedder, cacheDir string) (cairn.EmbedderIdentity, error) {
	fp := *ec
	fp.Quantize = onnx.QuantizeNone
	o := onnxOptions(&fp, 1, cacheDir)
	for _, q := range []string{onnx.QuantizeNone, onnx.QuantizeInt8} {
		o.Quantize = q
		if id, ok := onnx.PeekIdentity(o); ok {
			return id, nil
		}
	}
	o.Quantize = onnx.QuantizeNone
	return onnx.IdentityFor(o)
}

// pickQuantize is chooseQuantize's rule over the model's FP32 and INT8
// vectors in the index (counts, or 1 for "some" where only one is there).
func pickQuantize(fp, q8 int, cpu autoChoice) autoChoice {
	switch {
	case fp > 0 && q8 == 0:
		return autoChoice{Quantize: onnx.QuantizeNone, Why: "the index's vectors of this model are FP32"}
	case q8 > 0 && fp == 0:
		return autoChoice{Quantize: onnx.QuantizeInt8, Why: "the index's vectors of this model are int8"}
	case fp > q8:
		return autoChoice{Quantize: onnx.QuantizeNone, Why: fmt.Sprintf("the index holds %d FP32 vectors of this model and %d int8: the larger", fp, q8)}
	case q8 > fp:
		return autoChoice{Quantize: onnx.QuantizeInt8, Why: fmt.Sprintf("the index holds %d int8 vectors of this model and %d FP32: the larger", q8, fp)}
	case fp > 0:
		cpu.Why = fmt.Sprintf("the index holds %d vectors of this model each way; by the CPU", fp)
	}
	return cpu
}

// vectorsOf tells how many of the agent's stored vectors the FP32 and the
// INT8 identity made, through a storage opened for this alone (the
// engine's is not reachable from the embedder it is given): 0 for none, 1
// for some when only one identity has any (one index probe each), the
// counts when both do. A SQLite data directory without an index has none,
// and none is made by asking.
func (e *env) vectorsOf(ctx context.Context, cfg *config.Config, fpKey, q8Key string) (fp, q8 int, err error) {
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return 0, 0, err
	}
	backend := storeBackend(cfg, e.agent)
	if backend == nil {
		if _, err := os.Stat(filepath.Join(dir, sqlite.IndexFile)); errors.Is(err, fs.ErrNotExist) {
			return 0, 0, nil
		}
		backend = sqlite.Backend{}
	}
	st, err := backend.Open(ctx, dir, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, OneShot: true, Ident: search.IdentText, Logf: e.logf})
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	p, ok := st.(cairn.VectorProber)
	if !ok { // count instead: slower, as right
		if fp, err = st.CountVectors(ctx, fpKey); err == nil {
			q8, err = st.CountVectors(ctx, q8Key)
		}
		return fp, q8, err
	}
	hasFP, err := p.HasVectors(ctx, fpKey)
	if err != nil {
		return 0, 0, err
	}
	hasQ8, err := p.HasVectors(ctx, q8Key)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case hasFP && hasQ8:
		if fp, err = st.CountVectors(ctx, fpKey); err == nil {
			q8, err = st.CountVectors(ctx, q8Key)
		}
		return fp, q8, err
	case hasFP:
		return 1, 0, nil
	case hasQ8:
		return 0, 1, nil
	}
	return 0, 0, nil
}
