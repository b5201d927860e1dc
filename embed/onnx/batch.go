package onnx

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/cairnmemory/cairn"
)

// Embed returns one vector per text, in input order. kind is
// cairn.EmbedQuery or cairn.EmbedDocument ("" counts as a document) and
// picks the manifest's prefix. An empty text (or one the tokenizer turns
// into no tokens) is left out of the model run and gets a zero vector, which
// matches nothing in cosine or dot-product search. Texts are cut to
// MaxTokens tokens.
//
// Texts are sorted by token count and batched with neighbours of similar
// length (each batch is padded to its longest text inside the model); the
// batches run on Workers sessions in parallel. Cancelling ctx stops the work
// between batches.
func (e *Embedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	prefix, err := e.prefix(kind)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.done:
		return nil, errClosed
	default:
	}
	toks, err := e.encode(prefix, texts)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	if err := e.runAll(ctx, toks, plan(toks, e.batch), out); err != nil {
		return nil, err
	}
	for i, v := range out {
		if v == nil {
			out[i] = make([]float32, e.spec.dim)
		}
	}
	return out, nil
}

var errClosed = fmt.Errorf("%w: onnx embedder is closed", cairn.ErrUnavailable)

func (e *Embedder) prefix(kind string) (string, error) {
	switch kind {
	case cairn.EmbedQuery:
		return e.spec.queryPrefix, nil
	case cairn.EmbedDocument, "":
		return e.spec.docPrefix, nil
	}
	return "", cairn.Invalidf("embed kind %q: want %q or %q", kind, cairn.EmbedQuery, cairn.EmbedDocument)
}

// encode tokenizes the texts, cuts them to maxTokens and checks the ids
// against the vocabulary; an empty text stays nil.
func (e *Embedder) encode(prefix string, texts []string) ([][]int64, error) {
	toks := make([][]int64, len(texts))
	for i, text := range texts {
		if text == "" {
			continue
		}
		ids := e.tok.Encode(prefix + text)
		ids = ids[:min(len(ids), e.spec.maxTokens)]
		t := make([]int64, len(ids))
		for j, id := range ids {
			if id < 0 || e.spec.vocab > 0 && id >= e.spec.vocab {
				return nil, cairn.Invalidf("embed text %d: token id %d is outside the model's vocabulary [0, %d) (a tokenizer that does not match the model?)", i, id, e.spec.vocab)
			}
			t[j] = int64(id)
		}
		if len(t) > 0 {
			toks[i] = t
		}
	}
	return toks, nil
}

// plan groups the non-empty texts into batches of up to size texts of
// similar length, longest first so that parallel workers finish together.
func plan(toks [][]int64, size int) [][]int {
	var idx []int
	for i, t := range toks {
		if len(t) > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(len(toks[b]), len(toks[a])) })
	var batches [][]int
	for len(idx) > 0 {
		n := min(size, len(idx))
		batches = append(batches, idx[:n:n])
		idx = idx[n:]
	}
	return batches
}

// runAll runs the batches on up to e.workers goroutines and writes each
// vector to out at its text's index. The first error stops the rest.
func (e *Embedder) runAll(ctx context.Context, toks [][]int64, batches [][]int, out [][]float32) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	fail := func(err error) {
		once.Do(func() { first = err })
		cancel()
	}
	for range min(e.workers, len(batches)) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(batches); j = int(next.Add(1) - 1) {
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				if err := e.runBatch(ctx, toks, batches[j], out); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

func (e *Embedder) runBatch(ctx context.Context, toks [][]int64, batch []int, out [][]float32) error {
	var s *ort.DynamicAdvancedSession
	select {
	case <-e.done:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	case s = <-e.sessions:
	}
	defer func() { e.sessions <- s }()
	in := make([][]int64, len(batch))
	for k, i := range batch {
		in[k] = toks[i]
	}
	vecs, err := e.spec.run(s, in)
	if err != nil {
		return err
	}
	for k, i := range batch {
		out[i] = vecs[k]
	}
	return nil
}
