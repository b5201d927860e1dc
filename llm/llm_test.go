package llm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/llm/anthropic"
	"github.com/cairnmemory/cairn/llm/internal/llmtest"
	"github.com/cairnmemory/cairn/llm/openai"
	"github.com/cairnmemory/cairn/redact"
	"github.com/cairnmemory/cairn/redact/redacttest"
)

const (
	chatOK     = `{"choices":[{"message":{"content":"{\"ok\":true}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":5}}`
	messagesOK = `{"content":[{"type":"tool_use","name":"answer","input":{"ok":true}}],"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":5}}`
	okSchema   = `{"additionalProperties":false,"properties":{"ok":{"type":"boolean"}},"required":["ok"],"type":"object"}`
)

func env(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

func TestNew(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("sk-from-file\n"), 0o600)
	tests := []struct {
		name      string
		cfg       config.LLM
		purpose   string
		maxTokens [2]int // sent for a request asking 50,000, and for one asking none
		header    string // "Name: value" the server must see
		path      string
	}{
		{"openai, key from env, consolidate default limit", config.LLM{API: "openai", Model: "m", APIKeyEnv: "KEY"}, cairn.PurposeConsolidate,
			[2]int{50000, DefaultConsolidateMaxTokens}, "Authorization: Bearer sk-env", "/chat/completions"},
		{"openai keyless, configured cap", config.LLM{API: "openai", Model: "m", MaxOutputTokens: 8192}, cairn.PurposeFast,
			[2]int{8192, 8192}, "Authorization: ", "/chat/completions"},
		{"anthropic, key from file", config.LLM{API: "anthropic", Model: "claude-x", APIKeyFile: keyFile, MaxOutputTokens: 16000}, cairn.PurposeConsolidate,
			[2]int{16000, 16000}, "X-Api-Key: sk-from-file", "/v1/messages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := chatOK
			if tt.cfg.API == "anthropic" {
				body = messagesOK
			}
			f := llmtest.New(t, llmtest.Step{Body: body})
			tt.cfg.BaseURL = f.URL
			model, err := New(tt.cfg, tt.purpose, env(map[string]string{"KEY": "sk-env"}))
			if err != nil {
				t.Fatal(err)
			}
			// A request over the cap, and one with no MaxTokens (the default).
			for _, n := range []int{50000, 0} {
				res, err := model.Complete(context.Background(), &cairn.LLMRequest{Prompt: "p", MaxTokens: n, Schema: json.RawMessage(okSchema)})
				if err != nil || res.Text != `{"ok":true}` {
					t.Fatalf("Complete = %+v, %v", res, err)
				}
			}
			for i, r := range f.Requests() {
				name, value, _ := strings.Cut(tt.header, ": ")
				if r.Path != tt.path || r.Header.Get(name) != value {
					t.Errorf("request %d: %s %s: %q, want %q", i, r.Path, name, r.Header.Get(name), value)
				}
				var got struct {
					MaxTokens int `json:"max_tokens"`
				}
				json.Unmarshal([]byte(r.Body), &got)
				if got.MaxTokens != tt.maxTokens[i] {
					t.Errorf("request %d: max_tokens %d, want %d", i, got.MaxTokens, tt.maxTokens[i])
				}
			}
		})
	}
}

