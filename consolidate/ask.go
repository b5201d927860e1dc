package consolidate

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmemory/cairn"
)

// errUnusable marks a window whose answer could not be read twice.
var errUnusable = errors.New("unusable answer")

// Schema names on the wire.
const (
	schemaNameMain         = "cairn_window"
	schemaNameObservations = "cairn_observations"
)

// ask sends one prompt (redacted first) and reads the answer. An answer
// that violates the schema but is a JSON object is read leniently: the gate
// drops what is wrong in it. One that cannot be read at all (cut mid-JSON)
// is asked again once. Unavailable and busy models pause the run.
func (w *Worker) ask(ctx context.Context, pass, prompt string) (*answer, cairn.LLMResponse, error) {
	req := &cairn.LLMRequest{System: system(pass, !w.apart()), Prompt: redacted(prompt), Purpose: cairn.PurposeConsolidate,
		MaxTokens: w.MaxTokens, Schema: schemaMain(), SchemaName: schemaNameMain}
	switch {
	case pass == PassObservations:
		req.MaxTokens, req.Schema, req.SchemaName = w.ObservationMaxTokens, schemaObservations(), schemaNameObservations
	case w.apart():
		req.Schema = schemaMainApart()
	}
	var used cairn.LLMResponse
	var last error
	for range 2 {
		resp, err := w.call(ctx, req)
		if resp != nil {
			used.TokensIn += resp.TokensIn
			used.TokensOut += resp.TokensOut
		}
		var inv *cairn.InvalidOutputError
		switch {
		case err == nil:
			a, derr := decodeAnswer(resp.Text)
			if derr == nil {
				return a, used, nil
			}
			last = fmt.Errorf("read answer: %w", derr)
		case errors.As(err, &inv):
			if a, derr := decodeAnswer(inv.Raw); derr == nil {
				return a, used, nil
			}
			last = err
		case errors.Is(err, cairn.ErrInvalid):
			last = err
		default:
			return nil, used, pause(ctx, err)
		}
	}
	return nil, used, fmt.Errorf("consolidate window: %w: %v", errUnusable, last)
}

func (w *Worker) call(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	if w.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.CallTimeout)
		defer cancel()
	}
	if w.LLM == nil {
		return noModel{}.Complete(ctx, req)
	}
	return w.LLM.Complete(ctx, req)
}

// noModel stands for a missing [llm.consolidate]: every call is
// unavailable, so a run pauses with its records pending.
type noModel struct{}

func (noModel) Complete(context.Context, *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	return nil, fmt.Errorf("%w: no model configured for consolidation (set [llm.consolidate] in config.toml)", cairn.ErrUnavailable)
}

// pause classifies a failed call: a cancelled run is an error; a busy or
// timed-out model pauses as busy; anything else as unavailable.
func pause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("consolidate: %w", ctx.Err())
	}
	switch {
	case errors.Is(err, cairn.ErrBusy), errors.Is(err, context.DeadlineExceeded):
		return &errPause{status: cairn.ConsolidatePausedBusy, err: err}
	default:
		return &errPause{status: cairn.ConsolidatePausedUnavailable, err: err}
	}
}
