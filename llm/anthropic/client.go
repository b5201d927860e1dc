// Package anthropic is a lean client for Anthropic's Messages API
// (POST {BaseURL}/v1/messages) over net/http.
//
// Why not the official SDK: it adds about 16 MB to the binary (measured by
// the project) for the one endpoint Cairn uses. This client is a couple of
// hundred lines, and its tests assert the exact request body and headers
// against httptest servers for every answer and failure Cairn must tell
// apart.
//
// Structured output: a request with a Schema is sent with one tool whose
// input_schema is the schema and a tool_choice that forces it; the tool
// call's input is the answer. (The schema's top level must then be an
// object, as tool inputs are.) The input is validated here as well (see
// llm/schema): an answer cut at max_tokens, missing, or violating the
// schema is a *cairn.InvalidOutputError with the raw text, and no text is
// returned.
//
// Failures: see llm/internal/wire; 529 "overloaded" is busy.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/internal/wire"
	"github.com/cairnmemory/cairn/llm/schema"
)

// Defaults for a Client.
const (
	DefaultBaseURL      = "https://api.anthropic.com"
	DefaultVersion      = "2023-06-01" // the anthropic-version header
	DefaultTimeout      = 60 * time.Second
	DefaultMaxTokens    = 4096 // the API requires max_tokens on every request
	DefaultRetries      = wire.DefaultRetries
	DefaultBackoff      = wire.DefaultBackoff
	DefaultMaxRetryWait = wire.DefaultMaxWait
)

// Client calls the Messages API. Set its fields before the first call; it
// is then safe for concurrent use.
type Client struct {
	BaseURL string // e.g. https://api.anthropic.com (a trailing /v1 is accepted)
	Model   string
	APIKey  string // sent as x-api-key
	// KeySource, when set, is asked for the key on every call instead of
	// APIKey; its error is returned as is and should wrap
	// cairn.ErrUnavailable.
	KeySource    func() (string, error)
	Version      string        // anthropic-version; empty: DefaultVersion
	Timeout      time.Duration // per attempt
	MaxTokens    int           // when the request sets none
	Retries      int           // extra attempts on 429, 5xx, 529 and dropped connections
	Backoff      time.Duration // first wait between attempts, doubled each time
	MaxRetryWait time.Duration // the longest Retry-After honored
	HTTP         *http.Client

	noTemperature atomic.Bool // learned from a 400: the model allows only its default
}

var _ cairn.LLM = (*Client)(nil)

