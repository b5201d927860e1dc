package onnx

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/cairnmemory/cairn"
)

// Files in a model directory.
const (
	ModelFile     = "model.onnx"
	TokenizerFile = "tokenizer.json"
	ManifestFile  = "cairn-model.json"
)

// Input styles, poolings.
const (
	StyleRagged = "ragged" // indices [N,2] + values [N] (Universal Sentence Encoder lite)
	StyleDense  = "dense"  // input_ids [B,S] (+ attention_mask, token_type_ids)

	PoolMean = "mean" // average of the token vectors under the attention mask
	PoolCLS  = "cls"  // the first token's vector
	PoolNone = "none" // the output is already one vector per text
)

// Defaults that depend on the input style.
const (
	DefaultRaggedMaxTokens = 128  // USE-lite reads positions 0 to 127 only
	DefaultRaggedVocab     = 8002 // USE-lite: 8,000 pieces plus two embedding rows
	DefaultDenseMaxTokens  = 512  // the position limit of BERT-style encoders
)

// Manifest is the optional cairn-model.json of a model directory. Every
// field may be left out; missing ones are detected from the model's inputs
// and outputs.
type Manifest struct {
	InputStyle     string `json:"input_style,omitempty"` // "ragged" or "dense"
	Pooling        string `json:"pooling,omitempty"`     // "mean", "cls" or "none"
	Normalize      *bool  `json:"normalize,omitempty"`   // L2-normalize in Go; default true
	MaxTokens      int    `json:"max_tokens,omitempty"`  // tokens kept per text
	QueryPrefix    string `json:"query_prefix,omitempty"`
	DocumentPrefix string `json:"document_prefix,omitempty"`
	Output         string `json:"output,omitempty"`     // output tensor name
	VocabSize      int    `json:"vocab_size,omitempty"` // ids must be below it; 0: unchecked (ragged: 8002)
}

// spec is what running the model needs: a manifest with every choice made.
type spec struct {
	style, pooling, output string
	inputs                 []string // session input names, in feeding order
	normalize              bool
	maxTokens, vocab, dim  int // dim 0: learned from a probe run
	queryPrefix, docPrefix string
}

func readManifest(dir string) (Manifest, error) {
	var m Manifest
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("read model manifest: %w", err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, cairn.Invalidf("read model manifest %s: %v", filepath.Join(dir, ManifestFile), err)
	}
	if !slices.Contains([]string{"", StyleRagged, StyleDense}, m.InputStyle) {
		return m, cairn.Invalidf("model manifest: input_style %q: want %q or %q", m.InputStyle, StyleRagged, StyleDense)
	}
	if !slices.Contains([]string{"", PoolMean, PoolCLS, PoolNone}, m.Pooling) {
		return m, cairn.Invalidf("model manifest: pooling %q: want %q, %q or %q", m.Pooling, PoolMean, PoolCLS, PoolNone)
	}
	if m.MaxTokens < 0 || m.VocabSize < 0 {
		return m, cairn.Invalidf("model manifest: max_tokens and vocab_size must not be negative")
	}
	return m, nil
}

// resolve combines the manifest with the model's inputs and outputs.
func resolve(m Manifest, ins, outs []ort.InputOutputInfo) (spec, error) {
	s := spec{style: m.InputStyle, normalize: m.Normalize == nil || *m.Normalize,
		queryPrefix: m.QueryPrefix, docPrefix: m.DocumentPrefix, vocab: m.VocabSize}
	if len(outs) == 0 {
		return s, cairn.Invalidf("model has no outputs")
	}
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = in.Name
	}
	if s.style == "" {
		switch {
		case slices.Contains(names, "indices") && slices.Contains(names, "values"):
			s.style = StyleRagged
		case slices.Contains(names, "input_ids"):
			s.style = StyleDense
		default:
			return s, cairn.Invalidf("model inputs %q: want indices and values (ragged) or input_ids (dense), or set input_style in %s", names, ManifestFile)
		}
	}
	var err error
	if s.style == StyleRagged {
		err = s.ragged(m, names, outs)
	} else {
		err = s.dense(m, ins, outs)
	}
	if err != nil {
		return s, err
	}
	if m.MaxTokens > 0 {
		s.maxTokens = m.MaxTokens
	}
	return s, s.checkOutput(outs)
}

