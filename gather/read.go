package gather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/schema"
	"github.com/cairnmemory/cairn/redact"
)

// reader has the fast model read candidates in parts.
type reader struct {
	g        *Gatherer
	question string
	from, to string
	mu       sync.Mutex // guards stats
	stats    *Stats
}

// round is what one round of parts returned.
type round struct {
	answered bool     // some part got a usable answer
	reason   string   // the first part's failure, when none did
	searches []string // the proposals, in part order
}

// answer is the model's reply for a part.
type answer struct {
	Keep     []int    `json:"keep"`
	Searches []string `json:"searches"`
}

// read splits items into parts of PartSize, in rank order, and has each
// read by one model call, Parallel at a time. A part without a usable
// answer (the model unavailable, busy, too slow, or off the schema) keeps
// all its candidates. Every goroutine is awaited before it returns; the
// error is the caller's cancellation only.
func (r *reader) read(ctx context.Context, items []*Gathered, rnd int) (round, error) {
	var parts [][]*Gathered
	for lo := 0; lo < len(items); lo += r.g.PartSize {
		parts = append(parts, items[lo:min(lo+r.g.PartSize, len(items))])
	}
	answers := make([]*answer, len(parts))
	reasons := make([]string, len(parts))
	sem := make(chan struct{}, r.g.Parallel)
	var wg sync.WaitGroup
	for i, part := range parts {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			answers[i], reasons[i] = r.part(ctx, part, rnd)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return round{}, err
	}
	var out round
	for i, part := range parts {
		a := answers[i]
		if a == nil {
			if out.reason == "" {
				out.reason = reasons[i]
			}
			for _, it := range part {
				it.Kept, it.Read = true, false
			}
			continue
		}
		out.answered = true
		for j, it := range part {
			it.Read, it.Kept = true, slices.Contains(a.Keep, j+1)
		}
		out.searches = append(out.searches, a.Searches...)
	}
	r.stats.Parts += len(parts)
	return out, nil
}

// part asks about one part; nil and the reason when there is no usable
// answer.
func (r *reader) part(ctx context.Context, part []*Gathered, rnd int) (*answer, string) {
	ctx, cancel := context.WithTimeout(ctx, r.g.Timeout)
	defer cancel()
	// What is sent must be redacted already (cairn.LLMRequest): memories
	// are redacted when stored, but the question comes from the caller.
	prompt, _ := redact.Redact(partPrompt(r.question, r.from, r.to, part, rnd))
	req := &cairn.LLMRequest{System: systemPrompt(), Prompt: prompt,
		MaxTokens: TokensPerCandidate*len(part) + TokensPerPart, Purpose: cairn.PurposeFast,
		Schema: schemaFor(len(part)), SchemaName: "cairn_gather"}
	resp, err := r.g.Model.Complete(ctx, req)
	var a *answer
	if err == nil {
		a, err = decode(resp.Text, len(part))
	}
	in, out := spent(resp, err)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats.Calls++
	r.stats.TokensIn += in
	r.stats.TokensOut += out
	if err != nil {
		var inv *cairn.InvalidOutputError
		if errors.As(err, &inv) {
			r.stats.InvalidAnswers++
		}
		r.stats.Unanswered++
		reason, _ := redact.Redact("read part: " + err.Error()) // a violation may quote the answer
		return nil, reason
	}
	return a, ""
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

// decode checks an answer against the part's schema in code, whatever
// the client checked: an answer off the schema is unusable as a whole.
func decode(text string, n int) (*answer, error) {
	clean, err := schema.Answer(text, compiled(n))
	if err != nil {
		return nil, err
	}
	var a answer
	if err := json.Unmarshal([]byte(clean), &a); err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	return &a, nil
}
