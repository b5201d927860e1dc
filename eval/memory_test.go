package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/llm/openai"
)

// memoryModel is an httptest fake of an OpenAI-compatible endpoint that
// serves every model the memory mode calls and checks each request: the
// consolidation passes (an observation per record, by the record's own
// words, credited to it), gather's parts (keeps what mentions the
// question's subject), the answer (from the memories shown) and the
// judge (log-probabilities refused, then a structured answer).
type memoryModel struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	n   map[string]int // requests by kind
}

var recordText = regexp.MustCompile(`(?m)^=== Record (\d+) [^\n]*===\n## User — (\w+) — [^\n]*\n\n([^\n]+)`)

func newMemoryModel(t *testing.T) *memoryModel {
	m := &memoryModel{t: t, n: map[string]int{}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.handle))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *memoryModel) client(model string) cairn.LLM {
	c := openai.New(m.srv.URL, model, "")
	c.Retries = 0
	return c
}

func (m *memoryModel) handle(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string
		Logprobs       bool
		Messages       []struct{ Role, Content string }
		ResponseFormat *struct {
			JSONSchema struct{ Name string } `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
		m.t.Errorf("request %+v: %v", req, err)
	}
	sys, prompt := req.Messages[0].Content, req.Messages[1].Content
	schema := ""
	if req.ResponseFormat != nil {
		schema = req.ResponseFormat.JSONSchema.Name
	}
	kind, reply := m.answer(req.Model, schema, req.Logprobs, sys, prompt)
	m.mu.Lock()
	m.n[kind]++
	m.mu.Unlock()
	out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply}}},
		"usage": map[string]int{"prompt_tokens": len(prompt) / 4, "completion_tokens": len(reply) / 4}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

func (m *memoryModel) answer(model, schema string, logprobs bool, sys, prompt string) (kind, reply string) {
	check := func(want string, ok bool) {
		if !ok {
			m.t.Errorf("%s request to model %s: %s", schema, model, want)
		}
	}
	switch {
	case schema == "cairn_window":
		check("the consolidation model", model == "consolidate-model")
		check("the conversation's records in the window", strings.Contains(prompt, "=== Record 1 ") && strings.Contains(prompt, "## User — "))
		return "window", `{"segment_summary":"A chat.","episodes":[],"items":[]}`
	case schema == "cairn_observations":
		check("the consolidation model", model == "consolidate-model")
		var obs []map[string]any
		for _, r := range recordText.FindAllStringSubmatch(prompt, -1) {
			var n int
			fmt.Sscan(r[1], &n)
			obs = append(obs, map[string]any{"text": r[2] + ": " + r[3], "about": r[2], "event_date": "", "start_date": "", "end_date": "",
				"phase": "done", "requests": []int{n}, "concepts": []string{}, "cues": []string{}})
		}
		check("records to observe", len(obs) > 0)
		b, _ := json.Marshal(map[string]any{"observations": obs})
		return "observations", string(b)
	case schema == "cairn_gather":
		check("the fast model", model == "fast-model")
		check("the question in the part", strings.Contains(prompt, "What did Melanie paint?") || strings.Contains(prompt, "When did Caroline go"))
		return "gather", `{"keep":[1],"searches":[]}`
	case strings.HasPrefix(sys, "You answer a question about a person's past conversations"):
		check("the fast model", model == "fast-model")
		check("numbered memories with dates", strings.Contains(prompt, "Memories:\n[1] (happened "))
		if strings.Contains(prompt, "Question: What did Melanie paint?") && strings.Contains(prompt, "I painted a sunrise") {
			return "answer", "a sunrise"
		}
		return "answer", "unknown"
	case strings.Contains(sys, "You are a judge inside Cairn"):
		check("the judge model", model == "judge-model")
		if logprobs {
			return "judge-logprobs", "correct: yes" // no log-probabilities given: the judge asks for a structured answer
		}
		check("the structured judgment", schema == "judgment" && strings.Contains(prompt, `"gold"`))
		if strings.Contains(prompt, `"generated":"a sunrise"`) && strings.Contains(prompt, `"gold":"a sunrise"`) {
			return "judge", `{"correct":0.95}`
		}
		return "judge", `{"correct":0.05}`
	}
	m.t.Errorf("unexpected request: schema %q, system %.80q", schema, sys)
	return "other", "{}"
}

// TestLocomoMemoryMode runs the memory mode end to end: the tiny sample
// is consolidated through the fake endpoint, its questions scored by the
// turns the memory hits' provenance names, gathered, answered and judged.
func TestLocomoMemoryMode(t *testing.T) {
	m := newMemoryModel(t)
	file := writeTinyLocomo(t)
	rep, err := LocomoMemory(context.Background(), LocomoOptions{Data: file, Dir: t.TempDir()},
		MemoryOptions{Consolidate: m.client("consolidate-model"), Fast: m.client("fast-model"), Judge: judge.New(m.client("judge-model"), "judge-model")})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "memory-lexical" || rep.Questions != 2 || rep.Skipped != 1 || rep.Unresolved != 1 {
		t.Fatalf("report %+v", rep.Report)
	}
	st := rep.Memory
	if st.Conversations != 1 || st.Memories[cairn.MemoryObservation] != 4 || st.TokensIn == 0 {
		t.Errorf("memory stats %+v, want the sample's 4 turns as 4 observations", st)
	}
	// Evidence through provenance: each question's observation is its
	// evidence turn, found first.
	if rep.Metrics["turn_recall@1"] != 100 || rep.Metrics["mrr"] != 100 {
		t.Errorf("metrics %v, want each evidence turn first", rep.Metrics)
	}
	if st.Gather == nil || st.Gather.Questions != 2 || st.Gather.Calls != 2 || st.Gather.TokensIn == 0 || st.Gather.Unjudged != 0 {
		t.Errorf("gather stats %+v, want one part read per question", st.Gather)
	}
	if rep.QA == nil || rep.QA.Answered != 2 || rep.QA.Correct != 1 || rep.Metrics["j_score"] != 50 {
		t.Errorf("qa %+v metrics %v, want the painting question right and the date one wrong", rep.QA, rep.Metrics)
	}
	want := map[string]int{"window": 2, "observations": 2, "gather": 2, "answer": 2, "judge-logprobs": 1, "judge": 2}
	for k, v := range want {
		if m.n[k] != v {
			t.Errorf("%d %s requests, want %d (all: %v)", m.n[k], k, v, m.n)
		}
	}
}

// TestMemoryModeNeedsModels: no consolidation model, or answers without
// the fast model, is a clear error before anything runs.
func TestMemoryModeNeedsModels(t *testing.T) {
	file := writeTinyLocomo(t)
	m := newMemoryModel(t)
	for _, o := range []MemoryOptions{{}, {Consolidate: m.client("consolidate-model"), Judge: judge.New(m.client("judge-model"), "j")}} {
		if _, err := LocomoMemory(context.Background(), LocomoOptions{Data: file, Dir: t.TempDir()}, o); err == nil || !strings.Contains(err.Error(), "configure [llm.") {
			t.Errorf("options %+v: error %v, want one naming the missing model", o, err)
		}
	}
	if len(m.n) != 0 {
		t.Errorf("requests were made: %v", m.n)
	}
}

// TestLongMemEvalMemoryMode: a haystack of two sessions consolidated, the
// answer session found through the provenance of its observation.
func TestLongMemEvalMemoryMode(t *testing.T) {
	m := newMemoryModel(t)
	data, _ := json.Marshal([]map[string]any{{
		"question_id": "q1", "question_type": "single-session-user", "question": "What did Melanie paint?", "answer": "a sunrise",
		"haystack_session_ids": []string{"s-a", "s-b"}, "haystack_dates": []string{"2023/05/08 (Mon) 13:56", "2023/05/20 (Sat) 10:00"},
		"haystack_sessions": [][]map[string]any{
			{{"role": "user", "content": "Caroline here: the support group was great."}, {"role": "assistant", "content": "Glad to hear it."}},
			{{"role": "user", "content": "Caroline again: Melanie painted a sunrise over the lake.", "has_answer": true}, {"role": "assistant", "content": "Lovely."}},
		},
		"answer_session_ids": []string{"s-b"},
	}})
	file := t.TempDir() + "/lme.json"
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := LongMemEvalMemory(context.Background(), LongMemEvalOptions{Data: file, Dir: t.TempDir()},
		MemoryOptions{Consolidate: m.client("consolidate-model")})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 1 || rep.Metrics["session_recall_any@1"] != 100 || rep.Metrics["turn_recall_any@1"] != 100 || rep.Memory.Gather != nil {
		t.Errorf("report %+v memory %+v", rep.Metrics, rep.Memory)
	}
}
