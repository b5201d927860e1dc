// Package openai is a lean client for OpenAI-compatible chat-completions
// endpoints (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter) over
// net/http.
//
// Why not the official SDK: it adds about 30 MB to the binary (measured by
// the project) for the one endpoint Cairn uses. This client is a few
// hundred lines, and its tests assert the exact request body against
// httptest servers for every answer and failure Cairn must tell apart.
//
// Structured output: a request with a Schema is sent with
// response_format {"type": "json_schema", "json_schema": {"name", "schema",
// "strict": true}}. Strict mode wants every object to list all its
// properties in required and to set additionalProperties false; nullable
// fields are written as "type": ["string", "null"]. A server that answers
// 400 naming response_format or json_schema (no schema support, or a
// schema its strict mode refuses) is asked again in JSON mode
// ({"type": "json_object"}) with the schema in the system prompt, and if
// it refuses that too, with the schema in the prompt alone. The client
// remembers the step down for its later calls. Whatever the mode, the
// answer is parsed and validated here (see llm/schema); an answer that
// does not parse, is cut at max_tokens, or violates the schema is a
// *cairn.InvalidOutputError with the raw text, and no text is returned.
//
// The client also adapts to two refusals of reasoning models: max_tokens
// ("use max_completion_tokens instead") and temperature 0.
//
// Log-probabilities: CompleteLogprobs sends logprobs true and top_logprobs
// n and returns, per answer token, its log-probability and the n likeliest
// alternatives (llama.cpp server, vLLM, Ollama and OpenAI answer them). A
// server that answers 400 naming logprobs is asked again without them, and
// the client remembers that for later calls; such a server, like one that
// ignores the fields, gives an answer with no log-probabilities, and the
// caller decides what to do without them (package judge asks for a
// structured answer instead).
//
// Failures: see llm/internal/wire for what is unavailable and what is busy.
package openai

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
	DefaultTimeout   = 60 * time.Second
	DefaultMaxTokens = 1024
	DefaultRetries   = wire.DefaultRetries
	DefaultBackoff   = wire.DefaultBackoff
	// DefaultMaxRetryWait is the longest Retry-After the client waits for;
	// a longer one returns busy at once.
	DefaultMaxRetryWait = wire.DefaultMaxWait
)

// SchemaMode is how a request's Schema is asked for.
type SchemaMode int32

const (
	// SchemaStrict: response_format json_schema with strict true (the default).
	SchemaStrict SchemaMode = iota
	// SchemaJSONMode: response_format json_object, the schema in the system prompt.
	SchemaJSONMode
	// SchemaInPrompt: no response_format, the schema in the system prompt.
	SchemaInPrompt
)

// Client calls POST {BaseURL}/chat/completions (joined to BaseURL's path,
// before any query it has). Set its fields before the
// first call; it is then safe for concurrent use.
type Client struct {
	BaseURL string // e.g. https://api.openai.com/v1
	Model   string
	APIKey  string // sent as a bearer token; empty for keyless local servers
	// KeySource, when set, is asked for the key on every call instead of
	// APIKey (so a rotated key file needs no restart); its error is
	// returned as is and should wrap cairn.ErrUnavailable.
	KeySource    func() (string, error)
	Timeout      time.Duration // per attempt
	MaxTokens    int           // when the request sets none
	Retries      int           // extra attempts on 429, 5xx and dropped connections
	Backoff      time.Duration // first wait between attempts, doubled each time
	MaxRetryWait time.Duration // the longest Retry-After honored
	SchemaMode   SchemaMode    // the first way a Schema is asked for
	HTTP         *http.Client

	// Learned from 400 answers, shared by later calls.
	stepDown      atomic.Int32 // added to SchemaMode
	maxCompletion atomic.Bool  // send max_completion_tokens, not max_tokens
	noTemperature atomic.Bool  // the model allows only its default temperature
	noLogprobs    atomic.Bool  // the server refuses logprobs
}

var _ cairn.LLM = (*Client)(nil)