func (s *spec) ragged(m Manifest, names []string, outs []ort.InputOutputInfo) error {
	if !slices.Equal(sorted(names), []string{"indices", "values"}) {
		return cairn.Invalidf("ragged model inputs %q: want exactly indices and values", names)
	}
	s.inputs = []string{"indices", "values"}
	s.pooling, s.maxTokens = PoolNone, DefaultRaggedMaxTokens
	if m.Pooling != "" && m.Pooling != PoolNone {
		return cairn.Invalidf("model manifest: pooling %q: a ragged model outputs one vector per text, want %q", m.Pooling, PoolNone)
	}
	if s.vocab == 0 {
		s.vocab = DefaultRaggedVocab
	}
	s.output = m.Output
	if s.output == "" {
		s.output = outs[0].Name
	}
	return nil
}

func (s *spec) dense(m Manifest, ins, outs []ort.InputOutputInfo) error {
	for _, in := range ins {
		if !slices.Contains([]string{"input_ids", "attention_mask", "token_type_ids"}, in.Name) {
			return cairn.Invalidf("dense model input %q: want input_ids, attention_mask and token_type_ids only", in.Name)
		}
		if in.DataType != ort.TensorElementDataTypeInt64 {
			return cairn.Invalidf("dense model input %q is %s: want int64", in.Name, in.DataType)
		}
		s.inputs = append(s.inputs, in.Name)
	}
	if !slices.Contains(s.inputs, "input_ids") {
		return cairn.Invalidf("dense model inputs %q: want input_ids", s.inputs)
	}
	s.maxTokens = DefaultDenseMaxTokens
	s.output, s.pooling = m.Output, m.Pooling
	if s.output == "" {
		s.output, s.pooling = pickDenseOutput(outs, m.Pooling)
	}
	if s.pooling == "" {
		s.pooling = PoolMean
		if o := findOutput(outs, s.output); o != nil && len(o.Dimensions) == 2 {
			s.pooling = PoolNone
		}
	}
	return nil
}

// pickDenseOutput prefers a pooled sentence embedding, then the token
// states (mean pooling), then a pooler output, then the first output.
func pickDenseOutput(outs []ort.InputOutputInfo, pooling string) (string, string) {
	for _, c := range []struct{ name, pooling string }{
		{"sentence_embedding", PoolNone}, {"last_hidden_state", PoolMean},
		{"token_embeddings", PoolMean}, {"pooler_output", PoolNone},
	} {
		if findOutput(outs, c.name) != nil {
			return c.name, cmp.Or(pooling, c.pooling)
		}
	}
	return outs[0].Name, pooling
}

// checkOutput checks the chosen output's rank against the pooling and
// takes the dimension from its shape when the shape fixes it.
func (s *spec) checkOutput(outs []ort.InputOutputInfo) error {
	o := findOutput(outs, s.output)
	if o == nil {
		return cairn.Invalidf("model output %q not found (the model has %q)", s.output, outputNames(outs))
	}
	if o.DataType != ort.TensorElementDataTypeFloat {
		return cairn.Invalidf("model output %q is %s: want float32", o.Name, o.DataType)
	}
	want := 3
	if s.pooling == PoolNone {
		want = 2
	}
	if n := len(o.Dimensions); n != 0 && n != want {
		return cairn.Invalidf("model output %q has rank %d: pooling %q wants rank %d", o.Name, n, s.pooling, want)
	}
	if n := len(o.Dimensions); n > 0 && o.Dimensions[n-1] > 0 {
		s.dim = int(o.Dimensions[n-1])
	}
	return nil
}

func findOutput(outs []ort.InputOutputInfo, name string) *ort.InputOutputInfo {
	for i := range outs {
		if outs[i].Name == name {
			return &outs[i]
		}
	}
	return nil
}

func outputNames(outs []ort.InputOutputInfo) []string {
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.Name
	}
	return names
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// modelID names the model by its directory and a hash of its weights:
// "use-lite@efd926c91a23".
func modelID(dir string, sum []byte) string {
	return filepath.Base(filepath.Clean(dir)) + "@" + hex.EncodeToString(sum[:6])
}

// tokenizerID names tokenizer.json by its hash; "" when there is none.
func tokenizerID(dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, TokenizerFile))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(raw)
	return TokenizerFile + "@" + hex.EncodeToString(sum[:6])
}
