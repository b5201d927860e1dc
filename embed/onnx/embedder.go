package onnx

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/cairnmemory/cairn"
)

// Defaults for Options.
//
// DefaultBatch is small on purpose. A run's working set grows with the
// batch (USE-lite at 128 tokens: activations of about 1.5 MB a text), and
// ONNX Runtime's arena keeps its largest allocation for the life of the
// session: at 32 texts a batch the sessions held 490 MB and each text cost
// 24 to 25 CPU-ms on this 2-core machine; at 4 texts 215 MB and 18 to 19
// CPU-ms (the run's tensors stay in cache). 2 was no faster than 4 and 8
// was slower (bench/RESULTS.md, "Embedding throughput").
const (
	DefaultWorkers = 2
	DefaultBatch   = 4
)

// Tokenizer turns a text into the model's token ids. It must be safe for
// concurrent use.
type Tokenizer interface {
	Encode(text string) []int
}

// Options configure New. ModelDir and a tokenizer (Tokenizer, or
// LoadTokenizer to make one from the directory's tokenizer.json) are required.
type Options struct {
	ModelDir      string                               // model.onnx, tokenizer.json, optional cairn-model.json
	Library       string                               // path of libonnxruntime.so; "" searches DefaultLibrary
	Tokenizer     Tokenizer                            // used as is when set
	LoadTokenizer func(path string) (Tokenizer, error) // called with ModelDir/tokenizer.json when Tokenizer is nil
	Workers       int                                  // sessions run in parallel, one intra-op thread each; default 2
	Batch         int                                  // texts per model run; default 4
	MaxTokens     int                                  // tokens kept per text; 0: the manifest's, else the style's default
	// Threads is the intra-op threads of each session (default 1). Two
	// sessions of one thread each beat one session of two on this model
	// (bench/RESULTS.md, "Embedding at the compute floor"); the option is
	// there to measure that again. NoSpin makes a session's idle pool
	// threads sleep instead of spinning (only matters with Threads > 1).
	Threads int
	NoSpin  bool
	// NoArena turns ONNX Runtime's CPU memory arena off (each tensor
	// allocated and freed on its own) and NoMemPattern its memory pattern
	// (the per-shape allocation plan); both are on by default. They are
	// here to measure where the sessions' memory goes (bench/RESULTS.md,
	// "INT8 weights, continued").
	NoArena      bool
	NoMemPattern bool
	// CacheDir is a folder where New keeps the model's optimized graph for
	// the next process (cache.go); "" optimizes at every New.
	CacheDir string
	// Quantize is "" or "none" (the model's FP32 weights) or "int8": the
	// weight matrices quantized at load (quantize.go). It is part of the
	// identity ("use-lite@efd926c91a23+int8"), so an index embedded one
	// way re-embeds when switched to the other.
	Quantize string
	// Int8Bits is how much of int8 the quantized weights use: 0 picks by
	// the CPU (8 bits, or 7 on x86 without VNNI, whose kernel would
	// saturate: quantbits.go), 7 or 8 force it (to measure). The identity
	// is "+int8" either way: the vectors of the two are within the
	// quantization's own distance of FP32's.
	Int8Bits int
}

// SetDefaults fills zero fields with the defaults.
func (o *Options) SetDefaults() {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
}

// Embedder runs an ONNX sentence encoder locally. It is safe for concurrent
// use; Close releases its sessions.
type Embedder struct {
	spec     spec
	tok      Tokenizer
	id       cairn.EmbedderIdentity
	batch    int
	workers  int
	sessions chan *ort.DynamicAdvancedSession // idle sessions
	all      []*ort.DynamicAdvancedSession
	done     chan struct{} // closed by Close
	unmap    func() error  // the cache file the sessions read in place; nil without
	// sessionOpts holds the Options each session is made with (Threads,
	// NoSpin, NoArena, NoMemPattern).
	sessionOpts Options

	close sync.Once
}

var _ cairn.Embedder = (*Embedder)(nil)