// The timeouts New sets are read off the clients: a test of the wait
// itself would be a wall-clock assertion.
func TestNewTimeouts(t *testing.T) {
	tests := []struct {
		cfg     config.LLM
		purpose string
		want    time.Duration
	}{
		{config.LLM{API: "openai", BaseURL: "http://h", Model: "m"}, cairn.PurposeConsolidate, 300 * time.Second},
		{config.LLM{API: "openai", BaseURL: "http://h", Model: "m"}, cairn.PurposeFast, 120 * time.Second},
		{config.LLM{API: "anthropic", BaseURL: "http://h", Model: "m", TimeoutSeconds: 30}, cairn.PurposeFast, 30 * time.Second},
	}
	for _, tt := range tests {
		model, err := New(tt.cfg, tt.purpose, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got time.Duration
		switch c := model.(*configured).inner.(redacting).inner.(type) {
		case *openai.Client:
			got = c.Timeout
		case *anthropic.Client:
			got = c.Timeout
		}
		if got != tt.want {
			t.Errorf("%s %s: timeout %s, want %s", tt.cfg.API, tt.purpose, got, tt.want)
		}
	}
}

func TestNewMissingKeyIsUnavailableAtCallTime(t *testing.T) {
	f := llmtest.New(t, llmtest.Step{Body: chatOK})
	tests := []struct {
		cfg  config.LLM
		want string
	}{
		{config.LLM{API: "openai", Model: "m", APIKeyEnv: "OPENAI_API_KEY"}, "[llm.consolidate] no API key: environment variable OPENAI_API_KEY is unset or empty"},
		{config.LLM{API: "anthropic", Model: "m", APIKeyFile: "/nonexistent/key"}, "[llm.consolidate] no API key: api_key_file /nonexistent/key is missing or empty"},
		{config.LLM{API: "anthropic", Model: "m"}, "[llm.consolidate] no API key: set api_key_env or api_key_file"},
	}
	for _, tt := range tests {
		tt.cfg.BaseURL = f.URL
		model, err := New(tt.cfg, cairn.PurposeConsolidate, env(nil))
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		_, err = model.Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"})
		if !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want unavailable with %q", tt.cfg, err, tt.want)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("%d requests sent without a key", n)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(config.LLM{API: "grpc", BaseURL: "http://h", Model: "m"}, cairn.PurposeFast, nil); !errors.Is(err, cairn.ErrInvalid) ||
		!strings.Contains(err.Error(), "allowed: openai, anthropic") {
		t.Errorf("unknown api: %v", err)
	}
	if _, err := New(config.LLM{API: "openai", BaseURL: "http://h", Model: "m"}, "", nil); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("empty purpose: %v", err)
	}
}

// No planted secret reaches the server, in either wire format, and the
// caller's request is left as it was.
func TestRedactionBeforeSending(t *testing.T) {
	var lines []string
	for _, s := range redacttest.Samples() {
		lines = append(lines, s.Line)
	}
	secrets := strings.Join(lines, "\n")
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			body := chatOK
			if api == "anthropic" {
				body = messagesOK
			}
			f := llmtest.New(t, llmtest.Step{Body: body})
			model, err := New(config.LLM{API: api, BaseURL: f.URL, Model: "m", APIKeyEnv: "K"}, cairn.PurposeConsolidate, env(map[string]string{"K": "k"}))
			if err != nil {
				t.Fatal(err)
			}
			req := &cairn.LLMRequest{System: "context:\n" + secrets, Prompt: "window:\n" + secrets, Schema: json.RawMessage(okSchema)}
			if _, err := model.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if req.System != "context:\n"+secrets {
				t.Error("the caller's request was changed")
			}
			sent := f.Requests()[0].Body
			for _, s := range redacttest.Samples() {
				if strings.Contains(sent, s.Secret) || strings.Contains(sent, llmtest.JSONEscape(s.Secret)) {
					t.Errorf("%s secret sent", s.Kind)
				}
				if n := strings.Count(sent, redact.Placeholder(s.Kind)); n < 2 {
					t.Errorf("%s: %d placeholders sent, want one in system and one in prompt", s.Kind, n)
				}
			}
		})
	}
}

func TestPurposeFilled(t *testing.T) {
	var got []string
	inner := fakeLLM(func(req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
		got = append(got, req.Purpose)
		return &cairn.LLMResponse{}, nil
	})
	c := &configured{inner: inner, purpose: cairn.PurposeFast}
	c.Complete(context.Background(), &cairn.LLMRequest{})
	c.Complete(context.Background(), &cairn.LLMRequest{Purpose: "judge"})
	if strings.Join(got, ",") != "fast,judge" {
		t.Errorf("purposes %q", got)
	}
}

// fakeLLM answers with a function.
type fakeLLM func(req *cairn.LLMRequest) (*cairn.LLMResponse, error)

func (f fakeLLM) Complete(_ context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	return f(req)
}
