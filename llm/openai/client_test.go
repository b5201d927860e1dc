package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

func TestCompleteSendsTheExactRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer k-123" {
			t.Errorf("Authorization = %q", got)
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		want := `{"max_tokens":64,"messages":[{"content":"be brief","role":"system"},{"content":"what is 2+2?","role":"user"}],"model":"m-1","temperature":0}`
		if got, _ := json.Marshal(body); string(got) != want {
			t.Errorf("body = %s\nwant   %s", got, want)
		}
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"4"}}],"usage":{"prompt_tokens":12,"completion_tokens":1}}`))
	}))
	defer srv.Close()
	c := New(srv.URL+"/v1/", "m-1", "k-123")
	res, err := c.Complete(context.Background(), &cairn.LLMRequest{System: "be brief", Prompt: "what is 2+2?", MaxTokens: 64})
	if err != nil || res.Text != "4" || res.TokensIn != 12 || res.TokensOut != 1 {
		t.Fatalf("Complete = %+v, %v", res, err)
	}
}

func TestCompleteErrors(t *testing.T) {
	var calls atomic.Int32
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		want    error
		calls   int32
	}{
		{"429 then success", func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.WriteHeader(429)
				return
			}
			w.Write([]byte(`{"choices":[{"message":{"content":"ok"}}]}`))
		}, nil, 2},
		{"5xx until retries run out", func(w http.ResponseWriter, r *http.Request) { calls.Add(1); w.WriteHeader(503) }, cairn.ErrBusy, 3},
		{"401 is unavailable, no retry", func(w http.ResponseWriter, r *http.Request) { calls.Add(1); w.WriteHeader(401) }, cairn.ErrUnavailable, 1},
		{"truncated JSON is invalid", func(w http.ResponseWriter, r *http.Request) { calls.Add(1); w.Write([]byte(`{"choices":[{"mess`)) }, cairn.ErrInvalid, 1},
		{"timeout is busy", func(w http.ResponseWriter, r *http.Request) { calls.Add(1); time.Sleep(200 * time.Millisecond) }, cairn.ErrBusy, 3},
	}
	for _, tt := range tests {
		calls.Store(0)
		srv := httptest.NewServer(http.HandlerFunc(tt.handler))
		c := New(srv.URL, "m", "")
		c.Backoff, c.Timeout = time.Millisecond, 50*time.Millisecond
		_, err := c.Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"})
		srv.Close()
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
		if calls.Load() != tt.calls {
			t.Errorf("%s: %d calls, want %d", tt.name, calls.Load(), tt.calls)
		}
	}
	// Connection refused: nothing listens.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if _, err := New(url, "m", "").Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"}); !errors.Is(err, cairn.ErrUnavailable) {
		t.Errorf("connection refused: %v", err)
	}
	if _, err := New("", "", "").Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"}); !errors.Is(err, cairn.ErrUnavailable) {
		t.Errorf("no endpoint: %v", err)
	}
}
