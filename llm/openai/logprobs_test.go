package openai

import (
	"context"
	"errors"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/internal/llmtest"
)

// Request bodies as the fake records them (keys sorted).
const (
	logprobsBody = `{"logprobs":true,"max_tokens":4,"messages":[{"content":"p","role":"user"}],"model":"m","temperature":0,"top_logprobs":5}`
	plainBody    = `{"max_tokens":4,"messages":[{"content":"p","role":"user"}],"model":"m","temperature":0}`
)

// withLogprobs is a chat answer "yes" whose one token carries two
// alternatives.
const withLogprobs = `{"choices":[{"message":{"role":"assistant","content":"yes"},"finish_reason":"stop",` +
	`"logprobs":{"content":[{"token":"yes","logprob":-0.105,"top_logprobs":[{"token":"yes","logprob":-0.105},{"token":"no","logprob":-2.303}]}]}}],` +
	`"usage":{"prompt_tokens":9,"completion_tokens":1}}`

func TestCompleteLogprobs(t *testing.T) {
	tests := []struct {
		name   string
		steps  []step
		bodies []string
		tokens int // answer tokens with log-probabilities
	}{
		{"logprobs answered", []step{{Body: withLogprobs}}, []string{logprobsBody}, 1},
		{"logprobs ignored", []step{answer("yes", "stop")}, []string{logprobsBody}, 0},
		{"logprobs refused: asked again without", []step{status(400, `{"error":{"message":"logprobs is not supported with this model"}}`), answer("yes", "stop")},
			[]string{logprobsBody, plainBody}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := llmtest.New(t, tt.steps...)
			c := New(f.URL, "m", "")
			res, lp, err := c.CompleteLogprobs(context.Background(), &cairn.LLMRequest{Prompt: "p", MaxTokens: 4}, 5)
			if err != nil || res.Text != "yes" || len(lp) != tt.tokens {
				t.Fatalf("CompleteLogprobs = %+v, %+v, %v", res, lp, err)
			}
			if got := f.Bodies(); len(got) != len(tt.bodies) || got[0] != tt.bodies[0] || got[len(got)-1] != tt.bodies[len(tt.bodies)-1] {
				t.Fatalf("requests %q\nwant %q", got, tt.bodies)
			}
			if tt.tokens > 0 {
				tok := lp[0]
				if tok.Token != "yes" || tok.Logprob != -0.105 || len(tok.Top) != 2 || tok.Top[1].Token != "no" || tok.Top[1].Logprob != -2.303 {
					t.Errorf("token = %+v", tok)
				}
			}
		})
	}
}

// A server that refused logprobs once is not asked for them again, and
// Complete never asks for them.
func TestLogprobsRefusalIsRemembered(t *testing.T) {
	f := llmtest.New(t, status(400, `{"error":"unsupported parameter: logprobs"}`), answer("no", "stop"))
	c := New(f.URL, "m", "")
	req := &cairn.LLMRequest{Prompt: "p", MaxTokens: 4}
	for range 2 {
		if _, _, err := c.CompleteLogprobs(context.Background(), req, 5); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := f.Bodies(); len(got) != 4 || got[0] != logprobsBody || got[2] != plainBody || got[3] != plainBody {
		t.Fatalf("requests %q", got)
	}
}

func TestCompleteLogprobsRange(t *testing.T) {
	f := llmtest.New(t, answer("yes", "stop"))
	for _, top := range []int{0, 21} {
		if _, _, err := New(f.URL, "m", "").CompleteLogprobs(context.Background(), &cairn.LLMRequest{Prompt: "p"}, top); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("top %d: error %v, want invalid", top, err)
		}
	}
	if n := len(f.Bodies()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
