package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIConsolidateItemWithoutSource: an item whose requests name no
// record of its window is dropped, and consolidate --json counts it under
// dropped.item_no_source beside the fixed keys. Before, it was stored and
// credited to every record of the window.
func TestCLIConsolidateItemWithoutSource(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := `{"observations":[]}`
		if body, _ := io.ReadAll(r.Body); !strings.Contains(string(body), "cairn_observations") {
			answer = `{"segment_summary":"A chat about units.","episodes":[],"items":[{"kind":"preference","title":"Prefers metric units","summary":"The person wants metric units.","body":"Use grams.","applies_when":"When giving quantities.","scope":"person","requests":[99],"confidence":"stated","importance":3,"contested":false,"ambiguous":false,"cues":["which units"],"concepts":["metric"]}]}`
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	defer srv.Close()
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	appendConfig(t, c, fmt.Sprintf("\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", srv.URL+"/v1"))
	out := c.ok("consolidate", "--idle", "0", "--json")
	wantKeys(t, "consolidate", json.RawMessage(out), "threads", "windows", "episodes", "items", "observations", "dropped", "pending",
		"status", "held", "replaced", "invalid_answers", "failed")
	var res struct {
		Items, Threads int
		Dropped        map[string]int
	}
	json.Unmarshal([]byte(out), &res)
	if res.Threads == 0 || res.Items != 0 || res.Dropped["item_no_source"] != res.Threads {
		t.Fatalf("consolidate = %s, want the item of every main window (one a thread) dropped as item_no_source", out)
	}
}
