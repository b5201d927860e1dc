package gather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/openai"
	"github.com/cairnmemory/cairn/redact/redacttest"
)

// store is a fake Searcher over fixed candidates: the wide searches
// return the observations or the other memories; a further search
// returns the candidates (extra ones included) whose title holds its
// text; a dated search those whose event date starts with From. Every
// search is recorded.
type store struct {
	mu       sync.Mutex
	obs      []Candidate
	other    []Candidate
	extra    []Candidate // found by further searches only
	searches []Search
}

func (s *store) SearchMemories(_ context.Context, q Search) ([]Candidate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.searches = append(s.searches, q)
	var out []Candidate
	switch {
	case q.From != "":
		for _, c := range append(slices.Clone(s.obs), s.other...) {
			if strings.HasPrefix(c.EventDate, q.From) {
				out = append(out, c)
			}
		}
	case q.Kinds == KindsObservations:
		out = s.obs
	case q.Kinds == KindsOther:
		out = s.other
	default:
		for _, c := range slices.Concat(s.obs, s.other, s.extra) {
			if strings.Contains(c.Title, q.Text) {
				out = append(out, c)
			}
		}
	}
	return out[:min(len(out), q.Limit)], nil
}

// cands makes n candidates named prefix-i with descending scores.
func cands(prefix, kind string, n int, top float64) []Candidate {
	var out []Candidate
	for i := range n {
		out = append(out, Candidate{ID: fmt.Sprintf("%s-%03d", prefix, i), Kind: kind, Title: fmt.Sprintf("%s %d", prefix, i),
			Text: "text of " + prefix, Score: top - float64(i)/1000, ToldAt: time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)})
	}
	return out
}

// model is an httptest fake of an OpenAI-compatible endpoint that checks
// every request it receives and answers with decide.
type model struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	parts    [][]string // each request's candidate titles, in order
	bodies   []string   // each request's messages, decoded
	billed   int        // prompt tokens of the answers sent
	inFlight int
	most     int
	// decide answers a part (its titles); status, when not 200, fails it.
	decide func(titles []string) (keep []int, searches []string, status int)
	// intercept, when set, sees each request first and may answer it
	// itself (returning true).
	intercept func(body []byte, w http.ResponseWriter, r *http.Request) bool
}

func (m *model) setIntercept(f func(body []byte, w http.ResponseWriter, r *http.Request) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.intercept = f
}

var item = regexp.MustCompile(`(?m)^\[(\d+)\] [a-z]+ · happened .+ · told .+\n(.+)$`)

func newModel(t *testing.T, decide func([]string) ([]int, []string, int)) *model {
	m := &model{t: t, decide: decide}
	m.srv = httptest.NewServer(http.HandlerFunc(m.handle))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *model) client() cairn.LLM {
	c := openai.New(m.srv.URL, "fast-test", "")
	c.Retries = 0
	return c
}

