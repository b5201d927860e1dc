package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/explore"
	"github.com/cairnmemory/cairn/gather"
	"github.com/cairnmemory/cairn/llm/openai"
)

// recallFixture holds four remembered memories: two signing facts sharing
// the concept cosign, a vault fact sharing keys with the second, a garden
// fact apart.
func recallFixture(t *testing.T) (*fixture, map[string]string) {
	f := newFixture(t, fixtureOpts{sessions: true})
	ids := map[string]string{}
	for _, r := range []cairn.RememberRequest{
		{Kind: "fact", Title: "Release signing", Summary: "Release artifacts are signed with cosign.", Concepts: []string{"cosign", "release"}},
		{Kind: "procedure", Title: "Rotate the cosign key", Summary: "Generate a new key pair and upload it to the vault.", Concepts: []string{"cosign", "keys"}},
		{Kind: "fact", Title: "Vault holds secrets", Summary: "The team vault stores the deploy keys.", Concepts: []string{"vault", "keys"}},
		{Kind: "fact", Title: "Garden compost", Summary: "The tomatoes need compost in spring.", Concepts: []string{"garden"}},
	} {
		r.Agent = "test"
		res, err := f.eng.Remember(context.Background(), &r)
		if err != nil {
			t.Fatal(err)
		}
		ids[r.Title] = res.Memory.ID
	}
	return f, ids
}

// keepAllModel is an OpenAI-compatible fake fast model that keeps every
// candidate of a part and counts the parts it read.
func keepAllModel(t *testing.T, calls *atomic.Int32) cairn.LLM {
	n := regexp.MustCompile(`(?m)^\[(\d+)\] `)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		keep := []int{}
		for i := range n.FindAllString(req.Messages[len(req.Messages)-1].Content, -1) {
			keep = append(keep, i+1)
		}
		ans, _ := json.Marshal(map[string]any{"keep": keep, "searches": []string{}})
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": string(ans)}}}, "usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 5}})
	}))
	t.Cleanup(srv.Close)
	c := openai.New(srv.URL, "fast-test", "")
	c.Retries = 0
	return c
}

func TestGatherTool(t *testing.T) {
	f, ids := recallFixture(t)
	cs := connect(t, f.agent)
	var none gather.Result
	callOK(t, cs, ToolGather, map[string]any{"question": "How is release signing done?"}, &none)
	if none.Judged || none.Reason == "" || len(none.Memories) == 0 || none.Memories[0].ID != ids["Release signing"] {
		t.Fatalf("without a fast model: %+v", none)
	}
	var calls atomic.Int32
	f.agent.FastModel = keepAllModel(t, &calls)
	var judged gather.Result
	callOK(t, cs, ToolGather, map[string]any{"question": "How is release signing done?", "memoryFilter": map[string]any{"kinds": []string{"fact"}}}, &judged)
	if !judged.Judged || judged.Kept != len(judged.Memories) || calls.Load() == 0 {
		t.Fatalf("with a fast model: %+v, %d calls", judged, calls.Load())
	}
	for _, m := range judged.Memories {
		if m.Kind != "fact" {
			t.Fatalf("kinds [fact] gathered a %s", m.Kind)
		}
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"question": " "}, "question is blank"},
		{map[string]any{"question": "x", "from": "June"}, `from "June": allowed`},
		{map[string]any{"question": "x", "memoryFilter": map[string]any{"kinds": []string{"gossip"}}}, "memoryFilter.kinds[0]"},
	} {
		if text, isErr := call(t, cs, ToolGather, c.args); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: %v %s, want an error with %q", c.args, isErr, text, c.want)
		}
	}
}

func TestExploreTool(t *testing.T) {
	f, ids := recallFixture(t)
	cs := connect(t, f.agent)
	var res ExploreOut
	callOK(t, cs, ToolExplore, map[string]any{"topic": "release signing"}, &res)
	if len(res.Found) != 1 || res.Found[0].ID != ids["Release signing"] || res.Found[0].Origin != "search" || len(res.Related) == 0 {
		t.Fatalf("explore: %+v", res)
	}
	r := res.Related[0]
	if r.ID != ids["Rotate the cosign key"] || r.Title != "Rotate the cosign key" || r.Kind != "procedure" || r.Path != "cairn://memories/procedure/"+r.ID+".md" {
		t.Fatalf("related %+v", r)
	}
	if p := r.Via; len(p) != 1 || p[0].Via != explore.ViaConcept || p[0].Concept != "cosign" {
		t.Fatalf("via %+v", p)
	}
	var byID ExploreOut
	callOK(t, cs, ToolExplore, map[string]any{"ids": []string{ids["Garden compost"]}, "maxResults": 5}, &byID)
	if len(byID.Found) != 1 || len(byID.Related) != 0 {
		t.Fatalf("by id: %+v", byID)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "topic and ids are blank"},
		{map[string]any{"topic": "x", "maxResults": 500}, "maxResults 500 out of range: allowed 1 to 200"},
	} {
		if text, isErr := call(t, cs, ToolExplore, c.args); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: %v %s, want an error with %q", c.args, isErr, text, c.want)
		}
	}
}

func TestRecallHTTP(t *testing.T) {
	f, ids := recallFixture(t)
	srv := serve(t, HTTPOptions{Agents: []*Agent{f.agent}})
	tests := []struct {
		path, body string
		status     int
		want       string
	}{
		{"/v1/gather", `{"question":"How is release signing done?"}`, 200, `"id":"` + ids["Release signing"] + `"`},
		{"/v1/gather", `{"question":"x","to":"2023-13"}`, 400, `to \"2023-13\": allowed`},
		{"/v1/explore", `{"topic":"release signing"}`, 200, `"concept":"cosign"`},
		{"/v1/explore", `{"topic":"x","limit":3}`, 400, `unknown field \"limit\"`},
	}
	for _, tt := range tests {
		status, body := do(t, srv, request{"POST", tt.path, tt.body, nil})
		if status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s %s: %d %s, want %d with %s", tt.path, tt.body, status, trunc(body), tt.status, tt.want)
		}
	}
}

// TestExploreToolHint: before the first memory, memory_explore answers
// with no memories and the hint the engine gives (what to do), not an
// error; the engine's result carried the hint, the tool dropped it.
func TestExploreToolHint(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	cs := connect(t, f.agent)
	var res ExploreOut
	callOK(t, cs, ToolExplore, map[string]any{"topic": "museums"}, &res)
	if len(res.Found) != 0 || len(res.Related) != 0 || res.Hint != engine.NoMemories {
		t.Fatalf("explore before the first memory: %+v; want no memories and the hint %q", res, engine.NoMemories)
	}
}
