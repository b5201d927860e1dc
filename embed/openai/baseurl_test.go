package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestBaseURLQuery posts to a base_url with a query, as Azure OpenAI's
// deployments need ("?api-version="): the fake checks that "/embeddings"
// was joined to the path and that the query arrived whole (ux U6).
func TestBaseURLQuery(t *testing.T) {
	tests := []struct {
		base, path, query string
	}{
		{"/openai/deployments/emb?api-version=2024-02-01", "/openai/deployments/emb/embeddings", "api-version=2024-02-01"},
		{"/v1/?a=1&b=x%2Fy", "/v1/embeddings", "a=1&b=x%2Fy"},
		{"/v1", "/v1/embeddings", ""},
	}
	for _, tt := range tests {
		var gotPath, gotQuery string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath, gotQuery = r.URL.Path, r.URL.RawQuery
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[1,0]}]}`)
		}))
		_, err := New(srv.URL+tt.base, "m", "").Embed(context.Background(), cairn.EmbedDocument, []string{"a"})
		srv.Close()
		if err != nil || gotPath != tt.path || gotQuery != tt.query {
			t.Errorf("base %q: posted to %q ? %q (%v), want %q ? %q", tt.base, gotPath, gotQuery, err, tt.path, tt.query)
		}
	}
}

// TestBaseURLSecretsMasked checks that a key in a base_url's password or
// query appears in no error, whichever way the request fails, and that the
// errors still match their sentinels (ux U6: the query's api_key was
// printed on every failed sync, search and doctor).
func TestBaseURLSecretsMasked(t *testing.T) {
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(map[bool]int{true: 401, false: 503}[r.URL.Query().Get("k") == "401"])
	}))
	defer status.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // past the client's timeout
	}))
	defer slow.Close()
	defer close(release) // before Close, which waits for the handler
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	host := func(u string) string { return strings.TrimPrefix(u, "http://") }
	tests := []struct {
		name, base string
		want       error
	}{
		{"refused", "http://ux:SECRET1@" + host(refused) + "/v1?api_key=SECRET2&SECRET3", cairn.ErrUnavailable},
		{"401", "http://ux:SECRET1@" + host(status.URL) + "/v1?k=401&api_key=SECRET2&SECRET3", cairn.ErrUnavailable},
		{"503", "http://ux:SECRET1@" + host(status.URL) + "/v1?api_key=SECRET2&SECRET3", cairn.ErrBusy},
		{"timeout", "http://ux:SECRET1@" + host(slow.URL) + "/v1?api_key=SECRET2&SECRET3", cairn.ErrBusy},
	}
	for _, tt := range tests {
		e := New(tt.base, "m", "")
		e.Retries, e.Timeout = 0, 200*time.Millisecond
		_, err := e.Embed(context.Background(), cairn.EmbedDocument, []string{"a"})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "SECRET") || !strings.Contains(msg, "ux:***@") || !strings.Contains(msg, "api_key=***&***") ||
			!strings.Contains(msg, "/v1/embeddings?") {
			t.Errorf("%s: %s; want the password and query values as *** and the path before the query", tt.name, msg)
		}
	}
}
