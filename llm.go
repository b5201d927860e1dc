package cairn

import (
	"context"
	"encoding/json"
)

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
	// Purpose names the setting the call is made for (PurposeConsolidate
	// or PurposeFast); clients count tokens under it.
	Purpose string
	// Schema, when set, is a JSON Schema the answer must satisfy: the
	// client asks for schema-constrained output where the API offers it,
	// else JSON mode, and validates the answer either way. SchemaName
	// names it on the wire (letters, digits, _ and -).
	Schema     json.RawMessage
	SchemaName string
}

// LLMResponse is a model's answer with the tokens it cost. With a Schema,
// Text is the JSON document that satisfied it.
type LLMResponse struct {
	Text      string
	TokensIn  int
	TokensOut int
}

// LLM answers chat completions. Errors wrap ErrUnavailable (no endpoint, no
// key, connection refused, 401/403), ErrBusy (429, overloaded, 5xx after
// bounded retries) or ErrInvalid (a response that cannot be read, or that
// violates the request's Schema: the error then carries the raw text, see
// InvalidOutputError).
type LLM interface {
	Complete(ctx context.Context, req *LLMRequest) (*LLMResponse, error)
}

// InvalidOutputError is the ErrInvalid a client returns when a model's
// answer does not parse or violates the requested schema; Raw keeps the
// text for diagnosis.
type InvalidOutputError struct {
	Reason string
	Raw    string
}

func (e *InvalidOutputError) Error() string { return "invalid model output: " + e.Reason }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *InvalidOutputError) Unwrap() error { return ErrInvalid }
