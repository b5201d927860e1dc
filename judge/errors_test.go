package judge

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/config"
)

// TestErrorCodes drives every code of C24 (and credentials) and counts the
// requests: a failed judgment is never retried, and its message holds no
// provider body.
func TestErrorCodes(t *testing.T) {
	const providerText = "upstream-says-PRIVATE-detail"
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close()
	tests := []struct {
		name     string
		reply    func(n int, w http.ResponseWriter, r *http.Request)
		url      string // instead of the fake's
		ctx      func() (context.Context, context.CancelFunc)
		timeout  int
		code     Code
		status   int
		requests int
	}{
		{name: "503 is an http_error, not retried", reply: status(503, `{"error":{"message":"`+providerText+`"}}`), code: CodeHTTP, status: 503, requests: 1},
		{name: "429 is not retried either", reply: status(429, providerText), code: CodeHTTP, status: 429, requests: 1},
		{name: "401", reply: status(401, providerText), code: CodeHTTP, status: 401, requests: 1},
		{name: "a redirect is an error, not followed", reply: func(n int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, code: CodeHTTP, status: 302, requests: 1},
		{name: "timeout", reply: hang, timeout: 50, code: CodeTimeout, requests: 1},
		{name: "cancelled", reply: hang, ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, code: CodeCancelled},
		{name: "connection refused", url: refusedURL, code: CodeNetwork},
		{name: "bad JSON", reply: body(`{"choices":[`), code: CodeInvalid, requests: 1},
		{name: "answer keys differ from the questions", reply: body(logprobAnswer(append(keyLine("memory_1"), tok{" yes", nil})...)), code: CodeInvalid, requests: 1},
		{name: "a question answered twice", reply: body(logprobAnswer(lines(append(keyLine("memory_0"), tok{" yes", nil}), append(keyLine("memory_0"), tok{" no", nil}))...)), code: CodeInvalid, requests: 1},
		{name: "an answer that is no allowed answer", reply: body(logprobAnswer(append(keyLine("memory_0"), tok{" perhaps", map[string]float64{" perhaps": -0.1, " maybe": -1}})...)), code: CodeInvalid, requests: 1},
		{name: "structured answer off the schema", reply: func(n int, w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, []string{plainAnswer("yes"), plainAnswer(`{"memory_0": 1.5}`)}[min(n, 1)])
		}, code: CodeInvalid, requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.reply)
			url := f.URL
			if tt.url != "" {
				url = tt.url
			}
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5000
			}
			j := openaiJudge(t, url, timeout)
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tt.ctx != nil {
				ctx, cancel = tt.ctx()
			}
			defer cancel()
			_, err := j.Ask(ctx, &Request{Rubric: MemoryUsefulness, State: usefulState("q", "e")})
			var je *Error
			if !errors.As(err, &je) || je.Code != tt.code || je.Status != tt.status || je.Policy != "judge-m:memory-usefulness-v2" {
				t.Fatalf("error %v (%#v), want code %s status %d", err, je, tt.code, tt.status)
			}
			if strings.Contains(err.Error(), providerText) {
				t.Errorf("error %q shows the provider's body", err)
			}
			if inner := errors.Unwrap(err); inner != nil && strings.Contains(inner.Error(), providerText) {
				t.Errorf("the client read the body of a %d: %v", tt.status, inner)
			}
			if n := len(f.requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

func status(code int, text string) func(int, http.ResponseWriter, *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		io.WriteString(w, text)
	}
}

func body(text string) func(int, http.ResponseWriter, *http.Request) {
	return func(n int, w http.ResponseWriter, r *http.Request) { io.WriteString(w, text) }
}

func hang(n int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// TestCredentials: a key that cannot be had fails before anything is sent,
// and Credential reports C16's states without calling the model.
func TestCredentials(t *testing.T) {
	f := answers(t, plainAnswer(`{"memory_0": 1}`))
	dir := t.TempDir()
	unreadable := filepath.Join(dir, "key-dir")
	os.Mkdir(unreadable, 0o700) // reading a folder fails with an error other than not-exist
	j, err := FromConfig(configJudge("anthropic", f.URL, "JUDGE_KEY"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Ask(context.Background(), &Request{Rubric: MemoryUsefulness, State: usefulState("q", "e")})
	if CodeOf(err) != CodeCredentials || !strings.Contains(err.Error(), "credentials") {
		t.Fatalf("error %v, want credentials", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent without a key", n)
	}
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, tt := range []struct {
		cfg  config.Judge
		env  string
		want string
	}{
		{config.Judge{Disabled: true, From: "llm.fast"}, "", "disabled"},
		{config.Judge{}, "", "missing"},
		{configJudge("anthropic", f.URL, "JUDGE_KEY"), "", "missing"},
		{configJudge("anthropic", f.URL, "JUDGE_KEY"), "sk-1", "available"},
		{config.Judge{LLM: config.LLM{API: "openai", BaseURL: f.URL, Model: "m"}, From: "llm.fast"}, "", "available"}, // keyless
		{config.Judge{LLM: config.LLM{API: "openai", BaseURL: f.URL, Model: "m", APIKeyFile: filepath.Join(dir, "none")}, From: "llm.judge"}, "", "missing"},
		{config.Judge{LLM: config.LLM{API: "openai", BaseURL: f.URL, Model: "m", APIKeyFile: unreadable}, From: "llm.judge"}, "", "unreadable"},
	} {
		if got := Credential(tt.cfg, env(tt.env)); got != tt.want {
			t.Errorf("Credential(%+v) = %s, want %s", tt.cfg, got, tt.want)
		}
	}
	if _, err := FromConfig(config.Judge{Disabled: true, From: "llm.fast"}, nil); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("disabled judge: %v", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("Credential sent %d requests", n)
	}
}
