package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/openai"
)

// fastModel is an httptest fake of an OpenAI-compatible fast model for
// gather: it checks each request (model, budget, schema, numbering) and
// keeps the candidates whose title holds "museum", proposing one further
// search ("gallery") in the first round.
type fastModel struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	parts [][]string // each request's candidate titles
	down  bool       // answer 503
}

var gatherItem = regexp.MustCompile(`(?m)^\[(\d+)\] [a-z]+ · happened .+ · told .+\n(.+)$`)

func newFastModel(t *testing.T) *fastModel {
	m := &fastModel{t: t}
	m.srv = httptest.NewServer(http.HandlerFunc(m.handle))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fastModel) client() cairn.LLM {
	c := openai.New(m.srv.URL, "fast-test", "")
	c.Retries = 0
	return c
}

func (m *fastModel) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Role, Content string
		} `json:"messages"`
		ResponseFormat struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Model != "fast-test" || len(req.Messages) != 2 || req.ResponseFormat.Type != "json_schema" {
		m.t.Errorf("request %s: %v", body, err)
	}
	m.mu.Lock()
	down := m.down
	m.mu.Unlock()
	if down {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"down"}}`)
		return
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	var titles []string
	keep := []int{}
	for i, mt := range gatherItem.FindAllStringSubmatch(prompt, -1) {
		if mt[1] != fmt.Sprint(i+1) {
			m.t.Errorf("candidate numbered %s, want %d", mt[1], i+1)
		}
		titles = append(titles, mt[2])
		if strings.Contains(strings.ToLower(mt[2]), "museum") || strings.Contains(strings.ToLower(mt[2]), "gallery") {
			keep = append(keep, i+1)
		}
	}
	if n := len(titles); req.MaxTokens != 40*n+600 {
		m.t.Errorf("max_tokens %d for %d candidates, want %d", req.MaxTokens, n, 40*n+600)
	}
	searches := []string{"gallery"}
	if strings.Contains(prompt, "come from further searches") {
		searches = []string{}
	}
	m.mu.Lock()
	m.parts = append(m.parts, titles)
	m.mu.Unlock()
	ans, _ := json.Marshal(map[string]any{"keep": keep, "searches": searches})
	resp, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(ans)}}},
		"usage":   map[string]int{"prompt_tokens": len(prompt) / 4, "completion_tokens": len(ans) / 4},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

// rememberAll stores memories through Remember, returning their ids by
// summary.
func rememberAll(t *testing.T, e *Engine, reqs ...cairn.RememberRequest) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for i := range reqs {
		if reqs[i].Agent == "" {
			reqs[i].Agent = "cli"
		}
		res, err := e.Remember(context.Background(), &reqs[i])
		if err != nil {
			t.Fatalf("remember %q: %v", reqs[i].Summary, err)
		}
		ids[reqs[i].Summary] = res.Memory.ID
	}
	return ids
}

func museumMemories() []cairn.RememberRequest {
	return []cairn.RememberRequest{
		{Kind: "observation", About: "Maya", Summary: "Maya visited the Louvre museum.", EventDate: "2023-06-03"},
		{Kind: "observation", About: "Maya", Summary: "Maya visited the Orsay museum with Ben.", EventDate: "2023-06-10"},
		{Kind: "observation", About: "Maya", Summary: "Maya visited her aunt in Lyon.", EventDate: "2023-05-20"},
		{Kind: "observation", About: "Ben", Summary: "Ben booked the Uffizi gallery tour for Florence.", EventDate: "2023-07-01"},
		{Kind: "preference", Title: "Maya likes quiet museums", Summary: "Maya prefers visiting museums on weekday mornings."},
		{Kind: "fact", Title: "Maya's museum pass", Summary: "Maya has a yearly pass for the city's museums."},
	}
}

// TestGatherWiring: Engine.Gather searches the memories through the
// engine (wide search of observations and other memories), has the fast
// model read them, runs the further search it proposes and has the new
// candidate read; kept first.
func TestGatherWiring(t *testing.T) {
	f := rememberFixture(t, nil)
	ids := rememberAll(t, f.eng, museumMemories()...)
	m := newFastModel(t)
	res, err := f.eng.Gather(context.Background(), "How many museums did Maya visit?", &GatherOptions{Model: m.client()})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Judged || len(res.Searches) != 1 || res.Searches[0] != "gallery" {
		t.Fatalf("judged %v, searches %v (%s)", res.Judged, res.Searches, res.Reason)
	}
	var kept, order []string
	round := map[string]int{}
	for _, g := range res.Memories {
		order = append(order, g.ID)
		round[g.ID] = g.Round
		if g.Kept {
			kept = append(kept, g.ID)
		}
	}
	uffizi := ids["Ben booked the Uffizi gallery tour for Florence."]
	if round[uffizi] != 2 {
		t.Errorf("the gallery memory came in round %d, want 2 (only the further search finds it): %v", round[uffizi], round)
	}
	for _, s := range []string{"Maya visited the Louvre museum.", "Maya visited the Orsay museum with Ben.", "Maya prefers visiting museums on weekday mornings."} {
		if !slices.Contains(kept, ids[s]) {
			t.Errorf("%q not kept: kept %v", s, kept)
		}
	}
	if slices.Contains(kept, ids["Maya visited her aunt in Lyon."]) {
		t.Errorf("the aunt's visit was kept")
	}
	if len(kept) == 0 || !slices.Equal(order[:len(kept)], kept) {
		t.Errorf("kept %v are not first in %v", kept, order)
	}
	if len(m.parts) != 2 || len(m.parts[1]) != 1 {
		t.Errorf("model read parts %v, want the wide search's then the further search's one new candidate", m.parts)
	}

	// Kinds: the wide search asks for observations and the rest apart;
	// the caller's kinds narrow both.
	only, err := f.eng.Gather(context.Background(), "How many museums did Maya visit?", &GatherOptions{Filter: &cairn.MemorySearch{Kinds: []string{"fact"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Memories) != 1 || only.Memories[0].ID != ids["Maya has a yearly pass for the city's museums."] || only.Judged {
		t.Errorf("kinds [fact]: %+v", only.Memories)
	}
}

// TestGatherUnjudged: no fast model, or one that is down, gives the ranked
// list marked unjudged, not an error.
func TestGatherUnjudged(t *testing.T) {
	f := rememberFixture(t, nil)
	rememberAll(t, f.eng, museumMemories()...)
	none, err := f.eng.Gather(context.Background(), "How many museums did Maya visit?", nil)
	if err != nil || none.Judged || none.Reason == "" || len(none.Memories) == 0 {
		t.Fatalf("no model: %+v, %v", none, err)
	}
	m := newFastModel(t)
	m.down = true
	down, err := f.eng.Gather(context.Background(), "How many museums did Maya visit?", &GatherOptions{Model: m.client()})
	if err != nil || down.Judged || len(down.Memories) != len(none.Memories) {
		t.Fatalf("model down: %+v, %v", down, err)
	}
	for i, g := range down.Memories {
		if g.Kept || g.Read || g.Rank != i+1 || g.ID != none.Memories[i].ID {
			t.Fatalf("unjudged %d: %s rank %d kept %v read %v; want the ranked list", i, g.ID, g.Rank, g.Kept, g.Read)
		}
	}
	if len(m.parts) != 0 {
		t.Fatalf("the model down still recorded parts %v", m.parts)
	}
	// A dated question searches that time first.
	dated, err := f.eng.Gather(context.Background(), "Which museums did Maya visit in June 2023?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if dated.From != "2023-06" || len(dated.Memories) < 2 || !strings.Contains(dated.Memories[0].Text, "museum") || dated.Memories[0].EventDate[:7] != "2023-06" {
		t.Fatalf("dated: from %q to %q, first %+v", dated.From, dated.To, dated.Memories)
	}
}
