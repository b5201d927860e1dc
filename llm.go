package cairn

import "context"

// Model purposes: consolidate uses a strong model, fast a cheap one for
// gathering, judging and evaluation.
const (
	PurposeConsolidate = "consolidate"
	PurposeFast        = "fast"
)

// LLMRequest is one chat completion: a system message and a user prompt.
// Everything in it must already be redacted.
type LLMRequest struct {
	System    string
	Prompt    string
	MaxTokens int // 0: the client's default
}

// LLMResponse is a model's answer with the tokens it cost.
type LLMResponse struct {
	Text      string
	TokensIn  int
	TokensOut int
}

// LLM answers chat completions. Errors wrap ErrUnavailable (no endpoint, no
// key, connection refused, 401/403), ErrBusy (429, overloaded, 5xx after
// bounded retries) or ErrInvalid (a response that cannot be read).
type LLM interface {
	Complete(ctx context.Context, req *LLMRequest) (*LLMResponse, error)
}
