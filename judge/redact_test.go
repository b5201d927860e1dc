package judge

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/redact/redacttest"
)

// TestStateIsRedacted plants every secret kind in the state (values and a
// key) and a question, and checks that no request carries one, on the
// log-probability path and the structured one.
func TestStateIsRedacted(t *testing.T) {
	var lines []string
	for _, s := range redacttest.Samples() {
		lines = append(lines, s.Line)
	}
	all := strings.Join(lines, "\n")
	state := usefulState("deploy with these: "+all, "the excerpt quotes "+all)
	state["conversation"].(map[string]any)["history"] = []any{map[string]any{"role": "user", "text": all}}
	state[redacttest.Samples()[0].Secret] = "a secret as a key"
	f := answers(t, plainAnswer("memory_0: yes"), plainAnswer(`{"memory_0": 0.5}`))
	j := openaiJudge(t, f.URL, 5000)
	qs := []Question{{Key: "memory_0", Kind: Binary, Text: "Would " + redacttest.Samples()[1].Line + " help?"}}
	if _, err := j.Ask(context.Background(), &Request{Rubric: MemoryUsefulness, State: state, Questions: qs}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	for i := range 2 {
		var text strings.Builder
		for _, m := range f.request(t, i)["messages"].([]any) {
			text.WriteString(m.(map[string]any)["content"].(string))
		}
		// The state is JSON inside the prompt: read its strings back as
		// they were sent.
		sent := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&", `\n`, "\n", `\"`, `"`).Replace(text.String())
		if leaked := redacttest.Leaked(sent); len(leaked) > 0 {
			t.Errorf("request %d leaks %v", i, leaked)
		}
		if !strings.Contains(sent, "[REDACTED:") {
			t.Errorf("request %d has no redaction placeholder", i)
		}
	}
}

// TestLogprobsRefused: an endpoint that refuses logprobs with a 400 gets
// the structured request, and the 400's message (which the client needs to
// learn what was refused) does not reach the judge's result.
func TestLogprobsRefused(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"logprobs are not supported by this model"}}`)
			return
		}
		io.WriteString(w, []string{"", plainAnswer("memory_0: yes"), plainAnswer(`{"memory_0": 0.3}`)}[min(n, 2)])
	})
	got, err := openaiJudge(t, f.URL, 5000).Ask(context.Background(), &Request{Rubric: MemoryUsefulness, State: usefulState("q", "e")})
	if err != nil || got.Method != Structured || !near(got.Answers["memory_0"].P, 0.3) {
		t.Fatalf("judgment %+v, %v", got, err)
	}
	if reqs := f.requests(); len(reqs) != 3 || !strings.Contains(reqs[0], `"logprobs":true`) || strings.Contains(reqs[1], "logprobs") || !strings.Contains(reqs[2], "json_schema") {
		t.Fatalf("requests %q", reqs)
	}
}
