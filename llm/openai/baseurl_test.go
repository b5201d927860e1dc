package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestBaseURLQuery posts to base URLs with a query, as Azure OpenAI's
// deployments need ("?api-version="): the fake checks that
// "/chat/completions" was joined to the path and that the query arrived
// whole, not glued after it ("?api-version=…/chat/completions").
func TestBaseURLQuery(t *testing.T) {
	tests := []struct {
		base, path, query string
	}{
		{"/openai/deployments/gpt?api-version=2024-02-01", "/openai/deployments/gpt/chat/completions", "api-version=2024-02-01"},
		{"/v1/?a=1&b=x%2Fy", "/v1/chat/completions", "a=1&b=x%2Fy"},
		{"/v1", "/v1/chat/completions", ""},
		{"", "/chat/completions", ""},
	}
	for _, tt := range tests {
		var gotPath, gotQuery string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath, gotQuery = r.URL.Path, r.URL.RawQuery
			w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"4"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
		}))
		_, err := New(srv.URL+tt.base, "m", "k").Complete(context.Background(), &cairn.LLMRequest{Prompt: "2+2?", MaxTokens: 8})
		srv.Close()
		if err != nil || gotPath != tt.path || gotQuery != tt.query {
			t.Errorf("base %q: posted to %q ? %q (%v), want %q ? %q", tt.base, gotPath, gotQuery, err, tt.path, tt.query)
		}
	}
}

// TestBaseURLNotShown checks that a base_url that is no URL is refused as
// unavailable without its text, which may hold a key.
func TestBaseURLNotShown(t *testing.T) {
	for _, base := range []string{"localhost:8080/v1?key=SECRET", "ftp://h/SECRET", "http://%zzSECRET"} {
		_, err := New(base, "m", "k").Complete(context.Background(), &cairn.LLMRequest{Prompt: "x", MaxTokens: 8})
		if !errors.Is(err, cairn.ErrUnavailable) || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "base_url") {
			t.Errorf("base %q: %v; want unavailable naming base_url, without the text", base, err)
		}
	}
}
