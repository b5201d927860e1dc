package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/internal/llmtest"
)

// Keys sorted, as llmtest records bodies.
const countSchema = `{"additionalProperties":false,"properties":{"n":{"minimum":1,"type":"integer"}},"required":["n"],"type":"object"}`

const toolBody = `{"max_tokens":300,"messages":[{"content":"how many?","role":"user"}],"model":"claude-x","system":"count things","temperature":0,` +
	`"tool_choice":{"name":"count","type":"tool"},"tools":[{"description":"` + toolDescription + `","input_schema":` + countSchema + `,"name":"count"}]}`

// toolAnswer is a Messages API response whose forced tool call has input.
func toolAnswer(input, stop string) llmtest.Step {
	return llmtest.Step{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[` +
		`{"type":"text","text":"Counting."},{"type":"tool_use","id":"toolu_1","name":"count","input":` + input + `}],` +
		`"stop_reason":"` + stop + `","usage":{"input_tokens":90,"cache_read_input_tokens":10,"output_tokens":7}}`}
}

func TestCompleteSendsTheExactRequest(t *testing.T) {
	f := llmtest.New(t, llmtest.Step{Body: `{"content":[{"type":"text","text":"4"}],"stop_reason":"end_turn","usage":{"input_tokens":12,"output_tokens":1}}`})
	c := New(f.URL+"/v1/", "claude-x", "sk-ant-k")
	res, err := c.Complete(context.Background(), &cairn.LLMRequest{System: "be brief", Prompt: "what is 2+2?", MaxTokens: 64})
	if err != nil || res.Text != "4" || res.TokensIn != 12 || res.TokensOut != 1 {
		t.Fatalf("Complete = %+v, %v", res, err)
	}
	r := f.Requests()[0]
	if r.Path != "/v1/messages" {
		t.Errorf("path %s", r.Path)
	}
	for k, want := range map[string]string{"X-Api-Key": "sk-ant-k", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json", "Authorization": ""} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	want := `{"max_tokens":64,"messages":[{"content":"what is 2+2?","role":"user"}],"model":"claude-x","system":"be brief","temperature":0}`
	if r.Body != want {
		t.Errorf("body %s\nwant %s", r.Body, want)
	}
}

func TestCompleteWithSchema(t *testing.T) {
	tests := []struct {
		name     string
		steps    []llmtest.Step
		want     error  // nil: success
		text     string // the answer, or the raw text an invalid answer keeps
		calls    int
		wantMsg  string
		retryMax time.Duration
	}{
		{name: "success", steps: []llmtest.Step{toolAnswer(`{"n": 3}`, "tool_use")}, text: `{"n": 3}`, calls: 1},
		{name: "429 then success", steps: []llmtest.Step{{Status: 429, Header: map[string]string{"Retry-After": "0"},
			Body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`},
			toolAnswer(`{"n":1}`, "tool_use")}, text: `{"n":1}`, calls: 2},
		{name: "429 asking for a longer wait than allowed is busy at once", steps: []llmtest.Step{{Status: 429, Header: map[string]string{"Retry-After": "90"}}},
			want: cairn.ErrBusy, calls: 1, wantMsg: "retry after 1m30s", retryMax: time.Second},
		{name: "529 overloaded until retries run out", steps: []llmtest.Step{llmtest.Status(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
			want: cairn.ErrBusy, calls: 3, wantMsg: "answered 529: Overloaded"},
		{name: "500 then success", steps: []llmtest.Step{llmtest.Status(500, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`),
			toolAnswer(`{"n":2}`, "tool_use")}, text: `{"n":2}`, calls: 2},
		{name: "401 is unavailable, no retry", steps: []llmtest.Step{llmtest.Status(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)},
			want: cairn.ErrUnavailable, calls: 1, wantMsg: "answered 401 (check the API key): invalid x-api-key"},
		{name: "403 is unavailable", steps: []llmtest.Step{llmtest.Status(403, `{"type":"error","error":{"type":"permission_error","message":"no access"}}`)},
			want: cairn.ErrUnavailable, calls: 1},
		{name: "400 is invalid: the request, not the endpoint", steps: []llmtest.Step{llmtest.Status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.input_schema: JSON schema is invalid"}}`)},
			want: cairn.ErrInvalid, calls: 1, wantMsg: "input_schema: JSON schema is invalid"},
		{name: "413 is invalid", steps: []llmtest.Step{llmtest.Status(413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes"}}`)},
			want: cairn.ErrInvalid, calls: 1, wantMsg: "maximum allowed number of bytes"},
		{name: "404 is unavailable", steps: []llmtest.Step{llmtest.Status(404, `{"type":"error","error":{"type":"not_found_error","message":"model: nope"}}`)},
			want: cairn.ErrUnavailable, calls: 1},
		{name: "timeout is busy and not retried", steps: []llmtest.Step{{Hang: true}}, want: cairn.ErrBusy, calls: 1, wantMsg: "no answer within 100ms"},
		{name: "answer cut at max_tokens", steps: []llmtest.Step{toolAnswer(`{}`, "max_tokens")}, want: cairn.ErrInvalid, text: `{}`, calls: 1,
			wantMsg: "cut at the output limit (max_tokens 300)"},
		{name: "schema-violating input", steps: []llmtest.Step{toolAnswer(`{"n":"three"}`, "tool_use")}, want: cairn.ErrInvalid, text: `{"n":"three"}`, calls: 1,
			wantMsg: `answer violates the schema: at /n: type: "three" is a string, want integer`},
		{name: "no tool call", steps: []llmtest.Step{{Body: `{"content":[{"type":"text","text":"I would rather not."}],"stop_reason":"end_turn","usage":{}}`}},
			want: cairn.ErrInvalid, text: "I would rather not.", calls: 1, wantMsg: "no call of the forced tool"},
		{name: "truncated response body", steps: []llmtest.Step{{Body: `{"content":[{"type":"tool_use","name":"count","input":{"n":`}},
			want: cairn.ErrInvalid, text: `{"content":[{"type":"tool_use","name":"count","input":{"n":`, calls: 1, wantMsg: "unreadable Messages API response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := llmtest.New(t, tt.steps...)
			c := New(f.URL, "claude-x", "sk-ant-k")
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
				Purpose: cairn.PurposeConsolidate, Schema: json.RawMessage(countSchema), SchemaName: "count"})
			bodies := f.Bodies()
			if len(bodies) != tt.calls {
				t.Fatalf("%d requests, want %d", len(bodies), tt.calls)
			}
			for i, b := range bodies {
				if b != toolBody {
					t.Errorf("request %d:\n got %s\nwant %s", i, b, toolBody)
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
			if tt.text != "" && (!errors.As(err, &ie) || ie.Raw != tt.text) {
				t.Errorf("error %#v, want raw %q", err, tt.text)
			}
		})
	}
}

func TestTemperatureRefused(t *testing.T) {
	f := llmtest.New(t, llmtest.Status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"temperature is not supported for this model"}}`),
		toolAnswer(`{"n":1}`, "tool_use"))
	c := New(f.URL, "claude-x", "k")
	req := &cairn.LLMRequest{System: "count things", Prompt: "how many?", MaxTokens: 300, Schema: json.RawMessage(countSchema), SchemaName: "count"}
	for range 2 {
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	want := strings.Replace(toolBody, `"temperature":0,`, ``, 1)
	if got := f.Bodies(); len(got) != 3 || got[1] != want || got[2] != want {
		t.Fatalf("bodies %q", got)
	}
}

func TestSpentTokensOnInvalidAnswers(t *testing.T) {
	f := llmtest.New(t, toolAnswer(`{"n":0}`, "tool_use"))
	_, err := New(f.URL, "claude-x", "k").Complete(context.Background(), &cairn.LLMRequest{Prompt: "p", Schema: json.RawMessage(countSchema), SchemaName: "count"})
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
	tests := []struct {
		name string
		c    *Client
		want string
	}{
		{"connection refused", New(refused, "claude-x", "k"), "connect to"},
		{"no endpoint", New("", "claude-x", "k"), "no Messages API endpoint"},
		{"no key", New(refused, "claude-x", ""), "no Anthropic API key"},
		{"key source fails", &Client{BaseURL: refused, Model: "claude-x", KeySource: func() (string, error) {
			return "", errors.Join(cairn.ErrUnavailable, errors.New("ANTHROPIC_API_KEY is empty"))
		}}, "ANTHROPIC_API_KEY"},
	}
	for _, tt := range tests {
		_, err := tt.c.Complete(context.Background(), &cairn.LLMRequest{Prompt: "p"})
		if !errors.Is(err, cairn.ErrUnavailable) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want unavailable with %q", tt.name, err, tt.want)
		}
	}
}
