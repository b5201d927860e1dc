package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// wordGroupEmbedder is an OpenAI-compatible /v1/embeddings endpoint for
// CLI tests: a text's vector is base plus, for each word of groups, one in
// that word's dimension, so texts sharing a group rank together. It checks
// that each request is a POST to /v1/embeddings naming model, and counts
// requests in calls when that is not nil.
func wordGroupEmbedder(t *testing.T, model string, groups map[string]int, base []float64, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls != nil {
			calls.Add(1)
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != model || r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			t.Errorf("embedding request %s %s %+v %v; want POST /v1/embeddings for model %q", r.Method, r.URL.Path, req, err, model)
		}
		var data []string
		for i, in := range req.Input {
			v := append([]float64(nil), base...)
			for _, w := range strings.Fields(strings.ToLower(in)) {
				if g, ok := groups[strings.Trim(w, ".,#?")]; ok {
					v[g]++
				}
			}
			b, _ := json.Marshal(v)
			data = append(data, fmt.Sprintf(`{"index":%d,"embedding":%s}`, i, b))
		}
		fmt.Fprintf(w, `{"data":[%s]}`, strings.Join(data, ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}
