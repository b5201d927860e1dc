package judge

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/llm/openai"
)

// fake is a model endpoint that answers with reply and keeps every
// request body it received.
type fake struct {
	URL    string
	mu     sync.Mutex
	bodies []string
	reply  func(n int, w http.ResponseWriter, r *http.Request) // n: the request's index
}

func newFake(t testing.TB, reply func(n int, w http.ResponseWriter, r *http.Request)) *fake {
	f := &fake{reply: reply}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, string(data))
		f.mu.Unlock()
		f.reply(n, w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// answers is a fake that answers the bodies in turn, the last repeating.
func answers(t testing.TB, bodies ...string) *fake {
	return newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, bodies[min(n, len(bodies)-1)])
	})
}

func (f *fake) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// request decodes request i.
func (f *fake) request(t *testing.T, i int) map[string]any {
	t.Helper()
	reqs := f.requests()
	if i >= len(reqs) {
		t.Fatalf("request %d of %d", i, len(reqs))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(reqs[i]), &m); err != nil {
		t.Fatalf("request %d is not JSON: %v", i, err)
	}
	return m
}

// openaiJudge is a judge built as FromConfig builds it, against url.
func openaiJudge(t testing.TB, url string, timeoutMs int) *Judge {
	t.Helper()
	j, err := FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: url, Model: "judge-m"}, From: "llm.judge", TimeoutMs: timeoutMs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// tok is one answer token with its alternatives.
type tok struct {
	text string
	alts map[string]float64 // alternative -> logprob; empty: the token alone
}

// logprobAnswer is a chat completion whose content is the tokens' text,
// with their log-probabilities.
func logprobAnswer(toks ...tok) string {
	var content []map[string]any
	text := ""
	for _, t := range toks {
		text += t.text
		top := []map[string]any{}
		lp := 0.0
		for alt, l := range t.alts {
			top = append(top, map[string]any{"token": alt, "logprob": l})
			if alt == t.text {
				lp = l
			}
		}
		content = append(content, map[string]any{"token": t.text, "logprob": lp, "top_logprobs": top})
	}
	data, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop",
			"logprobs": map[string]any{"content": content}}},
		"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": len(toks)},
	})
	return string(data)
}

// plainAnswer is a chat completion with content and no log-probabilities.
func plainAnswer(content string) string {
	data, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 9},
	})
	return string(data)
}

// keyLine is the tokens of "<key>: " before an answer token.
func keyLine(key string) []tok { return []tok{{text: key}, {text: ":"}} }

// usefulState is a memory-usefulness state with one candidate.
func usefulState(request, excerpt string) map[string]any {
	return map[string]any{
		"conversation": map[string]any{"history": []any{}, "currentRequest": request},
		"asOf":         "2026-12-01",
		"candidates":   []any{map[string]any{"excerpt": excerpt, "corpus": "notes", "sourcePath": "cairn://notes/deploy.md", "dates": []any{"2026-10-02"}}},
	}
}

// lines joins token lines with newline tokens.
func lines(ls ...[]tok) []tok {
	var out []tok
	for i, l := range ls {
		if i > 0 {
			out = append(out, tok{text: "\n"})
		}
		out = append(out, l...)
	}
	return out
}

// configJudge is a judge's configuration at url whose key is in env.
func configJudge(api, url, env string) config.Judge {
	return config.Judge{LLM: config.LLM{API: api, BaseURL: url, Model: "claude-j", APIKeyEnv: env}, From: "llm.judge", TimeoutMs: 5000}
}

// readTokens decodes the token log-probabilities of a chat completion.
func readTokens(t testing.TB, body string) []openai.TokenLogprob {
	var r struct {
		Choices []struct {
			Logprobs struct {
				Content []openai.TokenLogprob `json:"content"`
			} `json:"logprobs"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	return r.Choices[0].Logprobs.Content
}
