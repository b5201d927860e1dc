package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
}

// SetDefaults fills zero fields with the defaults.
func (o *Options) SetDefaults() {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
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
	close    sync.Once
}

var _ cairn.Embedder = (*Embedder)(nil)

// New loads the model in o.ModelDir into o.Workers sessions. A missing model
// or runtime library is an error wrapping cairn.ErrUnavailable; a model or
// manifest it cannot use wraps cairn.ErrInvalid.
func New(o Options) (*Embedder, error) {
	o.SetDefaults()
	model, err := os.ReadFile(filepath.Join(o.ModelDir, ModelFile))
	if err != nil {
		return nil, modelError(o.ModelDir, err)
	}
	m, err := readManifest(o.ModelDir)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer(o)
	if err != nil {
		return nil, err
	}
	if err := initRuntime(o.Library); err != nil {
		return nil, err
	}
	ins, outs, err := inputsOutputs(model)
	if err != nil {
		return nil, fmt.Errorf("%w: read model %s: %v", cairn.ErrInvalid, filepath.Join(o.ModelDir, ModelFile), err)
	}
	sp, err := resolve(m, ins, outs)
	if err != nil {
		return nil, err
	}
	if o.MaxTokens > 0 {
		sp.maxTokens = min(o.MaxTokens, sp.maxTokens)
	}
	e := &Embedder{spec: sp, tok: tok, batch: o.Batch, workers: o.Workers,
		sessions: make(chan *ort.DynamicAdvancedSession, o.Workers), done: make(chan struct{})}
	if err := e.open(model); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.probe(); err != nil {
		e.Close()
		return nil, err
	}
	e.id = cairn.EmbedderIdentity{Provider: "onnx", Model: modelID(o.ModelDir, model), Dimension: e.spec.dim,
		Normalized: e.spec.normalize, QueryPrefix: sp.queryPrefix, DocumentPrefix: sp.docPrefix,
		Tokenizer: tokenizerID(o.ModelDir)}
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

// open creates the sessions, each with one intra-op thread: parallelism
// comes from running Workers sessions side by side.
func (e *Embedder) open(model []byte) error {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("create session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		return fmt.Errorf("set intra-op threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return fmt.Errorf("set inter-op threads: %w", err)
	}
	for range e.workers {
		s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, e.spec.inputs, []string{e.spec.output}, opts)
		if err != nil {
			return fmt.Errorf("%w: create onnx session: %v", cairn.ErrInvalid, err)
		}
		e.all = append(e.all, s)
		e.sessions <- s
	}
	return nil
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
// prefix of model.onnx>", the tokenizer as "tokenizer.json@<sha256 prefix>".
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
	})
	return errors.Join(errs...)
}
