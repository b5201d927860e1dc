package whisper

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/llm"
	"github.com/cairnmemory/cairn/local"
)

// judgeCall is one request the fake judge received, decoded.
type judgeCall struct {
	Rubric string         // the rubric id, found from its instructions
	State  map[string]any // the <state> JSON
	Body   map[string]any // the whole request body
	Raw    string
}

// verdict is how the fake judge answers one request: P(yes), after a
// delay, or a status other than 200.
type verdict struct {
	P      float64
	Delay  time.Duration
	Status int
}

// fakeJudge is an OpenAI-compatible judge endpoint answering one token
// with log-probabilities, as llama.cpp and vLLM do.
type fakeJudge struct {
	URL    string
	mu     sync.Mutex
	calls  []judgeCall
	answer func(c judgeCall) verdict
}

func newFakeJudge(t testing.TB, answer func(c judgeCall) verdict) *fakeJudge {
	f := &fakeJudge{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c := decodeJudgeCall(t, raw)
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		v := f.answer(c)
		if v.Delay > 0 {
			select {
			case <-time.After(v.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if v.Status != 0 && v.Status != http.StatusOK {
			w.WriteHeader(v.Status)
			io.WriteString(w, `{"error":"provider body with secret text"}`)
			return
		}
		io.WriteString(w, logprobReply(questionKey(c.Rubric), v.P))
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// byRubric lists the calls of one rubric.
func (f *fakeJudge) byRubric(id string) []judgeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []judgeCall
	for _, c := range f.calls {
		if c.Rubric == id {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeJudge) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func decodeJudgeCall(t testing.TB, raw []byte) judgeCall {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) < 2 {
		t.Errorf("judge request is not a chat completion: %v: %s", err, raw)
		return judgeCall{}
	}
	c := judgeCall{Raw: string(raw)}
	json.Unmarshal(raw, &c.Body)
	for _, r := range judge.Rubrics {
		if strings.Contains(body.Messages[0].Content, strings.TrimSpace(r.Instructions)) {
			c.Rubric = r.ID
		}
	}
	prompt := body.Messages[1].Content
	if i, j := strings.Index(prompt, "<state>\n"), strings.Index(prompt, "\n</state>"); i >= 0 && j > i {
		if err := json.Unmarshal([]byte(prompt[i+len("<state>\n"):j]), &c.State); err != nil {
			t.Errorf("judge state is not JSON: %v", err)
		}
	}
	return c
}

func questionKey(rubric string) string {
	switch rubric {
	case judge.MemoryUsefulness.ID:
		return "memory_0"
	case judge.HistoricalRecall.ID:
		return "recall_needed"
	case judge.Redundancy.ID:
		return "pair_0"
	}
	return "x"
}

// logprobReply is a chat completion "<key>: yes|no" whose answer token
// has yes and no as alternatives with P(yes) = p.
func logprobReply(key string, p float64) string {
	p = math.Min(math.Max(p, 1e-6), 1-1e-6)
	ans := "yes"
	if p < 0.5 {
		ans = "no"
	}
	content := []map[string]any{
		{"token": key, "logprob": 0, "top_logprobs": []any{}},
		{"token": ":", "logprob": 0, "top_logprobs": []any{}},
		{"token": " " + ans, "logprob": math.Log(max(p, 1-p)), "top_logprobs": []any{
			map[string]any{"token": " yes", "logprob": math.Log(p)}, map[string]any{"token": " no", "logprob": math.Log(1 - p)}}},
	}
	data, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": key + ": " + ans},
			"finish_reason": "stop", "logprobs": map[string]any{"content": content}}},
		"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 3},
	})
	return string(data)
}

// fakeModel is an OpenAI-compatible query model answering with reply.
type fakeModel struct {
	URL    string
	mu     sync.Mutex
	bodies []map[string]any
	reply  func(n int) (string, time.Duration, int) // content, delay, status
}

func newFakeModel(t testing.TB, reply func(n int) (string, time.Duration, int)) *fakeModel {
	f := &fakeModel{reply: reply}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		json.Unmarshal(raw, &m)
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, m)
		f.mu.Unlock()
		content, delay, status := f.reply(n)
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if status != 0 && status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		data, _ := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 40, "completion_tokens": 12},
		})
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *fakeModel) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

// queries is a query model's answer.
func queries(lex, vec string) string {
	b, _ := json.Marshal(map[string]string{"lex": lex, "vec": vec})
	return string(b)
}