// New returns a client with defaults filled.
func New(baseURL, model, apiKey string) *Client {
	return &Client{BaseURL: baseURL, Model: model, APIKey: apiKey, Version: DefaultVersion,
		Timeout: DefaultTimeout, MaxTokens: DefaultMaxTokens, Retries: DefaultRetries,
		Backoff: DefaultBackoff, MaxRetryWait: DefaultMaxRetryWait}
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type toolChoice struct {
	Type string `json:"type"` // "tool": call the named tool
	Name string `json:"name"`
}

type messagesRequest struct {
	Model       string      `json:"model"`
	MaxTokens   int         `json:"max_tokens"`
	System      string      `json:"system,omitempty"`
	Messages    []message   `json:"messages"`
	Temperature *float64    `json:"temperature,omitempty"`
	Tools       []tool      `json:"tools,omitempty"`
	ToolChoice  *toolChoice `json:"tool_choice,omitempty"`
}

type messagesResponse struct {
	Content []struct {
		Type  string          `json:"type"` // text, tool_use, ...
		Text  string          `json:"text"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason string `json:"stop_reason"` // end_turn, max_tokens, tool_use, refusal, ...
	Usage      struct {
		InputTokens              int `json:"input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		OutputTokens             int `json:"output_tokens"`
	} `json:"usage"`
}

// toolDescription tells the model what the forced tool is for.
const toolDescription = "Record your answer. The input of this call is the whole answer, and it must satisfy the input schema."

// Complete sends one message (temperature 0) and returns the answer; with a
// Schema, the validated JSON input of the forced tool call. TokensIn counts
// all input tokens, cached or not. Busy answers are retried with backoff;
// errors wrap cairn.ErrUnavailable, cairn.ErrBusy or cairn.ErrInvalid, or
// the context's error.
func (c *Client) Complete(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	base := strings.TrimSuffix(strings.TrimRight(c.BaseURL, "/"), "/v1")
	if base == "" || c.Model == "" {
		return nil, fmt.Errorf("%w: no Messages API endpoint or model configured (set base_url and model in an [llm.<purpose>] table)", cairn.ErrUnavailable)
	}
	check, name, err := wire.Schema(req)
	if err != nil {
		return nil, err
	}
	key := c.APIKey
	if c.KeySource != nil {
		if key, err = c.KeySource(); err != nil {
			return nil, err
		}
	}
	if key == "" {
		return nil, fmt.Errorf("%w: no Anthropic API key (set api_key_env or api_key_file)", cairn.ErrUnavailable)
	}
	target, err := wire.Endpoint(c.BaseURL, "/v1", "v1", "messages")
	if err != nil {
		return nil, err
	}
	for range 2 {
		body := c.request(req, name)
		res, err := c.send(ctx, target, key, body, check)
		if err == nil {
			return res, nil
		}
		var he *wire.HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusBadRequest || !strings.Contains(strings.ToLower(he.Message), "temperature") || c.noTemperature.Swap(true) {
			return nil, fmt.Errorf("create message: %w", err)
		}
	}
	return nil, fmt.Errorf("create message: %w: %s refused every form of the request", cairn.ErrUnavailable, wire.Shown(base))
}

func (c *Client) request(req *cairn.LLMRequest, name string) *messagesRequest {
	body := &messagesRequest{Model: c.Model, MaxTokens: req.MaxTokens, System: req.System,
		Messages: []message{{Role: "user", Content: req.Prompt}}}
	if body.MaxTokens == 0 {
		body.MaxTokens = c.MaxTokens
	}
	if body.MaxTokens == 0 {
		body.MaxTokens = DefaultMaxTokens
	}
	if !c.noTemperature.Load() {
		body.Temperature = new(float64)
	}
	if len(req.Schema) > 0 {
		body.Tools = []tool{{Name: name, Description: toolDescription, InputSchema: req.Schema}}
		body.ToolChoice = &toolChoice{Type: "tool", Name: name}
	}
	return body
}

func (c *Client) send(ctx context.Context, url, key string, body *messagesRequest, check *schema.Schema) (*cairn.LLMResponse, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode message request: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	version := c.Version
	if version == "" {
		version = DefaultVersion
	}
	header := wire.Header("X-Api-Key", key, "Anthropic-Version", version)
	var raw []byte
	err = wire.Retry(ctx, wire.Policy{Retries: c.Retries, Backoff: c.Backoff, MaxWait: c.MaxRetryWait}, func() error {
		var err error
		raw, err = wire.Post(ctx, c.HTTP, url, header, data, timeout, 32<<20)
		return err
	})
	if err != nil {
		return nil, err
	}
	name := ""
	if body.ToolChoice != nil {
		name = body.ToolChoice.Name
	}
	return read(raw, name, check, body.MaxTokens)
}

// read turns a 200 body into the answer: with a schema, the input of the
// call of the tool named tool, checked against the schema.
func read(raw []byte, tool string, check *schema.Schema, limit int) (*cairn.LLMResponse, error) {
	var mr messagesResponse
	if err := json.Unmarshal(raw, &mr); err != nil {
		return nil, &cairn.InvalidOutputError{Reason: fmt.Sprintf("unreadable Messages API response (%d bytes)", len(raw)), Raw: string(raw)}
	}
	u := mr.Usage
	res := &cairn.LLMResponse{TokensIn: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, TokensOut: u.OutputTokens}
	var text strings.Builder
	var input json.RawMessage
	for _, b := range mr.Content {
		switch {
		case b.Type == "text":
			text.WriteString(b.Text)
		case b.Type == "tool_use" && b.Name == tool:
			input = b.Input
		}
	}
	res.Text = text.String()
	if check == nil {
		return res, nil
	}
	spent := func(err error) error { return &wire.Spent{Err: err, TokensIn: res.TokensIn, TokensOut: res.TokensOut} }
	got := string(input) // what an invalid answer keeps: the tool input, else the text
	if got == "" {
		got = res.Text
	}
	switch {
	case mr.StopReason == "max_tokens":
		return nil, spent(wire.Truncated(got, limit))
	case mr.StopReason == "refusal":
		return nil, spent(&cairn.InvalidOutputError{Reason: "model refused", Raw: got})
	case input == nil:
		return nil, spent(&cairn.InvalidOutputError{Reason: "answer has no call of the forced tool", Raw: got})
	}
	answer, err := schema.Answer(got, check)
	if err != nil {
		return nil, spent(err)
	}
	res.Text = answer
	return res, nil
}
