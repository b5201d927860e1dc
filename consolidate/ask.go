package consolidate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/schema"
	"github.com/cairnmemory/cairn/redact"
)

// errUnusable marks a window (or a sleep group) whose answer could not be
// used twice.
var errUnusable = errors.New("unusable answer")

// unusable is errUnusable with the reason the second answer could not be
// used.
type unusable struct {
	op     string // "consolidate window", "judge group"
	reason string // redacted
}

func (e *unusable) Error() string { return e.op + ": " + errUnusable.Error() + ": " + e.reason }
func (e *unusable) Unwrap() error { return errUnusable }

// Schema names on the wire.
const (
	schemaNameMain         = "cairn_window"
	schemaNameObservations = "cairn_observations"
)

// Compiled schemas: every answer is checked in code, whatever the client
// checked, so a client or server that does not enforce the schema cannot
// have an answer read leniently and dropped item by item. A violation
// means what llm/schema says it means: the answer is unusable as a whole
// and is not decoded; askTwice asks once more naming it.
var (
	checkMain         = sync.OnceValue(func() *schema.Schema { return schema.MustCompile(schemaMain()) })
	checkMainApart    = sync.OnceValue(func() *schema.Schema { return schema.MustCompile(schemaMainApart()) })
	checkObservations = sync.OnceValue(func() *schema.Schema { return schema.MustCompile(schemaObservations()) })
	checkSleep        = sync.OnceValue(func() *schema.Schema { return schema.MustCompile(schemaSleep) })
)

// tally counts what a run's model calls cost and how many answers could
// not be used.
type tally struct {
	in, out int
	invalid int // answers that came back unusable, retried ones included
}

// askTwice sends req and reads the answer with read; when it cannot be
// used (cut at the output limit, not JSON, off the schema, or the request
// rejected as invalid), it asks once more with the prompt naming what was
// wrong. It returns nil once read has taken an answer, an *unusable error
// with the second failure's reason, or a pause. Every answer's tokens are
// counted in t, unusable ones included.
func askTwice(ctx context.Context, call func(context.Context, *cairn.LLMRequest) (*cairn.LLMResponse, error),
	req *cairn.LLMRequest, op string, read func(text string) error, t *tally) error {
	reason := ""
	for try := range 2 {
		r := *req // a request of its own per call
		if try > 0 {
			r.Prompt = req.Prompt + redacted(reask(reason)) // the reason may quote the answer
		}
		resp, err := call(ctx, &r)
		in, out := spent(resp, err)
		t.in, t.out = t.in+in, t.out+out
		var inv *cairn.InvalidOutputError
		switch {
		case err == nil:
			rerr := read(resp.Text)
			if rerr == nil {
				return nil
			}
			t.invalid++
			reason = rerr.Error()
		case errors.As(err, &inv):
			t.invalid++
			reason = inv.Reason
		case errors.Is(err, cairn.ErrInvalid): // the request was rejected: no answer
			reason = err.Error()
		default:
			return pause(ctx, err)
		}
	}
	reason, _ = redact.Redact(oneLine(reason))
	return &unusable{op: op, reason: reason}
}

// reask is what a second request adds to the prompt: why the first answer
// could not be used.
func reask(reason string) string {
	var b strings.Builder
	if err := prompts().ExecuteTemplate(&b, "reask.tmpl", oneLine(reason)); err != nil {
		panic(fmt.Sprintf("render reask: %v", err))
	}
	return strings.TrimRight(b.String(), "\n")
}

// spent is what a call cost: the response's tokens, or those a failed
// call reports it was billed for (an answer cut short or off the schema).
func spent(resp *cairn.LLMResponse, err error) (in, out int) {
	if resp != nil {
		return resp.TokensIn, resp.TokensOut
	}
	var s interface{ Tokens() (in, out int) }
	if errors.As(err, &s) {
		return s.Tokens()
	}
	return 0, 0
}

// checked reads an answer for decode only after it passes s: an answer
// off the schema is never decoded, and its reason is the violation (with
// where it is) rather than whatever the decoder tripped on. The decoder
// gets the JSON text alone, unfenced by schema.Answer.
func checked[T any](s *schema.Schema, decode func(string) (T, error), out *T) func(text string) error {
	return func(text string) error {
		clean, err := schema.Answer(text, s)
		if err != nil {
			var inv *cairn.InvalidOutputError
			if errors.As(err, &inv) {
				return errors.New(inv.Reason)
			}
			return err
		}
		v, err := decode(clean)
		if err != nil {
			return fmt.Errorf("read answer: %w", err)
		}
		*out = v
		return nil
	}
}

// ask sends one window's prompt (redacted first) and reads the answer,
// checked against the pass's schema; see askTwice.
func (w *Worker) ask(ctx context.Context, pass, prompt string, t *tally) (*answer, error) {
	req := &cairn.LLMRequest{System: system(pass, !w.apart()), Prompt: redacted(prompt), Purpose: cairn.PurposeConsolidate,
		MaxTokens: w.MaxTokens, Schema: schemaMain(), SchemaName: schemaNameMain}
	check := checkMain()
	switch {
	case pass == PassObservations:
		req.MaxTokens, req.Schema, req.SchemaName = w.ObservationMaxTokens, schemaObservations(), schemaNameObservations
		check = checkObservations()
	case w.apart():
		req.Schema, check = schemaMainApart(), checkMainApart()
	}
	var a *answer
	if err := askTwice(ctx, w.call, req, "consolidate window", checked(check, decodeAnswer, &a), t); err != nil {
		return nil, err
	}
	return a, nil
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