// New returns a client with defaults filled.
func New(baseURL, model, apiKey string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Model: model, APIKey: apiKey,
		Timeout: DefaultTimeout, MaxTokens: DefaultMaxTokens, Retries: DefaultRetries,
		Backoff: DefaultBackoff, MaxRetryWait: DefaultMaxRetryWait}
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Logprobs            bool            `json:"logprobs,omitempty"`
	TopLogprobs         *int            `json:"top_logprobs,omitempty"`
}

type responseFormat struct {
	Type       string      `json:"type"` // json_schema or json_object
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
		Logprobs     *struct {
			Content []TokenLogprob `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// TokenLogprob is one answer token with its log-probability (natural
// log) and, when asked for, the likeliest tokens at its place, itself
// usually among them.
type TokenLogprob struct {
	Token   string       `json:"token"`
	Logprob float64      `json:"logprob"`
	Top     []TopLogprob `json:"top_logprobs"`
}

// TopLogprob is one alternative token at a place in the answer.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// MaxTopLogprobs is the most alternatives OpenAI accepts per token.
const MaxTopLogprobs = 20

// Complete sends one chat completion (temperature 0) and returns the
// answer; with a Schema, the validated JSON text. Busy answers are retried
// with backoff (see Retries); errors wrap cairn.ErrUnavailable,
// cairn.ErrBusy or cairn.ErrInvalid, or the context's error.
func (c *Client) Complete(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	res, _, err := c.complete(ctx, req, 0)
	return res, err
}

// CompleteLogprobs is Complete that also asks for the log-probability of
// each answer token and its top likeliest alternatives (1 to
// MaxTopLogprobs). The tokens come back in answer order; none when the
// server ignores or refuses the request for them (see the package doc),
// which is not an error.
func (c *Client) CompleteLogprobs(ctx context.Context, req *cairn.LLMRequest, top int) (*cairn.LLMResponse, []TokenLogprob, error) {
	if top < 1 || top > MaxTopLogprobs {
		return nil, nil, cairn.Invalidf("top_logprobs %d; allowed: 1 to %d", top, MaxTopLogprobs)
	}
	return c.complete(ctx, req, top)
}

// complete is Complete asking for top alternatives per token when top > 0.
func (c *Client) complete(ctx context.Context, req *cairn.LLMRequest, top int) (*cairn.LLMResponse, []TokenLogprob, error) {
	if c.BaseURL == "" || c.Model == "" {
		return nil, nil, fmt.Errorf("%w: no chat endpoint or model configured (set base_url and model in an [llm.<purpose>] table)", cairn.ErrUnavailable)
	}
	check, name, err := wire.Schema(req)
	if err != nil {
		return nil, nil, err
	}
	key := c.APIKey
	if c.KeySource != nil {
		if key, err = c.KeySource(); err != nil {
			return nil, nil, err
		}
	}
	// Each 400 the client can adapt to is met at most once: two schema
	// step-downs, max_completion_tokens, temperature, logprobs, then the
	// answer.
	for range 6 {
		mode := min(c.SchemaMode+SchemaMode(c.stepDown.Load()), SchemaInPrompt)
		body := c.request(req, mode, name)
		if top > 0 && !c.noLogprobs.Load() {
			body.Logprobs, body.TopLogprobs = true, &top
		}
		res, lp, err := c.send(ctx, body, key, req, check)
		if err == nil {
			return res, lp, nil
		}
		var he *wire.HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusBadRequest && he.Status != http.StatusUnprocessableEntity || !c.adapt(he.Message, len(req.Schema) > 0, mode, body.Logprobs) {
			return nil, nil, fmt.Errorf("complete chat: %w", err)
		}
	}
	return nil, nil, fmt.Errorf("complete chat: %w: %s refused every form of the request", cairn.ErrUnavailable, wire.Shown(c.BaseURL))
}

// adapt learns from a 400 message what to change; false when nothing.
func (c *Client) adapt(msg string, hasSchema bool, mode SchemaMode, logprobs bool) bool {
	m := strings.ToLower(msg)
	switch {
	case logprobs && strings.Contains(m, "logprobs"):
		c.noLogprobs.Store(true)
	case hasSchema && mode < SchemaInPrompt && (strings.Contains(m, "response_format") || strings.Contains(m, "json_schema") || strings.Contains(m, "json_object")):
		c.stepDown.Store(int32(mode - c.SchemaMode + 1))
	case strings.Contains(m, "max_completion_tokens") && !c.maxCompletion.Load():
		c.maxCompletion.Store(true)
	case strings.Contains(m, "temperature") && !c.noTemperature.Load():
		c.noTemperature.Store(true)
	default:
		return false
	}
	return true
}

func (c *Client) request(req *cairn.LLMRequest, mode SchemaMode, name string) *chatRequest {
	body := &chatRequest{Model: c.Model}
	n := req.MaxTokens
	if n == 0 {
		n = c.MaxTokens
	}
	if c.maxCompletion.Load() {
		body.MaxCompletionTokens = n
	} else {
		body.MaxTokens = n
	}
	if !c.noTemperature.Load() {
		body.Temperature = new(float64)
	}
	system := req.System
	if len(req.Schema) > 0 {
		switch mode {
		case SchemaStrict:
			body.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: name, Schema: req.Schema, Strict: true}}
		case SchemaJSONMode:
			body.ResponseFormat = &responseFormat{Type: "json_object"}
			system = wire.InPrompt(system, req.Schema)
		default:
			system = wire.InPrompt(system, req.Schema)
		}
	}
	if system != "" {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: system})
	}
	body.Messages = append(body.Messages, chatMessage{Role: "user", Content: req.Prompt})
	return body
}

func (c *Client) send(ctx context.Context, body *chatRequest, key string, req *cairn.LLMRequest, check *schema.Schema) (*cairn.LLMResponse, []TokenLogprob, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, nil, fmt.Errorf("encode chat request: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	target, err := wire.Endpoint(c.BaseURL, "", "chat", "completions")
	if err != nil {
		return nil, nil, err
	}
	var raw []byte
	err = wire.Retry(ctx, wire.Policy{Retries: c.Retries, Backoff: c.Backoff, MaxWait: c.MaxRetryWait}, func() error {
		var err error
		raw, err = wire.Post(ctx, c.HTTP, target, wire.Header("Authorization", bearer(key)), data, timeout, 32<<20)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return read(raw, req, check, max(body.MaxTokens, body.MaxCompletionTokens))
}

func bearer(key string) string {
	if key == "" {
		return ""
	}
	return "Bearer " + key
}

// read turns a 200 body into the answer, checking it against schema, and
// its token log-probabilities when it has them.
func read(raw []byte, req *cairn.LLMRequest, check *schema.Schema, limit int) (*cairn.LLMResponse, []TokenLogprob, error) {
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 {
		return nil, nil, &cairn.InvalidOutputError{Reason: fmt.Sprintf("unreadable chat response (%d bytes)", len(raw)), Raw: string(raw)}
	}
	ch := cr.Choices[0]
	res := &cairn.LLMResponse{TokensIn: cr.Usage.PromptTokens, TokensOut: cr.Usage.CompletionTokens}
	if ch.Message.Content != nil {
		res.Text = *ch.Message.Content
	}
	var lp []TokenLogprob
	if ch.Logprobs != nil {
		lp = ch.Logprobs.Content
	}
	if len(req.Schema) == 0 {
		return res, lp, nil
	}
	spent := func(err error) error { return &wire.Spent{Err: err, TokensIn: res.TokensIn, TokensOut: res.TokensOut} }
	switch {
	case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
		return nil, nil, spent(&cairn.InvalidOutputError{Reason: "model refused: " + *ch.Message.Refusal, Raw: res.Text})
	case ch.FinishReason == "length":
		return nil, nil, spent(wire.Truncated(res.Text, limit))
	case ch.FinishReason == "content_filter":
		return nil, nil, spent(&cairn.InvalidOutputError{Reason: "answer stopped by the content filter", Raw: res.Text})
	}
	text, err := schema.Answer(res.Text, check)
	if err != nil {
		return nil, nil, spent(err)
	}
	res.Text = text
	return res, lp, nil
}