func (m *model) handle(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.inFlight++
	m.most = max(m.most, m.inFlight)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.inFlight--
		m.mu.Unlock()
	}()
	time.Sleep(2 * time.Millisecond) // let parts overlap, so the bound is tested
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	intercept := m.intercept
	m.mu.Unlock()
	if intercept != nil && intercept(body, w, r) {
		return
	}
	var req struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Role, Content string
		} `json:"messages"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		m.t.Errorf("request body: %v", err)
	}
	if len(req.Messages) != 2 || req.Messages[0].Content != systemPrompt() {
		m.t.Errorf("messages: want the system prompt then the part, got %d messages", len(req.Messages))
		return
	}
	var titles []string
	for i, mt := range item.FindAllStringSubmatch(req.Messages[1].Content, -1) {
		if mt[1] != fmt.Sprint(i+1) {
			m.t.Errorf("candidate numbered %s, want %d", mt[1], i+1)
		}
		titles = append(titles, mt[2])
	}
	n := len(titles)
	if req.MaxTokens != 40*n+600 {
		m.t.Errorf("max_tokens %d for %d candidates, want %d", req.MaxTokens, n, 40*n+600)
	}
	if want := string(schemaFor(n)); req.ResponseFormat.Type != "json_schema" || string(req.ResponseFormat.JSONSchema.Schema) != want {
		m.t.Errorf("schema %s %s, want json_schema %s", req.ResponseFormat.Type, req.ResponseFormat.JSONSchema.Schema, want)
	}
	m.mu.Lock()
	m.parts = append(m.parts, titles)
	m.bodies = append(m.bodies, req.Messages[0].Content+"\n"+req.Messages[1].Content)
	m.mu.Unlock()
	keep, searches, status := m.decide(titles)
	if status != 0 && status != http.StatusOK {
		w.WriteHeader(status)
		io.WriteString(w, `{"error":{"message":"fake failure"}}`)
		return
	}
	if keep == nil {
		keep = []int{}
	}
	if searches == nil {
		searches = []string{}
	}
	ans, _ := json.Marshal(map[string]any{"keep": keep, "searches": searches})
	billed := len(req.Messages[0].Content+req.Messages[1].Content) / 4
	m.mu.Lock()
	m.billed += billed
	m.mu.Unlock()
	resp, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(ans)}}},
		"usage":   map[string]int{"prompt_tokens": billed, "completion_tokens": len(ans) / 4},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

// keepMarked keeps the candidates whose title holds "keep".
func keepMarked(titles []string) []int {
	keep := []int{}
	for i, t := range titles {
		if strings.Contains(t, "keep") {
			keep = append(keep, i+1)
		}
	}
	return keep
}

func sizes(parts [][]string) []int {
	var out []int
	for _, p := range parts {
		out = append(out, len(p))
	}
	return out
}

// TestGatherSteps: parts of 40 in rank order, the further searches run
// and only their new candidates read, kept first, nothing dropped.
func TestGatherSteps(t *testing.T) {
	st := &store{obs: cands("obs", "observation", 90, 0.9), other: cands("item", "fact", 50, 0.95)}
	st.obs[5].Title, st.obs[70].Title, st.other[3].Title = "obs keep a", "obs keep b", "item keep c"
	// Found only by the further search "trip" (30 of these 35, its limit).
	for i := range 35 {
		c := Candidate{ID: fmt.Sprintf("trip-%02d", i), Kind: "observation", Title: fmt.Sprintf("trip %d", i), Score: 0.1}
		if i == 7 {
			c.Title = "trip keep d"
		}
		st.extra = append(st.extra, c)
	}
	m := newModel(t, func(titles []string) ([]int, []string, int) {
		var s []string
		switch {
		case slices.Contains(titles, "item 0"): // part 1 of the wide search
			s = []string{"trip", "Trip ", "obs keep", "How many trips?", "x1", "x2"}
		case slices.Contains(titles, "item 40"): // part 2
			s = []string{"x3", "x4", "x5"}
		case strings.HasPrefix(titles[0], "trip"): // the further searches' part
			s = []string{"never run"}
		}
		return keepMarked(titles), s, 0
	})
	g := New(st, m.client())
	g.Wide = 60
	res, err := g.Gather(context.Background(), &Request{Question: "How many trips?"})
	if err != nil {
		t.Fatal(err)
	}
	// Wide: 60 observations and 50 other memories (all there are), merged
	// by score (every item scores above every observation): ranks 1 to
	// 50 are items, 51 to 110 observations 0 to 59. No time named: no
	// dated search.
	if len(st.searches) < 2 || st.searches[0].Kinds != KindsObservations || st.searches[1].Kinds != KindsOther ||
		st.searches[0].Limit != 60 || st.searches[0].From != "" {
		t.Fatalf("wide searches = %+v", st.searches[:min(2, len(st.searches))])
	}
	wantFollow := []string{"trip", "obs keep", "x1", "x2", "x3", "x4"}
	if !slices.Equal(res.Searches, wantFollow) {
		t.Fatalf("further searches %q, want %q (repeats, the question and those past 6 dropped)", res.Searches, wantFollow)
	}
	if len(st.searches) != 2+6 {
		t.Fatalf("%d searches, want 2 wide and 6 further", len(st.searches))
	}
	for _, s := range st.searches[2:] {
		if s.Limit != 30 || s.Kinds != KindsAll {
			t.Fatalf("further search %+v: want 30 results of every kind", s)
		}
	}
	// Round 1: 110 in parts of 40, 40, 30 (read in parallel, in any
	// order). Round 2: "trip" brings 30 new, "obs keep" one (observation
	// 70; observation 5 was read), x1 to x4 nothing: one part of 31.
	got := sizes(m.parts)
	if len(got) != 4 || !slices.Equal(slices.Sorted(slices.Values(got[:3])), []int{30, 40, 40}) || got[3] != 31 {
		t.Fatalf("part sizes %v, want 40, 40, 30 in some order, then 31", got)
	}
	if !slices.Contains(m.parts[3], "obs keep b") || !slices.Contains(m.parts[3], "trip 29") || slices.Contains(m.parts[3], "obs keep a") {
		t.Fatalf("round 2 read %q: only the new candidates", m.parts[3])
	}
	if m.most > DefaultParallel {
		t.Fatalf("%d calls in flight, bound %d", m.most, DefaultParallel)
	}
	if !res.Judged || res.Kept != 4 || res.Stats.Candidates != 141 || len(res.Memories) != 141 {
		t.Fatalf("judged %v kept %d candidates %d memories %d, want true 4 141 141", res.Judged, res.Kept, res.Stats.Candidates, len(res.Memories))
	}
	var kept []string
	for i, mm := range res.Memories {
		if mm.Kept != (i < 4) {
			t.Fatalf("memory %d (%s) kept=%v: the kept set comes first", i, mm.Title, mm.Kept)
		}
		if mm.Kept {
			kept = append(kept, fmt.Sprintf("%s@%d/%d", mm.Title, mm.Rank, mm.Round))
		}
		if i > 0 && mm.Kept == res.Memories[i-1].Kept && mm.Rank < res.Memories[i-1].Rank {
			t.Fatalf("memory %d out of rank order", i)
		}
	}
	if want := []string{"item keep c@4/1", "obs keep a@56/1", "trip keep d@118/2", "obs keep b@141/2"}; !slices.Equal(kept, want) {
		t.Fatalf("kept %q, want %q", kept, want)
	}
	if res.Stats.Calls != 4 || res.Stats.Parts != 4 || res.Stats.Unanswered != 0 || res.Stats.Proposed != 10 {
		t.Fatalf("stats %+v", res.Stats)
	}
}

// TestFailedPartKeepsAll: a part the model did not answer (a server
// error, an answer off the schema) keeps all its candidates.
func TestFailedPartKeepsAll(t *testing.T) {
	st := &store{obs: cands("obs", "observation", 100, 0.9), other: cands("item", "fact", 0, 0)}
	m := newModel(t, func(titles []string) ([]int, []string, int) {
		switch titles[0] {
		case "obs 40":
			return nil, nil, http.StatusInternalServerError
		case "obs 80":
			return []int{21}, nil, 0 // the part has 20: 21 violates the schema
		}
		return []int{1}, nil, 0
	})
	res, err := New(st, m.client()).Gather(context.Background(), &Request{Question: "list them"})
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(sizes(m.parts))); !slices.Equal(got, []int{20, 40, 40}) {
		t.Fatalf("parts %v, want 40, 40 and 20 in some order", got)
	}
	if !res.Judged || res.Kept != 1+40+20 || len(res.Memories) != 100 || res.Stats.Unanswered != 2 || res.Stats.InvalidAnswers != 1 {
		t.Fatalf("judged %v kept %d of %d, stats %+v", res.Judged, res.Kept, len(res.Memories), res.Stats)
	}
	if res.Stats.TokensIn != m.billed { // the answer off the schema was billed too
		t.Fatalf("tokens in %d, the model billed %d", res.Stats.TokensIn, m.billed)
	}
	for _, mm := range res.Memories[:res.Kept] {
		if mm.Read == (mm.Rank > 40) {
			t.Fatalf("%s: read=%v", mm.Title, mm.Read)
		}
	}
}

// TestUnjudged: with no model, or none reachable, the ranked list comes
// back marked unjudged.
func TestUnjudged(t *testing.T) {
	st := &store{obs: cands("obs", "observation", 3, 0.5), other: cands("item", "fact", 2, 0.7)}
	res, err := New(st, nil).Gather(context.Background(), &Request{Question: "anything"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, mm := range res.Memories {
		order = append(order, mm.ID)
	}
	if res.Judged || res.Reason == "" || !slices.Equal(order, []string{"item-000", "item-001", "obs-000", "obs-001", "obs-002"}) {
		t.Fatalf("judged %v reason %q order %v", res.Judged, res.Reason, order)
	}
	m := newModel(t, func([]string) ([]int, []string, int) { return nil, nil, http.StatusUnauthorized })
	res, err = New(st, m.client()).Gather(context.Background(), &Request{Question: "anything"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Judged || !strings.Contains(res.Reason, "401") || res.Kept != 0 || len(res.Memories) != 5 || len(st.searches) != 4 {
		t.Fatalf("unreachable model: %+v (searches %d)", res, len(st.searches))
	}
}

// TestDatedFirst: a question naming a time searches that time first, in
// addition to the open search, and its hits rank first.
func TestDatedFirst(t *testing.T) {
	st := &store{obs: cands("obs", "observation", 5, 0.9), other: cands("item", "fact", 5, 0.95)}
	st.obs[3].EventDate, st.other[4].StartDate, st.other[4].EventDate = "2023-06-10", "2023-06-01", "2023-06"
	res, err := New(st, nil).Gather(context.Background(), &Request{Question: "What did I do in June 2023?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.From != "2023-06" || res.To != "2023-06" || st.searches[0].From != "2023-06" || st.searches[0].Kinds != KindsAll || len(st.searches) != 3 {
		t.Fatalf("range %s..%s, searches %+v", res.From, res.To, st.searches)
	}
	if res.Memories[0].ID != "obs-003" || res.Memories[1].ID != "item-004" || len(res.Memories) != 10 {
		t.Fatalf("dated hits first: %s %s (%d)", res.Memories[0].ID, res.Memories[1].ID, len(res.Memories))
	}
}

func TestNamedTime(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // a Tuesday
	for _, c := range []struct{ q, from, to string }{
		{"What did I do in June 2023?", "2023-06", "2023-06"},
		{"on 2023-05-07 and 7th of May, 2024", "2023-05-07", "2024-05-07"},
		{"between March 2023 and 2024-01-15", "2023-03", "2024-01-15"},
		{"May 7, 2023", "2023-05-07", "2023-05-07"},
		{"how many times in 2022", "2022", "2022"},
		{"what happened last week", "2026-11-23", "2026-11-29"},
		{"this month", "2026-12", "2026-12"},
		{"last month", "2026-11", "2026-11"},
		{"yesterday", "2026-11-30", "2026-11-30"},
		{"may I ask how many books", "", ""},
		{"2023-02-30 is no day", "", ""},
		{"version 3.2 of port 8080", "", ""},
	} {
		from, to, ok := NamedTime(c.q, now)
		if from != c.from || to != c.to || ok != (c.from != "") {
			t.Errorf("NamedTime(%q) = %q, %q, %v; want %q, %q", c.q, from, to, ok, c.from, c.to)
		}
	}
	if _, _, ok := NamedTime("last week", time.Time{}); ok {
		t.Errorf("a relative time without now was taken")
	}
}

// TestRedacted: a secret in the question or in a memory never reaches
// the model.
func TestRedacted(t *testing.T) {
	var lines []string
	for _, s := range redacttest.Samples() {
		if !strings.Contains(s.Line, "\n") {
			lines = append(lines, s.Line)
		}
	}
	st := &store{obs: cands("obs", "observation", 3, 0.9)}
	st.obs[0].Text, st.obs[1].Passage = strings.Join(lines[:10], " "), lines[10]
	m := newModel(t, func([]string) ([]int, []string, int) { return nil, nil, 0 })
	if _, err := New(st, m.client()).Gather(context.Background(), &Request{Question: "what about " + strings.Join(lines[11:], " ")}); err != nil {
		t.Fatal(err)
	}
	if len(m.bodies) != 1 {
		t.Fatalf("%d requests", len(m.bodies))
	}
	if leaked := redacttest.Leaked(m.bodies[0]); len(leaked) > 0 {
		t.Fatalf("sent to the model: %v", leaked)
	}
}

func TestInvalid(t *testing.T) {
	for _, r := range []*Request{nil, {Question: "  "}, {Question: "q", From: "June"}, {Question: "q", To: "2023-02-30"}} {
		if _, err := New(&store{}, nil).Gather(context.Background(), r); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", r, err)
		}
	}
	res, err := New(&store{}, nil).Gather(context.Background(), &Request{Question: "q", From: "2023", To: "2023-06-30"})
	if err != nil || res.From != "2023" || res.To != "2023-06-30" {
		t.Fatalf("a valid range: %v %+v", err, res)
	}
}

// TestSlowPart: a part the model does not answer within the timeout
// keeps all its candidates; the others are read.
func TestSlowPart(t *testing.T) {
	st := &store{obs: cands("obs", "observation", 80, 0.9)}
	m := newModel(t, func([]string) ([]int, []string, int) { return []int{1}, nil, 0 })
	m.setIntercept(func(body []byte, _ http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(string(body), "obs 40") {
			return false
		}
		<-r.Context().Done() // the second part: never answered (the body is read, so the server sees the client go)
		return true
	})
	g := New(st, m.client())
	g.Timeout = time.Second
	res, err := g.Gather(context.Background(), &Request{Question: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Judged || res.Kept != 1+40 || res.Stats.Unanswered != 1 || len(res.Memories) != 80 {
		t.Fatalf("judged %v kept %d stats %+v", res.Judged, res.Kept, res.Stats)
	}
}

// TestCancelled: a gather cancelled while parts are read returns the
// cancellation once every call has ended.
func TestCancelled(t *testing.T) {
	st := &store{obs: cands("obs", "observation", 200, 0.9)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := newModel(t, func([]string) ([]int, []string, int) { return nil, nil, 0 })
	m.setIntercept(func([]byte, http.ResponseWriter, *http.Request) bool {
		cancel() // the first request cancels the gather
		return false
	})
	_, err := New(st, m.client()).Gather(ctx, &Request{Question: "q"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
}
