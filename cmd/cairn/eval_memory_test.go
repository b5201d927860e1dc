package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestCLIEvalMemory runs cairn eval locomo --memory --qa against a fake
// OpenAI-compatible endpoint serving [llm.consolidate] and [llm.fast]
// (the judge falls back to [llm.fast]); without [llm.consolidate] the
// mode is refused with the table to add.
func TestCLIEvalMemory(t *testing.T) {
	rec := regexp.MustCompile(`(?m)^=== Record (\d+) [^\n]*===\n## User — (\w+) — [^\n]*\n\n([^\n]+)`)
	var mu sync.Mutex
	models := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model          string
			Messages       []struct{ Content string }
			ResponseFormat *struct {
				JSONSchema struct{ Name string } `json:"json_schema"`
			} `json:"response_format"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		models[req.Model]++
		mu.Unlock()
		schema := ""
		if req.ResponseFormat != nil {
			schema = req.ResponseFormat.JSONSchema.Name
		}
		prompt := req.Messages[len(req.Messages)-1].Content
		reply := "unknown"
		switch schema {
		case "cairn_window":
			reply = `{"segment_summary":"","episodes":[],"items":[]}`
		case "cairn_observations":
			var obs []string
			for _, m := range rec.FindAllStringSubmatch(prompt, -1) {
				obs = append(obs, fmt.Sprintf(`{"text":%q,"about":%q,"event_date":"","start_date":"","end_date":"","phase":"done","requests":[%s],"concepts":[],"cues":[]}`,
					m[2]+": "+m[3], m[2], m[1]))
			}
			reply = `{"observations":[` + strings.Join(obs, ",") + `]}`
		case "cairn_gather":
			reply = `{"keep":[1],"searches":[]}`
		case "judgment":
			reply = `{"correct":0.9}`
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	defer srv.Close()
	data, _ := json.Marshal([]map[string]any{{"sample_id": "conv-t", "conversation": map[string]any{
		"session_1_date_time": "1:56 pm on 8 May, 2023",
		"session_1": []map[string]string{{"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to the LGBTQ support group yesterday."},
			{"speaker": "Melanie", "dia_id": "D1:2", "text": "I painted a sunrise over the lake last week."}}},
		"qa": []map[string]any{{"question": "What did Melanie paint?", "evidence": []string{"D1:2"}, "category": 4, "answer": "a sunrise"}}}})
	file := filepath.Join(t.TempDir(), "locomo.json")
	os.WriteFile(file, data, 0o644)

	c := newCLI(t)
	c.ok("init")
	if _, stderr, code := c.run("eval", "locomo", "--data", file, "--memory"); code != 2 || !strings.Contains(stderr, "[llm.consolidate]") {
		t.Errorf("--memory without [llm.consolidate]: exit %d, stderr %q", code, stderr)
	}
	appendConfig(t, c, fmt.Sprintf("\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"cons\"\n\n[llm.fast]\napi = \"openai\"\nbase_url = %q\nmodel = \"fast\"\n",
		srv.URL+"/v1", srv.URL+"/v1"))
	out := c.ok("eval", "locomo", "--data", file, "--memory", "--qa", "--json")
	var rep struct {
		Mode      string
		Questions int
		Metrics   map[string]float64
		QA        struct{ Answered, Correct int }
		Memory    struct {
			Conversations int
			Memories      map[string]int
			Gather        struct{ Questions, Calls int }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Mode != "memory-lexical" || rep.Questions != 1 || rep.Metrics["turn_recall@1"] != 100 || rep.QA.Answered != 1 ||
		rep.Memory.Conversations != 1 || rep.Memory.Memories["observation"] != 2 || rep.Memory.Gather.Calls != 1 {
		t.Errorf("eval locomo --memory --qa = %s", out)
	}
	if models["cons"] == 0 || models["fast"] == 0 {
		t.Errorf("requests by model %v: want the consolidation and the fast model", models)
	}
	text, stderr, code := c.run("eval", "locomo", "--data", file, "--memory")
	if code != 0 || !strings.Contains(text, "memory mode: 1 conversations consolidated") || !strings.Contains(text, "turn_recall@1") ||
		!strings.Contains(stderr, "cairn: consolidated locomo:conv-t: 2 windows, 0 episodes, 0 items, 2 observations") {
		t.Errorf("text report: exit %d, stdout %q, stderr %q", code, text, stderr)
	}
	if _, stderr, code := c.run("eval", "longmemeval", "--data", file, "--qa"); code != 2 || !strings.Contains(stderr, "--qa needs --memory") {
		t.Errorf("longmemeval --qa without --memory: exit %d, stderr %q", code, stderr)
	}
}
