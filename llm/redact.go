package llm

import (
	"context"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
)

// Redacting returns an LLM that passes a request's System and Prompt
// through redact.Redact before inner sees them, so no secret leaves the
// process. The caller's request is not changed. Clients from New are
// already redacting; wrapping again is harmless (Redact is idempotent).
func Redacting(inner cairn.LLM) cairn.LLM { return redacting{inner} }

type redacting struct{ inner cairn.LLM }

func (r redacting) Complete(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	clean := *req
	clean.System, _ = redact.Redact(req.System)
	clean.Prompt, _ = redact.Redact(req.Prompt)
	return r.inner.Complete(ctx, &clean)
}
