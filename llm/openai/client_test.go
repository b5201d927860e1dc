package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/internal/llmtest"
)

func TestCompleteSendsTheExactRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer k-123" {
			t.Errorf("Authorization = %q", got)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q", got)
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		want := `{"max_tokens":64,"messages":[{"content":"be brief","role":"system"},{"content":"what is 2+2?","role":"user"}],"model":"m-1","temperature":0}`
		if got, _ := json.Marshal(body); string(got) != want {
			t.Errorf("body = %s\nwant   %s", got, want)
		}
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"4"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1}}`))
	}))
	defer srv.Close()
	c := New(srv.URL+"/v1/", "m-1", "k-123")
	res, err := c.Complete(context.Background(), &cairn.LLMRequest{System: "be brief", Prompt: "what is 2+2?", MaxTokens: 64})
	if err != nil || res.Text != "4" || res.TokensIn != 12 || res.TokensOut != 1 {
		t.Fatalf("Complete = %+v, %v", res, err)
	}
}

const countSchema = `{"additionalProperties":false,"properties":{"n":{"minimum":1,"type":"integer"}},"required":["n"],"type":"object"}` // keys sorted, as the fake records them

// answer is a chat response whose message content is content.
func answer(content, finish string) llmtest.Step {
	data, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 7},
	})
	return llmtest.Step{Body: string(data)}
}

type step = llmtest.Step

var status = llmtest.Status

// Request bodies as the fake records them (keys sorted).
const (
	strictBody = `{"max_tokens":300,"messages":[{"content":"count things","role":"system"},{"content":"how many?","role":"user"}],` +
		`"model":"m","response_format":{"json_schema":{"name":"count","schema":` + countSchema + `,"strict":true},"type":"json_schema"},"temperature":0}`
	inPrompt = `count things\n\nAnswer with one JSON value and nothing else: no prose, no Markdown fence. It must satisfy this JSON Schema:\n`
)

var (
	jsonModeBody = `{"max_tokens":300,"messages":[{"content":"` + inPrompt + jsonEscape(countSchema) + `","role":"system"},{"content":"how many?","role":"user"}],` +
		`"model":"m","response_format":{"type":"json_object"},"temperature":0}`
	promptOnlyBody = `{"max_tokens":300,"messages":[{"content":"` + inPrompt + jsonEscape(countSchema) + `","role":"system"},{"content":"how many?","role":"user"}],` +
		`"model":"m","temperature":0}`
)

var jsonEscape = llmtest.JSONEscape

func TestCompleteWithSchema(t *testing.T) {
	rejected := `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","type":"invalid_request_error"}}`
	tests := []struct {
		name     string
		steps    []step
		want     error  // nil: success
		text     string // the answer, or the raw text an invalid answer keeps
		bodies   []string
		wantMsg  string // a substring of the error
		retryMax time.Duration
	}{
		{name: "success", steps: []step{answer(` {"n": 3} `, "stop")}, text: `{"n": 3}`, bodies: []string{strictBody}},
		{name: "429 then success", steps: []step{{Status: 429, Header: map[string]string{"Retry-After": "0"}}, answer(`{"n":1}`, "stop")},
			text: `{"n":1}`, bodies: []string{strictBody, strictBody}},
		{name: "429 with retry-after-ms then success", steps: []step{{Status: 429, Header: map[string]string{"Retry-After-Ms": "1"}}, answer(`{"n":1}`, "stop")},
			text: `{"n":1}`, bodies: []string{strictBody, strictBody}},
		{name: "429 asking for a longer wait than allowed is busy at once", steps: []step{{Status: 429, Header: map[string]string{"Retry-After": "120"}}},
			want: cairn.ErrBusy, bodies: []string{strictBody}, wantMsg: "answered 429", retryMax: time.Second},
		{name: "5xx until retries run out", steps: []step{status(503, `{"error":{"message":"upstream down"}}`)},
			want: cairn.ErrBusy, bodies: []string{strictBody, strictBody, strictBody}, wantMsg: "answered 503: upstream down"},
		{name: "529 overloaded", steps: []step{status(529, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`)},
			want: cairn.ErrBusy, bodies: []string{strictBody, strictBody, strictBody}, wantMsg: "Overloaded"},
		{name: "401 is unavailable, no retry", steps: []step{status(401, `{"error":{"message":"Incorrect API key provided"}}`)},
			want: cairn.ErrUnavailable, bodies: []string{strictBody}, wantMsg: "answered 401 (check the API key): Incorrect API key"},
		{name: "403 is unavailable", steps: []step{status(403, ``)}, want: cairn.ErrUnavailable, bodies: []string{strictBody}},
		{name: "404 unknown model is unavailable", steps: []step{status(404, `{"error":"model \"m\" not found, try pulling it first"}`)},
			want: cairn.ErrUnavailable, bodies: []string{strictBody}, wantMsg: `model "m" not found`},
		{name: "timeout is busy and not retried", steps: []step{{Hang: true}}, want: cairn.ErrBusy, bodies: []string{strictBody}, wantMsg: "no answer within 100ms"},
		{name: "answer cut at max_tokens", steps: []step{answer(`{"n": `, "length")}, want: cairn.ErrInvalid, text: `{"n": `,
			bodies: []string{strictBody}, wantMsg: "cut at the output limit (max_tokens 300)"},
		{name: "truncated JSON", steps: []step{answer(`{"n": 3`, "stop")}, want: cairn.ErrInvalid, text: `{"n": 3`,
			bodies: []string{strictBody}, wantMsg: "answer is not JSON"},
		{name: "schema-violating JSON", steps: []step{answer(`{"n": 0, "extra": true}`, "stop")}, want: cairn.ErrInvalid, text: `{"n": 0, "extra": true}`,
			bodies: []string{strictBody}, wantMsg: `answer violates the schema: at /: unexpected additional properties ["extra"] (allowed: n); at /n: minimum: 0 is less than 1`},
		{name: "prose around JSON", steps: []step{answer(`Here it is: {"n": 3}`, "stop")}, want: cairn.ErrInvalid, text: `Here it is: {"n": 3}`, bodies: []string{strictBody}},
		{name: "refusal", steps: []step{{Body: `{"choices":[{"message":{"content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`}},
			want: cairn.ErrInvalid, bodies: []string{strictBody}, wantMsg: "model refused: I can't help"},
		{name: "unreadable response", steps: []step{{Body: `{"choices":[{"mess`}}, want: cairn.ErrInvalid, text: `{"choices":[{"mess`, bodies: []string{strictBody}},
		{name: "json_schema rejected: JSON mode", steps: []step{status(400, rejected), answer("```json\n{\"n\": 2}\n```", "stop")},
			text: `{"n": 2}`, bodies: []string{strictBody, jsonModeBody}},
		{name: "json_schema and json_object rejected: schema in the prompt", steps: []step{status(400, rejected),
			status(400, `{"error":"response_format json_object is not supported"}`), answer(`{"n": 2}`, "stop")},
			text: `{"n": 2}`, bodies: []string{strictBody, jsonModeBody, promptOnlyBody}},
		{name: "other 400 is invalid: the request, not the endpoint", steps: []step{status(400, `{"error":{"message":"context length exceeded"}}`)},
			want: cairn.ErrInvalid, bodies: []string{strictBody}, wantMsg: "context length exceeded"},
		{name: "max_tokens refused: max_completion_tokens", steps: []step{
			status(400, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}}`),
			status(400, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model."}}`),
			answer(`{"n":5}`, "stop")},
			text: `{"n":5}`, bodies: []string{strictBody, strings.Replace(strictBody, `"max_tokens"`, `"max_completion_tokens"`, 1),
				strings.Replace(strings.Replace(strictBody, `"max_tokens"`, `"max_completion_tokens"`, 1), `,"temperature":0`, ``, 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := llmtest.New(t, tt.steps...)
			c := New(f.URL, "m", "k")
			// Generous, so a loaded machine does not turn an answer into a
			// timeout; only the hanging server waits it out.
			c.Backoff, c.Timeout = time.Millisecond, 10*time.Second
			if tt.steps[0].Hang {
				c.Timeout = 100 * time.Millisecond
			}
			if tt.retryMax > 0 {
				c.MaxRetryWait = tt.retryMax
			}
			res, err := c.Complete(context.Background(), &cairn.LLMRequest{System: "count things", Prompt: "how many?", MaxTokens: 300,
				Purpose: cairn.PurposeFast, Schema: json.RawMessage(countSchema), SchemaName: "count"})
			got := f.Bodies()
			if len(got) != len(tt.bodies) {
				t.Fatalf("%d requests, want %d: %q (error %v)", len(got), len(tt.bodies), got, err)
			}
			for i := range got {
				if got[i] != tt.bodies[i] {
					t.Errorf("request %d:\n got %s\nwant %s", i, got[i], tt.bodies[i])
				}
			}
			if tt.want == nil {
				if err != nil || res.Text != tt.text || res.TokensIn != 100 || res.TokensOut != 7 {
					t.Fatalf("Complete = %+v, %v; want %q", res, err, tt.text)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error %v, want %v with %q", err, tt.want, tt.wantMsg)
			}
			var ie *cairn.InvalidOutputError
			if errors.As(err, &ie) && tt.text != "" && ie.Raw != tt.text {
				t.Errorf("raw = %q, want %q", ie.Raw, tt.text)
			}
		})
	}
}

// A step down is remembered: the next call goes straight to JSON mode.
func TestStepDownIsRemembered(t *testing.T) {
	f := llmtest.New(t, status(400, `{"error":{"message":"json_schema is not supported"}}`), answer(`{"n":1}`, "stop"))
	c := New(f.URL, "m", "")
	req := &cairn.LLMRequest{System: "count things", Prompt: "how many?", MaxTokens: 300, Schema: json.RawMessage(countSchema), SchemaName: "count"}
	for range 2 {
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.Bodies(); len(got) != 3 || got[2] != jsonModeBody {
		t.Fatalf("requests %q", got)
	}
	// SchemaJSONMode starts there.
	f = llmtest.New(t, answer(`{"n":1}`, "stop"))
	c = New(f.URL, "m", "")
	c.SchemaMode = SchemaJSONMode
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := f.Bodies(); len(got) != 1 || got[0] != jsonModeBody {
		t.Fatalf("requests %q", got)
	}
}

func TestCompleteWithoutSchemaKeepsAnyText(t *testing.T) {
	f := llmtest.New(t, answer(`yes, because`, "length"))
	res, err := New(f.URL, "m", "").Complete(context.Background(), &cairn.LLMRequest{Prompt: "p", MaxTokens: 4})
	if err != nil || res.Text != "yes, because" {
		t.Fatalf("Complete = %+v, %v", res, err)
	}
}

func TestSpentTokensOnInvalidAnswers(t *testing.T) {
	f := llmtest.New(t, answer(`{"n": 0}`, "stop"))
	_, err := New(f.URL, "m", "").Complete(context.Background(), &cairn.LLMRequest{Prompt: "p", Schema: json.RawMessage(countSchema)})
	var spent interface{ Tokens() (int, int) }
	if !errors.As(err, &spent) {
		t.Fatalf("error %v carries no tokens", err)
	}
	if in, out := spent.Tokens(); in != 100 || out != 7 {
		t.Errorf("tokens %d, %d", in, out)
	}
}

func TestUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	refused := srv.URL
	srv.Close()
	noDNS := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.DNSError{Err: "no such host", Name: "llm.invalid", IsNotFound: true}
	}}}
	keyErr := errors.New("unavailable: [llm.fast] environment variable FAST_KEY is empty")
	tests := []struct {
		name string
		c    *Client
		want string
	}{
		{"connection refused", New(refused, "m", ""), "connect to"},
		{"DNS failure", &Client{BaseURL: "http://llm.invalid/v1", Model: "m", HTTP: noDNS}, "no such host"},
		{"no endpoint", New("", "", ""), "no chat endpoint or model configured"},
		{"key source fails", &Client{BaseURL: refused, Model: "m", KeySource: func() (string, error) {
			return "", errors.Join(cairn.ErrUnavailable, keyErr)
		}}, "FAST_KEY"},
	}
	for _, tt := range tests {
		_, err := tt.c.Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"})
		if !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want unavailable with %q", tt.name, err, tt.want)
		}
	}
}

func TestBadSchemaIsTheCallersError(t *testing.T) {
	f := llmtest.New(t, answer(`{}`, "stop"))
	c := New(f.URL, "m", "")
	for _, req := range []*cairn.LLMRequest{
		{Prompt: "p", Schema: json.RawMessage(`{"type":"object","minimun":1}`)}, // a keyword no validator knows
		{Prompt: "p", Schema: json.RawMessage(`{"type":"obj"}`)},
		{Prompt: "p", Schema: json.RawMessage(countSchema), SchemaName: "has space"},
	} {
		if _, err := c.Complete(context.Background(), req); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("error %v, want invalid", err)
		}
	}
	if n := len(f.Bodies()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestCallerCancelIsNeitherBusyNorUnavailable(t *testing.T) {
	f := llmtest.New(t, step{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(f.Bodies()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := New(f.URL, "m", "").Complete(ctx, &cairn.LLMRequest{Prompt: "p"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, cairn.ErrBusy) || errors.Is(err, cairn.ErrUnavailable) {
		t.Fatalf("error %v", err)
	}
}

// TestErrorsHideURLSecrets checks that an endpoint's password and query
// (where some gateways take the key) stay out of error messages.
func TestErrorsHideURLSecrets(t *testing.T) {
	f := llmtest.New(t, status(401, `{"error":{"message":"bad key"}}`))
	u := strings.Replace(f.URL, "http://", "http://user:hunter2@", 1) + "/v1?key=sekrit"
	_, err := New(u, "m", "").Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"})
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("answered error %v: it shows a secret of the URL", err)
	}
	// No server at all: the transport error must not repeat the URL either.
	_, err = New("http://user:hunter2@127.0.0.1:1/v1?key=sekrit", "m", "").Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"})
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("transport error %v: it shows a secret of the URL", err)
	}
}
