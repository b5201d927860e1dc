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
	"net/url"
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

// Embedder calls POST {BaseURL}/embeddings: "/embeddings" is joined to the
// URL's path, before any query ("…/deployments/NAME?api-version=…" posts
// to "…/deployments/NAME/embeddings?api-version=…").
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
	target, err := endpoint(e.BaseURL)
	if err != nil {
		return nil, err
	}
	raw, err := httpjson.Post(ctx, e.HTTP, target.String(), e.APIKey, data, timeout, 256<<20)
	if err != nil {
		return nil, masked(err, target)
	}
	return e.decode(raw, len(in))
}

// endpoint returns the embeddings URL of base: "embeddings" joined to its
// path, its query kept after it (httpjson.Endpoint).
func endpoint(base string) (*url.URL, error) {
	u, ok := httpjson.Endpoint(base, "", "embeddings")
	if !ok {
		return nil, fmt.Errorf("%w: [embedder] base_url is not an http:// or https:// URL with a host", cairn.ErrUnavailable)
	}
	return u, nil
}

// shown is u as errors print it: a password and every query value replaced
// by "***", since a base_url may carry a key in either ("?api_key=…").
func shown(u *url.URL) string {
	c := *u
	if c.RawQuery != "" {
		parts := strings.Split(c.RawQuery, "&")
		for i, p := range parts {
			if k, _, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=***"
			} else if p != "" {
				parts[i] = "***" // a bare value may be the key itself
			}
		}
		c.RawQuery = strings.Join(parts, "&")
	}
	return hidePassword(&c)
}

// hidePassword returns u as a string with its password as "***", as
// net/http's errors print it.
func hidePassword(u *url.URL) string {
	if _, ok := u.User.Password(); !ok {
		return u.String()
	}
	return strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1)
}

// maskedError is an error whose message names the endpoint as shown; it
// still matches what it wraps (cairn.ErrBusy, cairn.ErrUnavailable).
type maskedError struct {
	msg string
	err error
}

func (m *maskedError) Error() string { return m.msg }
func (m *maskedError) Unwrap() error { return m.err }

// masked replaces u in err's message, as written and as net/http prints it
// (its password as "***"), with shown(u).
func masked(err error, u *url.URL) error {
	msg, show := err.Error(), shown(u)
	for _, form := range []string{u.String(), hidePassword(u)} {
		msg = strings.ReplaceAll(msg, form, show)
	}
	if msg == err.Error() {
		return err
	}
	return &maskedError{msg: msg, err: err}
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
