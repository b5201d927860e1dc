// Package openai is a lean client for OpenAI-compatible chat-completions
// endpoints (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter) over
// net/http.
//
// Why not the official SDK: it adds about 30 MB to the binary (measured by
// the project) for one endpoint Cairn uses; this client is a few hundred
// lines and its tests assert the exact request body against httptest
// servers.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/httpjson"
)

// Defaults for a Client.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultMaxTokens = 1024
	DefaultRetries   = 2
)

// Client calls POST {BaseURL}/chat/completions.
type Client struct {
	BaseURL   string // e.g. https://api.openai.com/v1
	Model     string
	APIKey    string // sent as a bearer token; empty for keyless local servers
	Timeout   time.Duration
	MaxTokens int
	Retries   int           // extra attempts on 429 and 5xx
	Backoff   time.Duration // first wait between attempts, doubled each time (default 500 ms)
	HTTP      *http.Client
}

var _ cairn.LLM = (*Client)(nil)

// New returns a client with defaults filled.
func New(baseURL, model, apiKey string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Model: model, APIKey: apiKey,
		Timeout: DefaultTimeout, MaxTokens: DefaultMaxTokens, Retries: DefaultRetries, Backoff: 500 * time.Millisecond}
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Temperature float64       `json:"temperature"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete sends one chat completion (temperature 0), retrying 429 and 5xx
// answers with exponential backoff.
func (c *Client) Complete(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	if c.BaseURL == "" || c.Model == "" {
		return nil, fmt.Errorf("%w: no endpoint or model configured (set [llm.fast] base_url and model)", cairn.ErrUnavailable)
	}
	body := chatRequest{Model: c.Model, MaxTokens: req.MaxTokens}
	if body.MaxTokens == 0 {
		body.MaxTokens = c.MaxTokens
	}
	if req.System != "" {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: req.System})
	}
	body.Messages = append(body.Messages, chatMessage{Role: "user", Content: req.Prompt})
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	backoff := c.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	var out *cairn.LLMResponse
	err = httpjson.Retry(ctx, c.Retries, backoff, func() error {
		var err error
		out, err = c.post(ctx, data)
		return err
	})
	return out, err
}

func (c *Client) post(ctx context.Context, data []byte) (*cairn.LLMResponse, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	raw, err := httpjson.Post(ctx, c.HTTP, c.BaseURL+"/chat/completions", c.APIKey, data, timeout, 8<<20)
	if err != nil {
		return nil, err
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 {
		return nil, fmt.Errorf("%w: unreadable chat response (%d bytes): %.200s", cairn.ErrInvalid, len(raw), raw)
	}
	return &cairn.LLMResponse{Text: cr.Choices[0].Message.Content, TokensIn: cr.Usage.PromptTokens, TokensOut: cr.Usage.CompletionTokens}, nil
}