// New loads the model in o.ModelDir into o.Workers sessions. A missing model
// or runtime library is an error wrapping cairn.ErrUnavailable; a model or
// manifest it cannot use wraps cairn.ErrInvalid.
func New(o Options) (*Embedder, error) {
	o.SetDefaults()
	q, err := normalizeQuantize(o.Quantize)
	if err != nil {
		return nil, cairn.Invalidf("onnx embedder: %v", err)
	}
	o.Quantize = q
	top, err := int8Top(o.Int8Bits)
	if err != nil {
		return nil, cairn.Invalidf("onnx embedder: %v", err)
	}
	qkey := quantizeKey(q, top)
	if o.Tokenizer == nil && o.LoadTokenizer == nil { // before the runtime: the same error with or without one
		return nil, cairn.Invalidf("onnx embedder: no tokenizer: set Options.Tokenizer or Options.LoadTokenizer")
	}
	modelPath := filepath.Join(o.ModelDir, ModelFile)
	st, err := statOf(modelPath)
	if err != nil {
		return nil, modelError(o.ModelDir, err)
	}
	m, err := readManifest(o.ModelDir)
	if err != nil {
		return nil, err
	}
	// The tokenizer loads (about 50 CPU-ms for USE-lite's) on another
	// core while the runtime starts and the session is made: a one-shot
	// search waits for the longer of the two, not their sum. Every
	// return below waits for it (the deferred call).
	toks := make(chan error, 1)
	var tok Tokenizer
	go func() {
		var err error
		tok, err = tokenizer(o)
		toks <- err
	}()
	waitTok := sync.OnceValue(func() error { return <-toks })
	defer waitTok()
	if err := initRuntime(o.Library); err != nil {
		return nil, err
	}
	if !cacheSupported {
		o.CacheDir = ""
	}
	var cache *cached
	cachePathName := ""
	if o.CacheDir != "" {
		cachePathName = cachePath(o.CacheDir, modelPath, qkey)
		cache = openCache(cachePathName, st, qkey)
	}
	getTok := func() (Tokenizer, error) { return tok, waitTok() }
	e, err := newFromCache(o, m, getTok, cache, cachePathName)
	if cache != nil && err == nil {
		return e, nil
	}
	// No cache, or one the runtime refused (removed by openFromCache):
	// read the model.
	model, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, modelError(o.ModelDir, err)
	}
	sum := sha256.Sum256(model) // of the file: the identity names the weights it holds
	if o.Quantize == QuantizeInt8 {
		if model, _, err = quantizeInt8(model, top); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", cairn.ErrInvalid, modelPath, err)
		}
		releaseModelBytes() // the FP32 bytes and the rewrite's scratch
	}
	ins, outs, err := inputsOutputs(model)
	if err != nil {
		return nil, fmt.Errorf("%w: read model %s: %v", cairn.ErrInvalid, modelPath, err)
	}
	e, err = newEmbedder(o, m, ins, outs)
	if err != nil {
		return nil, err
	}
	if o.CacheDir == "" {
		err = e.openSessions(model, ort.GraphOptimizationLevelEnableAll, nil)
	} else {
		hdr := cacheHeader{ModelSHA256: hex.EncodeToString(sum[:]), Stat: st, Inputs: ins, Outputs: outs, Quantize: qkey}
		err = e.openAndCache(model, hdr, cachePathName)
	}
	releaseModelBytes() // the sessions hold the graph now
	return e.finish(o, sum[:], getTok, err)
}

// releaseModelBytes hands the Go heap's free memory back to the system
// after New read the model (no cache, or a cache miss): the model's bytes,
// and with int8 the FP32 ones and the rewrite's scratch, about 100 MB for
// USE-lite, which the Go runtime would otherwise keep for minutes while
// the sessions' own memory grows beside it (bench/RESULTS.md, "INT8
// weights, continued": the peak of an INT8 New without a cache was above
// FP32's for this). It forces a garbage collection, once a process at
// most in practice, so a mapped cache (the usual path) never pays it.
func releaseModelBytes() { debug.FreeOSMemory() }

// newFromCache opens the sessions from a mapped cache file; (nil, nil)
// without one.
func newFromCache(o Options, m Manifest, getTok func() (Tokenizer, error), c *cached, path string) (*Embedder, error) {
	if c == nil {
		return nil, nil
	}
	sum, err := hex.DecodeString(c.hdr.ModelSHA256)
	if err != nil {
		c.unmap()
		return nil, err
	}
	e, err := newEmbedder(o, m, c.hdr.Inputs, c.hdr.Outputs)
	if err != nil {
		c.unmap()
		return nil, err
	}
	if err := e.openFromCache(c, path); err != nil {
		return nil, err
	}
	return e.finish(o, sum, getTok, nil)
}

// newEmbedder resolves the spec; the sessions and the tokenizer come after.
func newEmbedder(o Options, m Manifest, ins, outs []ort.InputOutputInfo) (*Embedder, error) {
	sp, err := resolve(m, ins, outs)
	if err != nil {
		return nil, err
	}
	if o.MaxTokens > 0 {
		sp.maxTokens = min(o.MaxTokens, sp.maxTokens)
	}
	return &Embedder{spec: sp, batch: o.Batch, workers: o.Workers, sessionOpts: o,
		sessions: make(chan *ort.DynamicAdvancedSession, o.Workers), done: make(chan struct{})}, nil
}

// finish probes the dimension, takes the tokenizer and sets the identity,
// or closes e when opening the sessions failed (err) or the tokenizer did.
func (e *Embedder) finish(o Options, sum []byte, getTok func() (Tokenizer, error), err error) (*Embedder, error) {
	if err == nil {
		err = e.probe()
	}
	if err == nil {
		e.tok, err = getTok()
	}
	if err != nil {
		e.Close()
		return nil, err
	}
	e.id = identityOf(o, sum, e.spec) // peek.go
	return e, nil
}

