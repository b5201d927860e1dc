package cairn

import (
	"context"
	"fmt"
)

// EmbedderIdentity names what produced a vector. It is stored beside every
// vector: a changed identity re-embeds instead of mixing vector spaces.
type EmbedderIdentity struct {
	Provider       string `json:"provider"` // "onnx", "openai"
	Model          string `json:"model"`
	Dimension      int    `json:"dimension"`
	Normalized     bool   `json:"normalized"` // unit length: cosine = dot product
	QueryPrefix    string `json:"queryPrefix,omitempty"`
	DocumentPrefix string `json:"documentPrefix,omitempty"`
	Tokenizer      string `json:"tokenizer,omitempty"`
}

// Key is a stable string for the identity, stored with vectors.
func (id EmbedderIdentity) Key() string {
	return fmt.Sprintf("%s|%s|%d|%t|%q|%q|%s", id.Provider, id.Model, id.Dimension, id.Normalized, id.QueryPrefix, id.DocumentPrefix, id.Tokenizer)
}

// Embed kinds: queries and documents may be embedded differently (prefixes).
const (
	EmbedQuery    = "query"
	EmbedDocument = "document"
)

// Embedder turns texts into vectors, one per text, in order. Errors wrap
// ErrUnavailable (no endpoint, no model), ErrBusy (rate limited, overloaded)
// or ErrInvalid (a response that cannot be read); an unavailable embedder
// pauses embedding work, which resumes on a later sync.
type Embedder interface {
	Identity() EmbedderIdentity
	Embed(ctx context.Context, kind string, texts []string) ([][]float32, error)
}
