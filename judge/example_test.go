package judge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/judge"
)

// A judge over an OpenAI-compatible endpoint that gives log-probabilities
// (here a stand-in answering "memory_0: yes" with yes at 0.8 and no at
// 0.2), judging whether a remembered passage helps with a request.
func ExampleJudge_Ask() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"choices":[{"message":{"content":"memory_0: yes"},"finish_reason":"stop","logprobs":{"content":[`+
			`{"token":"memory_0","logprob":0},{"token":":","logprob":0},`+
			`{"token":" yes","logprob":-0.223,"top_logprobs":[{"token":" yes","logprob":-0.2231},{"token":" no","logprob":-1.6094}]}]}}]}`)
	}))
	defer srv.Close()
	cfg := config.Judge{LLM: config.LLM{API: "openai", BaseURL: srv.URL, Model: "qwen3-4b"}, From: "llm.judge"}
	j, err := judge.FromConfig(cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	state := map[string]any{
		"conversation": map[string]any{"history": []any{}, "currentRequest": "Which port does staging listen on?"},
		"asOf":         "2026-12-01",
		"candidates":   []any{map[string]any{"excerpt": "Staging listens on 8443 since the October move.", "corpus": "notes", "sourcePath": "cairn://notes/deploy.md", "dates": []any{}}},
	}
	got, err := j.Ask(context.Background(), &judge.Request{Rubric: judge.MemoryUsefulness, State: state})
	if err != nil {
		fmt.Println(judge.CodeOf(err), err)
		return
	}
	p := got.Answers["memory_0"].P
	fmt.Printf("%s %s P(yes)=%.2f useful=%v\n", got.Policy, got.Method, p, p >= judge.MinUsefulness)
	// Output: qwen3-4b:memory-usefulness-v2 logprobs P(yes)=0.80 useful=true
}