// inputsOutputs reads the model's inputs and outputs from its bytes
// (modelInfo); only a model that walk cannot read is handed to ONNX
// Runtime's own reader, which builds a temporary session for it.
func inputsOutputs(model []byte) (ins, outs []ort.InputOutputInfo, err error) {
	ins, outs, err = modelInfo(model)
	if err == nil {
		return ins, outs, nil
	}
	return ort.GetInputOutputInfoWithONNXData(model)
}

func modelError(dir string, err error) error {
	return &cairn.Error{Op: "load onnx model", Path: dir, Err: fmt.Errorf("%w: %v", cairn.ErrUnavailable, err),
		Hint: "point [embedder] model at a folder holding " + ModelFile + " and " + TokenizerFile + " (cairn models pull OWNER/NAME fetches one)"}
}

func tokenizer(o Options) (Tokenizer, error) {
	switch {
	case o.Tokenizer != nil:
		return o.Tokenizer, nil
	case o.LoadTokenizer != nil:
		path := filepath.Join(o.ModelDir, TokenizerFile)
		tok, err := o.LoadTokenizer(path)
		if err != nil {
			return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
		}
		return tok, nil
	}
	return nil, cairn.Invalidf("onnx embedder: no tokenizer: set Options.Tokenizer or Options.LoadTokenizer")
}

// openSessions creates e.workers sessions, each with Options.Threads
// intra-op threads (1 by default: parallelism comes from running Workers
// sessions side by side), at the optimization level; set, when not nil,
// adds to each session's options (cache.go: saving the optimized graph,
// reading a saved one).
func (e *Embedder) openSessions(model []byte, level ort.GraphOptimizationLevel, set func(*ort.SessionOptions) error) error {
	o := e.sessionOpts
	options := func() (*ort.SessionOptions, error) {
		opts, err := ort.NewSessionOptions()
		if err != nil {
			return nil, fmt.Errorf("create session options: %w", err)
		}
		if err := configure(opts, o, level); err != nil {
			opts.Destroy()
			return nil, err
		}
		if set != nil {
			if err := set(opts); err != nil {
				opts.Destroy()
				return nil, fmt.Errorf("set session options: %w", err)
			}
		}
		return opts, nil
	}
	for range e.workers {
		opts, err := options()
		if err != nil {
			return err
		}
		s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, e.spec.inputs, []string{e.spec.output}, opts)
		opts.Destroy()
		if err != nil {
			return fmt.Errorf("%w: create onnx session: %v", cairn.ErrInvalid, err)
		}
		e.all = append(e.all, s)
		e.sessions <- s
	}
	return nil
}

// configure applies o's threads, spinning, arena and memory pattern and
// the optimization level to a session's options.
func configure(opts *ort.SessionOptions, o Options, level ort.GraphOptimizationLevel) error {
	if err := opts.SetIntraOpNumThreads(o.Threads); err != nil {
		return fmt.Errorf("set intra-op threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return fmt.Errorf("set inter-op threads: %w", err)
	}
	if o.NoSpin {
		if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return fmt.Errorf("turn spinning off: %w", err)
		}
	}
	if o.NoArena {
		if err := opts.SetCpuMemArena(false); err != nil {
			return fmt.Errorf("turn the memory arena off: %w", err)
		}
	}
	if o.NoMemPattern {
		if err := opts.SetMemPattern(false); err != nil {
			return fmt.Errorf("turn the memory pattern off: %w", err)
		}
	}
	if err := opts.SetGraphOptimizationLevel(level); err != nil {
		return fmt.Errorf("set graph optimization level: %w", err)
	}
	return nil
}

// closeSessions destroys the sessions made so far (before New returns).
func (e *Embedder) closeSessions() {
	for range e.all {
		(<-e.sessions).Destroy()
	}
	e.all = nil
}

// probe runs one single-token text when the output shape does not fix the
// dimension, so that Identity is complete before the first Embed.
func (e *Embedder) probe() error {
	if e.spec.dim != 0 {
		return nil
	}
	s := <-e.sessions
	defer func() { e.sessions <- s }()
	vecs, err := e.spec.run(s, [][]int64{{0}})
	if err != nil {
		return fmt.Errorf("probe model dimension: %w", err)
	}
	e.spec.dim = len(vecs[0])
	return nil
}

// Identity names the vectors: provider "onnx", model "<dir name>@<sha256
// prefix of model.onnx>" (with "+int8" when quantized), the tokenizer as "tokenizer.json@<sha256 prefix>".
func (e *Embedder) Identity() cairn.EmbedderIdentity { return e.id }

// Close waits for running batches and releases the sessions. Embed calls
// after Close fail with cairn.ErrUnavailable.
func (e *Embedder) Close() error {
	var errs []error
	e.close.Do(func() {
		close(e.done)
		for range e.all {
			s := <-e.sessions
			if err := s.Destroy(); err != nil {
				errs = append(errs, err)
			}
		}
		if e.unmap != nil {
			if err := e.unmap(); err != nil {
				errs = append(errs, err)
			}
		}
	})
	return errors.Join(errs...)
}
