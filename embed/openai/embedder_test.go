package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// fakeServer answers /v1/embeddings with vectors derived from the input
// length, and checks every request body.
func fakeServer(t *testing.T, calls *atomic.Int32, status func(n int32) int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("request %s auth %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "emb-1" || len(req.Input) == 0 {
			t.Errorf("body %+v, %v", req, err)
		}
		if code := status(n); code != 200 {
			w.WriteHeader(code)
			return
		}
		var parts []string
		for i := len(req.Input) - 1; i >= 0; i-- { // out of order on purpose
			parts = append(parts, fmt.Sprintf(`{"index":%d,"embedding":[%d,4,0]}`, i, len(req.Input[i])))
		}
		fmt.Fprintf(w, `{"data":[%s],"model":"emb-1"}`, strings.Join(parts, ","))
	}))
}

func TestEmbedBatchesPrefixesAndNormalizes(t *testing.T) {
	var calls atomic.Int32
	srv := fakeServer(t, &calls, func(int32) int { return 200 })
	defer srv.Close()
	e := New(srv.URL+"/v1", "emb-1", "k")
	e.Batch, e.QueryPrefix = 2, "q: "
	vecs, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"abc", "", "abcdefghijk", "x", "yz"})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || len(vecs) != 5 {
		t.Fatalf("%d calls, %d vectors; want 3 batches of at most 2 and 5 vectors", calls.Load(), len(vecs))
	}
	// "abc" → [3,4,0] normalized to [0.6,0.8,0]; order kept although the server answered backwards.
	if math.Abs(float64(vecs[0][0])-0.6) > 1e-6 || math.Abs(float64(vecs[0][1])-0.8) > 1e-6 {
		t.Errorf("vector 0 = %v", vecs[0])
	}
	if math.Abs(float64(vecs[1][1])-1) > 1e-6 { // "" → [0,4,0]
		t.Errorf("vector 1 = %v", vecs[1])
	}
	q, err := e.Embed(context.Background(), cairn.EmbedQuery, []string{"abc"}) // "q: abc" has 6 chars
	if err != nil || math.Abs(float64(q[0][0])-0.83205) > 1e-4 {
		t.Errorf("query vector %v, %v; the prefix should be embedded", q, err)
	}
	// The identity is what it was before the first answer: a learned
	// dimension must not move stored vectors to another space.
	if id := e.Identity(); id.Dimension != 0 || id.Provider != "openai" || id.QueryPrefix != "q: " {
		t.Errorf("identity %+v", id)
	}
}

func TestEmbedErrors(t *testing.T) {
	tests := []struct {
		name   string
		status func(n int32) int
		want   error
		calls  int32
	}{
		{"429 then success", func(n int32) int { return map[bool]int{true: 429, false: 200}[n == 1] }, nil, 2},
		{"5xx until retries run out", func(int32) int { return 502 }, cairn.ErrBusy, 4},
		{"401", func(int32) int { return 401 }, cairn.ErrUnavailable, 1},
		{"404", func(int32) int { return 404 }, cairn.ErrUnavailable, 1},
	}
	for _, tt := range tests {
		var calls atomic.Int32
		srv := fakeServer(t, &calls, tt.status)
		e := New(srv.URL+"/v1", "emb-1", "k")
		e.Backoff = time.Millisecond
		_, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"a"})
		srv.Close()
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) || calls.Load() != tt.calls {
			t.Errorf("%s: err %v after %d calls; want %v after %d", tt.name, err, calls.Load(), tt.want, tt.calls)
		}
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`))
	}))
	defer bad.Close()
	if _, err := New(bad.URL, "m", "").Embed(context.Background(), cairn.EmbedDocument, []string{"a", "b"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("mixed dimensions: %v", err)
	}
	if _, err := New(bad.URL, "m", "").Embed(context.Background(), cairn.EmbedDocument, []string{"a"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("two vectors for one input: %v", err)
	}
	if _, err := New("", "", "").Embed(context.Background(), cairn.EmbedQuery, []string{"a"}); !errors.Is(err, cairn.ErrUnavailable) {
		t.Errorf("unconfigured: %v", err)
	}
}
