package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/llm/openai"
)

// fakeConsolidator answers chat completions as a consolidation model
// would: each main window keeps an episode about the lantern (dated the
// day it was told) and each observation window two dated observations, one on
// 2023-06-10 and one in 2024-02. It counts the requests it answered.
func fakeConsolidator(t testing.TB) (*httptest.Server, *atomic.Int64) {
	rec := regexp.MustCompile(`=== Record (\d+)`)
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		n := 1
		if m := rec.FindStringSubmatch(string(body)); m != nil {
			fmt.Sscan(m[1], &n)
		}
		answer := fmt.Sprintf(`{"segment_summary":"A chat about the lantern recipe.","episodes":[{"request":%d,"outcome":"success","keep":true,
"title":"Lantern recipe converted to metric units","summary":"The person asked for the lantern recipe in metric units and got it.","cues":["lantern recipe units"],"concepts":["lantern"]}],"items":[]}`, n)
		if strings.Contains(string(body), "cairn_observations") {
			answer = fmt.Sprintf(`{"observations":[
{"text":"Dana's team held the lantern review on 10 June 2023 and approved the plan to write every recipe in metric units.","about":"Dana","event_date":"2023-06-10","start_date":"","end_date":"","phase":"done","requests":[%d],"concepts":["lantern review"],"cues":["when was the lantern review"]},
{"text":"Dana plans a lantern workshop in February 2024 to teach the whole team the new metric recipe format.","about":"Dana","event_date":"2024-02","start_date":"","end_date":"","phase":"plan","requests":[%d],"concepts":["lantern workshop"],"cues":["lantern workshop date"]}]}`, n, n)
		}
		out, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestSearchMemoriesTool consolidates the fixture sessions through the
// engine with the fake model, then searches the memories corpus over the
// in-process MCP client: an event-time range keeps only the memories in
// it, each hit with its memory's fields.
func TestSearchMemoriesTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	srv, calls := fakeConsolidator(t)
	ctx := context.Background()
	res, err := f.eng.Consolidate(ctx, openai.New(srv.URL+"/v1", "test", ""), &cairn.ConsolidateOptions{},
		&engine.ConsolidateOptions{Tune: func(w *consolidate.Worker) { w.IdleAfter = 0 }})
	if err != nil || res.Status != cairn.ConsolidateCompleted || res.Observations == 0 || res.Episodes == 0 {
		t.Fatalf("consolidate: %+v %v (%d model calls)", res, err, calls.Load())
	}
	cs := connect(t, f.agent)

	var all SearchOut
	text := callOK(t, cs, ToolSearch, map[string]any{"query": "lantern", "corpora": []string{"memories"}, "minScore": 0, "maxResults": 200}, &all)
	dates, kinds := map[string]int{}, map[string]int{}
	for _, h := range all.Results {
		if h.Corpus != cairn.MemoriesCorpus || h.Memory == nil || h.Memory.ID == "" || h.Memory.ToldAt == "" || len(h.Memory.Sources) == 0 {
			t.Fatalf("memory hit without its fields: %s", text)
		}
		dates[h.Memory.EventDate]++
		kinds[h.Memory.Kind]++
	}
	if dates["2023-06-10"] == 0 || dates["2024-02"] == 0 || kinds[cairn.MemoryEpisode] == 0 {
		t.Fatalf("lantern memories: event dates %v, kinds %v; want 2023-06-10, 2024-02 and episodes; %s", dates, kinds, text)
	}

	var june SearchOut
	text = callOK(t, cs, ToolSearch, map[string]any{"query": "lantern", "corpora": []string{"memories"}, "minScore": 0, "maxResults": 200,
		"memoryFilter": map[string]any{"from": "2023-06", "to": "2023-06"}}, &june)
	if len(june.Results) != dates["2023-06-10"] {
		t.Errorf("%d hits in June 2023, want %d: %s", len(june.Results), dates["2023-06-10"], text)
	}
	for _, h := range june.Results {
		if h.Memory == nil || h.Memory.EventDate != "2023-06-10" || h.Memory.Kind != cairn.MemoryObservation || h.Memory.Status != cairn.StatusActive {
			t.Errorf("hit outside June 2023: %+v", h.Memory)
		}
	}
	var episodes SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "lantern", "corpora": []string{"memories"}, "minScore": 0, "maxResults": 200,
		"memoryFilter": map[string]any{"kinds": []string{"episode"}}}, &episodes)
	if len(episodes.Results) != kinds[cairn.MemoryEpisode] {
		t.Errorf("%d episodes, want %d", len(episodes.Results), kinds[cairn.MemoryEpisode])
	}

	// Every corpus by default: the memories corpus is among them.
	var def SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "lantern review", "minScore": 0}, &def)
	if len(def.Results) == 0 || def.Results[0].Corpus != cairn.MemoriesCorpus {
		t.Errorf("default corpora do not find the memory: %+v", def.Results)
	}

	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "lantern", "memoryFilter": map[string]any{"kinds": []string{"gossip"}}}, "memoryFilter.kinds[0]"},
		{map[string]any{"query": "lantern", "memoryFilter": map[string]any{"from": "June 2023"}}, "memoryFilter.from"},
		{map[string]any{"query": "lantern", "memoryFilter": map[string]any{"toldFrom": "yesterday"}}, "memoryFilter.toldFrom"},
		{map[string]any{"query": "lantern", "maxResults": 50}, "maxResults 50 out of range: allowed 1 to 20"},
		{map[string]any{"query": "lantern", "corpora": []string{"memories", "notes"}, "maxResults": 50}, "maxResults 50"},
	} {
		text, isErr := call(t, cs, ToolSearch, tt.args)
		if !isErr || !strings.Contains(text, tt.want) {
			t.Errorf("%v: %s (error %v), want an error with %q", tt.args, text, isErr, tt.want)
		}
	}

	var diag DiagnosticsOut
	text = callOK(t, cs, ToolDiagnostics, map[string]any{}, &diag)
	m := diag.Index.Memories
	if m == nil || m.Total != len(all.Results) || m.ByKind[cairn.MemoryObservation] == 0 || m.ByStatus[cairn.StatusActive] != m.Total {
		t.Errorf("diagnostics memories: %s", text)
	}
}
