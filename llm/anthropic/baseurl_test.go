package anthropic

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestBaseURLQuery checks that "/v1/messages" is joined to the base URL's
// path (a trailing /v1 taken as the same version) before its query, which
// a gateway in front of the Messages API may need.
func TestBaseURLQuery(t *testing.T) {
	tests := []struct {
		base, path, query string
	}{
		{"/gateway/anthropic?team=a1", "/gateway/anthropic/v1/messages", "team=a1"},
		{"/v1/?team=a1", "/v1/messages", "team=a1"},
		{"/v1", "/v1/messages", ""},
		{"", "/v1/messages", ""},
	}
	for _, tt := range tests {
		var gotPath, gotQuery string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath, gotQuery = r.URL.Path, r.URL.RawQuery
			w.Write([]byte(`{"content":[{"type":"text","text":"4"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`))
		}))
		_, err := New(srv.URL+tt.base, "claude-x", "k").Complete(context.Background(), &cairn.LLMRequest{Prompt: "2+2?", MaxTokens: 8})
		srv.Close()
		if err != nil || gotPath != tt.path || gotQuery != tt.query {
			t.Errorf("base %q: posted to %q ? %q (%v), want %q ? %q", tt.base, gotPath, gotQuery, err, tt.path, tt.query)
		}
	}
}
