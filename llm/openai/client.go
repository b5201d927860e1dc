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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
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
	wait := c.Backoff
	for attempt := 0; ; attempt++ {
		resp, err := c.post(ctx, data)
		if err == nil || !errors.Is(err, cairn.ErrBusy) || attempt >= c.Retries {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (c *Client) post(ctx context.Context, data []byte) (*cairn.LLMResponse, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/chat/completions", bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: build request: %v", cairn.ErrUnavailable, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(hreq)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: %s timed out after %s", cairn.ErrBusy, c.BaseURL, timeout)
		}
		return nil, fmt.Errorf("%w: %v", cairn.ErrUnavailable, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: read response: %v", cairn.ErrBusy, err)
	}
	switch {
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%w: %s answered %d (check the API key)", cairn.ErrUnavailable, c.BaseURL, res.StatusCode)
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
		return nil, fmt.Errorf("%w: %s answered %d", cairn.ErrBusy, c.BaseURL, res.StatusCode)
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: %s answered %d", cairn.ErrUnavailable, c.BaseURL, res.StatusCode)
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 {
		return nil, fmt.Errorf("%w: unreadable chat response (%d bytes): %.200s", cairn.ErrInvalid, len(raw), raw)
	}
	return &cairn.LLMResponse{Text: cr.Choices[0].Message.Content, TokensIn: cr.Usage.PromptTokens, TokensOut: cr.Usage.CompletionTokens}, nil
}
