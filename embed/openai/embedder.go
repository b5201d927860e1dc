// Package openai embeds texts through an OpenAI-compatible /v1/embeddings
// endpoint (OpenAI, Ollama, vLLM, TEI, llama.cpp server): batched, with a
// timeout per request and exponential backoff on 429 and 5xx answers.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/httpjson"
)

// Defaults for an Embedder.
const (
	DefaultBatch   = 64
	DefaultTimeout = 60 * time.Second
	DefaultRetries = 3
)

// Embedder calls POST {BaseURL}/embeddings.
type Embedder struct {
	BaseURL        string
	Model          string
	APIKey         string // bearer token; empty for keyless local servers
	Dimension      int    // expected; 0 learns it from the first answer
	Batch          int    // texts per request
	Timeout        time.Duration
	Retries        int
	Backoff        time.Duration // first wait, doubled each retry (default 500 ms)
	QueryPrefix    string        // prepended to queries (e.g. "search_query: ")
	DocumentPrefix string        // prepended to documents
	HTTP           *http.Client

	learned atomic.Int64 // the dimension of the first answer, when Dimension is 0
}

var _ cairn.Embedder = (*Embedder)(nil)

// New returns an embedder with defaults filled.
func New(baseURL, model, apiKey string) *Embedder {
	return &Embedder{BaseURL: strings.TrimRight(baseURL, "/"), Model: model, APIKey: apiKey,
		Batch: DefaultBatch, Timeout: DefaultTimeout, Retries: DefaultRetries, Backoff: 500 * time.Millisecond}
}

// Identity names the vectors this embedder makes. Vectors are normalized
// here (the endpoint's normalization is not trusted). Its Dimension is the
// configured one, 0 when it is learned from answers: an identity must not
// change when the first answer arrives, or vectors stored before it and
// searched after it would belong to different spaces.
func (e *Embedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "openai", Model: e.Model, Dimension: e.Dimension, Normalized: true,
		QueryPrefix: e.QueryPrefix, DocumentPrefix: e.DocumentPrefix}
}

type request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one unit vector per text, in order.
func (e *Embedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	if e.BaseURL == "" || e.Model == "" {
		return nil, fmt.Errorf("%w: no embedding endpoint or model configured ([embedder] base_url and model)", cairn.ErrUnavailable)
	}
	prefix := e.DocumentPrefix
	if kind == cairn.EmbedQuery {
		prefix = e.QueryPrefix
	}
	batch := e.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += batch {
		in := make([]string, 0, batch)
		for _, t := range texts[i:min(i+batch, len(texts))] {
			in = append(in, prefix+t)
		}
		vecs, err := e.withRetries(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (e *Embedder) withRetries(ctx context.Context, in []string) ([][]float32, error) {
	backoff := e.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	var out [][]float32
	tries, start := 0, time.Now()
	err := httpjson.Retry(ctx, e.Retries, backoff, func() error {
		var err error
		tries++
		out, err = e.post(ctx, in)
		return err
	})
	if err != nil && tries > 1 && ctx.Err() == nil {
		// The last try's error alone ("timed out after 1m0s") hid the
		// wait: four tries of an endpoint that never answers took four
		// minutes (ux F25).
		err = fmt.Errorf("%w (%d tries in %s)", err, tries, time.Since(start).Round(time.Second))
	}
	return out, err
}

func (e *Embedder) post(ctx context.Context, in []string) ([][]float32, error) {
	data, err := json.Marshal(request{Model: e.Model, Input: in})
	if err != nil {
		return nil, fmt.Errorf("encode embedding request: %w", err)
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	raw, err := httpjson.Post(ctx, e.HTTP, e.BaseURL+"/embeddings", e.APIKey, data, timeout, 256<<20)
	if err != nil {
		return nil, err
	}
	return e.decode(raw, len(in))
}

// decode checks the answer: one vector per input, each index once, all of
// the expected dimension; vectors come back normalized to unit length.
func (e *Embedder) decode(raw []byte, n int) ([][]float32, error) {
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: unreadable embeddings response: %.200s", cairn.ErrInvalid, raw)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", cairn.ErrInvalid, len(r.Data), n)
	}
	sort.Slice(r.Data, func(i, j int) bool { return r.Data[i].Index < r.Data[j].Index })
	out := make([][]float32, n)
	for i, d := range r.Data {
		if d.Index != i {
			return nil, fmt.Errorf("%w: embedding indexes are not 0..%d", cairn.ErrInvalid, n-1)
		}
		want := int64(e.Dimension)
		if want == 0 {
			e.learned.CompareAndSwap(0, int64(len(d.Embedding)))
			want = e.learned.Load()
		}
		if int64(len(d.Embedding)) != want || want == 0 {
			return nil, fmt.Errorf("%w: embedding %d has %d dimensions, want %d", cairn.ErrInvalid, i, len(d.Embedding), want)
		}
		out[i] = normalize(d.Embedding)
	}
	return out, nil
}

func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}
