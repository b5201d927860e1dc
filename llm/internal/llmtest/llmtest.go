// Package llmtest is a scripted model endpoint for the chat clients'
// tests: an httptest server that answers from a list of steps and keeps
// every request it received, body keys sorted, so tests compare exact
// bodies.
package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Step is one scripted answer.
type Step struct {
	Status int               // 0: 200
	Header map[string]string // response headers
	Body   string
	Hang   bool // answer nothing until the client gives up
}

// Status is a step answering code with body.
func Status(code int, body string) Step { return Step{Status: code, Body: body} }

// Request is what the server received.
type Request struct {
	Path   string
	Header http.Header
	Body   string // re-encoded with keys sorted; the raw text when not JSON
}

// Server answers from its steps in order; the last one repeats.
type Server struct {
	URL   string
	mu    sync.Mutex
	steps []Step
	reqs  []Request
}

// New starts a server closed when the test ends.
func New(t testing.TB, steps ...Step) *Server {
	s := &Server{steps: steps}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		body := string(data)
		var v any
		if json.Unmarshal(data, &v) == nil {
			sorted, _ := json.Marshal(v)
			body = string(sorted)
		}
		s.mu.Lock()
		st := s.steps[min(len(s.reqs), len(s.steps)-1)]
		s.reqs = append(s.reqs, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()
		if st.Hang {
			<-r.Context().Done()
			return
		}
		for k, v := range st.Header {
			w.Header().Set(k, v)
		}
		if st.Status != 0 {
			w.WriteHeader(st.Status)
		}
		io.WriteString(w, st.Body)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns what the server received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Bodies returns the request bodies received so far.
func (s *Server) Bodies() []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Body)
	}
	return out
}

// JSONEscape returns s as it appears inside a JSON string.
func JSONEscape(s string) string {
	data, _ := json.Marshal(s)
	return string(data[1 : len(data)-1])
}