// notes of the test corpus: each topic is found by its own words only.
var notes = map[string]string{
	"db.md":     "# Database\n\nWe set busy_timeout to 5000 ms so writers wait instead of failing with SQLITE_BUSY.\n",
	"deploy.md": "# Deploy\n\nThe staging cluster deploys from the release branch every night at 02:00 UTC.\n",
	"fence.md":  "# Garden fence\n\nOn 2 March we settled on cedar boards for the garden fence, stained grey.\n",
	"fence2.md": "# Fence again\n\nThe garden fence posts are set in concrete, one every two metres.\n",
	"angle.md":  "# Angles\n\nmarkup " + strings.Repeat("<", 1100) + "\n",
	"angle2.md": "# Angles two\n\nmarkup " + strings.Repeat(">", 1100) + "\n",
}

// newEngine is a real engine over the notes, synced.
func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	for i := range 12 {
		notes[fmt.Sprintf("filler-%02d.md", i)] = fmt.Sprintf("# Filler %d\n\nRoutine entry %d about weather and lunch.\n", i, i)
	}
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(),
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{dir}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return eng
}

// rig is a memory whisperer over a real engine, a fake judge and a fake
// query model, with its logs captured.
type rig struct {
	eng    *engine.Engine
	judge  *fakeJudge
	model  *fakeModel
	w      *MemoryWhisperer
	stats  *Stats
	logs   *bytes.Buffer
	cred   string
	logsMu *sync.Mutex
}

type rigOpts struct {
	cfg     config.MemoryWhisperer
	answer  func(c judgeCall) verdict
	query   func(n int) (string, time.Duration, int)
	timeout int // judge per-request timeout, ms
}

func newRig(t testing.TB, eng *engine.Engine, o rigOpts) *rig {
	t.Helper()
	r := &rig{eng: eng, stats: &Stats{}, logs: &bytes.Buffer{}, cred: CredentialAvailable, logsMu: &sync.Mutex{}}
	r.judge = newFakeJudge(t, o.answer)
	if o.query == nil {
		o.query = func(int) (string, time.Duration, int) { return queries("busy_timeout", "how long writers wait"), 0, 0 }
	}
	r.model = newFakeModel(t, o.query)
	if o.timeout == 0 {
		o.timeout = 5000
	}
	j, err := judge.FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: r.judge.URL, Model: "judge-m"}, From: "llm.judge", TimeoutMs: o.timeout}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Cache = nil // every judgment reaches the endpoint
	qm, err := llm.New(config.LLM{API: "openai", BaseURL: r.model.URL, Model: "query-m"}, cairn.PurposeFast, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := o.cfg
	if cfg.MaxHints == 0 {
		def := config.DefaultMemoryWhisperer()
		def.Enabled, def.Corpora = true, []string{"notes"}
		if cfg.TimeoutMs != 0 {
			def.TimeoutMs = cfg.TimeoutMs
		}
		cfg = def
	}
	r.w = NewMemoryWhisperer(MemoryOptions{Config: cfg, Retriever: EngineRetriever{Engine: eng}, Judge: j,
		Credential: func() string { return r.cred }, QueryModel: qm, Stats: r.stats,
		Logger: slog.New(slog.NewJSONHandler(lockedWriter{r.logsMu, r.logs}, nil)),
		Now:    func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }})
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (r *rig) logText() string {
	r.logsMu.Lock()
	defer r.logsMu.Unlock()
	return r.logs.String()
}

// turn is a user turn of session s with a run id.
func turn(session, run, prompt string, msgs ...Message) *Turn {
	return &Turn{AgentID: "main", SessionID: session, RunID: run, Trigger: TriggerUser, Prompt: prompt, Messages: msgs}
}

func user(text string) Message      { return Message{Role: "user", Content: Content(text)} }
func assistant(text string) Message { return Message{Role: "assistant", Content: Content(text)} }

// useful answers the recall gate yes and each passage by whether its
// excerpt holds want.
func useful(want string) func(c judgeCall) verdict {
	return func(c judgeCall) verdict {
		switch c.Rubric {
		case judge.HistoricalRecall.ID:
			return verdict{P: 0.9}
		case judge.MemoryUsefulness.ID:
			if strings.Contains(excerpt(c), want) {
				return verdict{P: 0.95}
			}
			return verdict{P: 0.1}
		}
		return verdict{P: 0.1}
	}
}

// excerpt is the candidate excerpt of a usefulness call.
func excerpt(c judgeCall) string {
	cands, _ := c.State["candidates"].([]any)
	if len(cands) != 1 {
		return ""
	}
	m, _ := cands[0].(map[string]any)
	s, _ := m["excerpt"].(string)
	return s
}
