// Package whispertest holds test fakes for the whisperers: an
// OpenAI-compatible judge endpoint that answers one token with
// log-probabilities (as llama.cpp and vLLM do) and records each request
// decoded, and a query model endpoint.
package whispertest

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/judge"
)

// Call is one request the fake judge received, decoded.
type Call struct {
	Rubric string         // the rubric id, found from its instructions
	State  map[string]any // the <state> JSON
	Body   map[string]any // the whole request body
	Raw    string
}

// Verdict is how the fake judge answers one request: P(yes), after a
// delay, or a status other than 200.
type Verdict struct {
	P      float64
	Delay  time.Duration
	Status int
}

// Judge is a fake judge endpoint.
type Judge struct {
	URL    string
	mu     sync.Mutex
	calls  []Call
	answer func(c Call) Verdict
}

// NewJudge starts a judge answering each request with answer(call).
func NewJudge(t testing.TB, answer func(c Call) Verdict) *Judge {
	f := &Judge{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c := decodeCall(t, raw)
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		v := f.answer(c)
		if v.Delay > 0 {
			select {
			case <-time.After(v.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if v.Status != 0 && v.Status != http.StatusOK {
			w.WriteHeader(v.Status)
			io.WriteString(w, `{"error":"provider body with secret text"}`)
			return
		}
		io.WriteString(w, LogprobReply(questionKey(c.Rubric), v.P))
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Calls lists every request so far.
func (f *Judge) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// ByRubric lists the requests of one rubric.
func (f *Judge) ByRubric(id string) []Call {
	var out []Call
	for _, c := range f.Calls() {
		if c.Rubric == id {
			out = append(out, c)
		}
	}
	return out
}

func decodeCall(t testing.TB, raw []byte) Call {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) < 2 {
		t.Errorf("judge request is not a chat completion: %v: %s", err, raw)
		return Call{}
	}
	c := Call{Raw: string(raw)}
	json.Unmarshal(raw, &c.Body)
	for _, r := range judge.Rubrics {
		if strings.Contains(body.Messages[0].Content, strings.TrimSpace(r.Instructions)) {
			c.Rubric = r.ID
		}
	}
	prompt := body.Messages[1].Content
	if i, j := strings.Index(prompt, "<state>\n"), strings.Index(prompt, "\n</state>"); i >= 0 && j > i {
		if err := json.Unmarshal([]byte(prompt[i+len("<state>\n"):j]), &c.State); err != nil {
			t.Errorf("judge state is not JSON: %v", err)
		}
	}
	return c
}

func questionKey(rubric string) string {
	switch rubric {
	case judge.MemoryUsefulness.ID:
		return "memory_0"
	case judge.HistoricalRecall.ID:
		return "recall_needed"
	case judge.Redundancy.ID:
		return "pair_0"
	case judge.SkillUseful.ID:
		return "useful"
	}
	return "x"
}

// LogprobReply is a chat completion "<key>: yes|no" whose answer token
// has yes and no as alternatives with P(yes) = p.
func LogprobReply(key string, p float64) string {
	p = math.Min(math.Max(p, 1e-6), 1-1e-6)
	ans := "yes"
	if p < 0.5 {
		ans = "no"
	}
	content := []map[string]any{
		{"token": key, "logprob": 0, "top_logprobs": []any{}},
		{"token": ":", "logprob": 0, "top_logprobs": []any{}},
		{"token": " " + ans, "logprob": math.Log(max(p, 1-p)), "top_logprobs": []any{
			map[string]any{"token": " yes", "logprob": math.Log(p)}, map[string]any{"token": " no", "logprob": math.Log(1 - p)}}},
	}
	data, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": key + ": " + ans},
			"finish_reason": "stop", "logprobs": map[string]any{"content": content}}},
		"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 3},
	})
	return string(data)
}

// Excerpt is the candidate excerpt of a usefulness request.
func Excerpt(c Call) string {
	cands, _ := c.State["candidates"].([]any)
	if len(cands) != 1 {
		return ""
	}
	m, _ := cands[0].(map[string]any)
	s, _ := m["excerpt"].(string)
	return s
}

// Model is a fake OpenAI-compatible chat model.
type Model struct {
	URL    string
	mu     sync.Mutex
	bodies []map[string]any
	reply  func(n int) (string, time.Duration, int) // content, delay, status
}

// NewModel starts a model answering request n with reply(n).
func NewModel(t testing.TB, reply func(n int) (content string, delay time.Duration, status int)) *Model {
	f := &Model{reply: reply}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		json.Unmarshal(raw, &m)
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, m)
		f.mu.Unlock()
		content, delay, status := f.reply(n)
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if status != 0 && status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		data, _ := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 40, "completion_tokens": 12},
		})
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Requests lists the request bodies so far.
func (f *Model) Requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

// Queries is a query model's answer {lex, vec}.
func Queries(lex, vec string) string {
	b, _ := json.Marshal(map[string]string{"lex": lex, "vec": vec})
	return string(b)
}

// WordEmbedder is a deterministic embedder: each lower-cased word adds
// one to a hashed dimension, so texts sharing words are close. It counts
// its query embeddings.
type WordEmbedder struct {
	mu      sync.Mutex
	queries int
}

// Identity names the embedder.
func (e *WordEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "test", Model: "words", Dimension: 256}
}

// Embed embeds texts.
func (e *WordEmbedder) Embed(_ context.Context, kind string, texts []string) ([][]float32, error) {
	if kind == cairn.EmbedQuery {
		e.mu.Lock()
		e.queries += len(texts)
		e.mu.Unlock()
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 256)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%256]++
		}
		out[i] = v
	}
	return out, nil
}

// QueryCount counts the query texts embedded so far.
func (e *WordEmbedder) QueryCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.queries
}
