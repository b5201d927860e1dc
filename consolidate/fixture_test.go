package consolidate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/llm/anthropic"
	"github.com/cairnmemory/cairn/llm/openai"
	"github.com/cairnmemory/cairn/sqlite"
)

// plantedToken is a secret in a record the model must never see.
var plantedToken = "ghp_" + strings.Repeat("Q7", 18)

// echoedKey is a secret the scripted model puts in an answer; it must be
// stored redacted.
var echoedKey = "sk-ant-api03-" + strings.Repeat("z", 93) + "AA"

func at(day, hour, min int) time.Time { return time.Date(2026, 5, day, hour, min, 0, 0, time.UTC) }

func msg(role string, t time.Time, text string, tools ...cairn.ToolCall) cairn.Message {
	return cairn.Message{Role: role, Kind: cairn.KindText, Text: text, Time: t, Tools: tools}
}

// shopSession: three records on Monday 2026-05-04 (a fix that worked, a
// purchase "last Friday" and a plan, a deploy that failed with a token
// pasted into it).
func shopSession() cairn.Session {
	return cairn.Session{Source: cairn.SourceClaudeCode, ID: "s-shop", Title: "Fix the login flake", Cwd: "/home/dana/shop",
		ConversationID: "shop", StartedAt: at(4, 9, 0), Messages: []cairn.Message{
			msg("user", at(4, 9, 0), "The login test in auth/login_test.go is flaky again. Please fix it."),
			msg("assistant", at(4, 9, 1), "Running the tests first.",
				cairn.ToolCall{Name: "Bash", Input: "go test ./auth/...", Output: "FAIL TestLogin: session timeout after 1s", IsError: true}),
			msg("assistant", at(4, 9, 5), "Raised SessionTimeout in auth/session.go from 1s to 5s.",
				cairn.ToolCall{Name: "Bash", Input: "go test ./auth/...", Output: "ok shop/auth 0.41s"}),
			msg("user", at(4, 9, 30), "Thanks. Unrelated: last Friday I bought a standing desk from Ikea for 349 euros. I will assemble it on Saturday."),
			msg("assistant", at(4, 9, 31), "Noted."),
			msg("user", at(4, 10, 0), "Deploy it with make deploy-prod, the token is "+plantedToken),
			msg("assistant", at(4, 10, 2), "The deploy failed.",
				cairn.ToolCall{Name: "Bash", Input: "make deploy-prod", Output: "permission denied: deploy key missing", IsError: true}),
		}}
}

// longSession: one record longer than a window, read in parts.
func longSession() cairn.Session {
	var b strings.Builder
	for i := 0; b.Len() < 130000; i++ {
		fmt.Fprintf(&b, "log line %05d: worker pool resized, queue depth %d\n", i, i%97)
	}
	return cairn.Session{Source: cairn.SourceCodex, ID: "s-long", Title: "Read the worker log", Cwd: "/srv/queue",
		ConversationID: "queue", StartedAt: at(6, 14, 0), Messages: []cairn.Message{
			msg("user", at(6, 14, 0), "Here is the whole worker log, find why the queue backs up:\n"+b.String()),
			msg("assistant", at(6, 14, 3), "The pool shrinks to 2 workers every 97 jobs; pin POOL_MIN=8 in queue.toml."),
		}}
}

// fixture is an engine with a sessions corpus holding the given sessions.
type fixture struct {
	t   *testing.T
	dir string
	eng testEngine
}

// testEngine is an engine with the storage it opened, for the tests that
// write or read storage directly (the engine exposes none).
type testEngine struct {
	*engine.Engine
	store cairn.Storage
}

func (e testEngine) Store() cairn.Storage { return e.store }

// keepStorage is the SQLite backend, remembering the storage it opens.
type keepStorage struct {
	sqlite.Backend
	st *cairn.Storage
}

func (k keepStorage) Open(ctx context.Context, dir string, o cairn.StorageOptions) (cairn.Storage, error) {
	st, err := k.Backend.Open(ctx, dir, o)
	*k.st = st
	return st, err
}

func newFixture(t *testing.T, sessions ...cairn.Session) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.open()
	if _, err := f.eng.ImportSessions(context.Background(), "sessions", "fixture", sessions); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) open() {
	f.t.Helper()
	var st cairn.Storage
	eng, err := engine.Open(context.Background(), engine.Options{Dir: f.dir, Location: time.UTC,
		Backend: keepStorage{st: &st}, Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
	if err != nil {
		f.t.Fatal(err)
	}
	f.eng = testEngine{eng, st}
	f.t.Cleanup(func() { eng.Close(context.Background()) })
}

func (f *fixture) run(model cairn.LLM, opts *cairn.ConsolidateOptions) *cairn.ConsolidateResult {
	f.t.Helper()
	res, err := f.eng.Consolidate(context.Background(), model, opts, nil)
	if err != nil {
		f.t.Fatalf("consolidate: %v", err)
	}
	return res
}

func (f *fixture) memories() []cairn.Memory {
	f.t.Helper()
	ms, err := f.eng.Memories(context.Background(), cairn.MemoryFilter{})
	if err != nil {
		f.t.Fatal(err)
	}
	return ms
}

// script answers a window the way a model would for the fixtures: by what
// the prompt shows. Unknown windows get an empty answer.
func script(system, prompt string) string {
	obs := strings.HasPrefix(system, "You read one small window")
	switch {
	case obs && strings.Contains(prompt, "standing desk") && strings.Contains(prompt, "=== Record 2"):
		return mustJSON(map[string]any{"observations": []any{
			obsJSON("Dana bought a standing desk from Ikea for 349 euros last Friday (2026-05-01).", "Dana", "2026-05-01", "done", []int{2},
				[]string{"Ikea", "standing desk", "Ikea"}, []string{"what furniture did I buy?", "how much was the desk?"}),
			obsJSON("Dana plans to assemble the standing desk on Saturday (2026-05-09).", "Dana", "2026-05-09", "plan", []int{2},
				[]string{"standing desk"}, []string{"when will I assemble the desk?", "a", "b", "c", "d"}),
			obsJSON("", "Dana", "", "done", []int{2}, nil, nil),                                               // empty text
			obsJSON("Dana fixed the login test in the shop project.", "Dana", "", "done", []int{9}, nil, nil), // not in this window
			obsJSON("Dana's deploy of the shop failed with a missing deploy key.", "shop", "last Monday", "done", []int{3}, nil, nil),
		}})
	case obs:
		return `{"observations":[]}`
	case strings.Contains(prompt, "auth/login_test.go"):
		return shopMain
	case strings.Contains(prompt, "worker log") || strings.Contains(prompt, "log line"):
		return longPart(prompt)
	}
	return `{"segment_summary":"","episodes":[],"items":[]}`
}

func obsJSON(text, about, date, phase string, reqs []int, concepts, cues []string) map[string]any {
	return map[string]any{"text": text, "about": about, "event_date": date, "start_date": "", "end_date": "", "phase": phase,
		"requests": reqs, "concepts": orEmpty(concepts), "cues": orEmpty(cues)}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func item(kind, title, summary, body string, reqs []int, conf string, imp any, contested, ambiguous bool) map[string]any {
	return map[string]any{"kind": kind, "title": title, "summary": summary, "body": body, "applies_when": "When working on the shop.",
		"scope": "project", "requests": reqs, "confidence": conf, "importance": imp, "contested": contested, "ambiguous": ambiguous,
		"cues": []string{"shop " + title, "how do I " + strings.ToLower(title) + "?", "shop " + title}, "concepts": []string{"shop", "auth/session.go", "Auth/Session.go"}}
}

// shopMain is the main window of the shop thread. It satisfies the
// schema (an answer that does not is asked again, see TestSchemaViolation);
// some items break the gate's rules on purpose.
var shopMain = mustJSON(map[string]any{
	"segment_summary": "Dana had the flaky login test fixed by raising the session timeout; a production deploy failed.",
	"episodes": []any{
		map[string]any{"request": 1, "outcome": "success", "keep": true, "title": "Fix the flaky shop login test",
			"summary": "TestLogin in the shop project failed with a 1s session timeout; SessionTimeout in auth/session.go was raised to 5s and go test ./auth/... passed.",
			"cues":    []string{"login test flaky", "TestLogin timeout", "Fix the flaky shop login test"}, "concepts": []string{"TestLogin", "auth/session.go", "SessionTimeout"}},
		map[string]any{"request": 2, "outcome": "uncertain", "keep": false, "title": "", "summary": "", "cues": []string{}, "concepts": []string{}},
		map[string]any{"request": 3, "outcome": "fail", "keep": true, "title": "Production deploy of the shop failed",
			"summary": "make deploy-prod failed with permission denied because the deploy key was missing.",
			"cues":    []string{"deploy failed", "permission denied deploy"}, "concepts": []string{"make deploy-prod"}},
	},
	"items": []any{
		item("pitfall", "Session timeout of 1s makes TestLogin flaky", "In the shop project TestLogin fails intermittently when SessionTimeout in auth/session.go is 1s.",
			"Set SessionTimeout = 5 * time.Second in auth/session.go, then run go test ./auth/...", []int{1}, "verified", 4, false, false),
		item("reference", "Where the shop deploy key lives", "The shop's production deploy key is kept in the ops vault; it was missing on the build host.",
			"Key seen in the log: "+echoedKey+"; fetch it from the ops vault.", []int{3}, "stated", 3, false, false),
		item("procedure", "Deploy the shop to production", "Run make deploy-prod from the shop root.", "make deploy-prod", []int{3}, "stated", 3, false, false),
		item("fact", "", "A fact without a title.", "", []int{1}, "verified", 3, false, false),
		item("fact", "Title without summary", "", "", []int{1}, "verified", 3, false, false),
		item("fact", "The agent thinks the CI is slow", "Only the agent said so.", "", []int{1}, "inferred", 3, false, false),
		item("decision", "Use 5s or 10s timeouts", "Dana and the agent disagreed.", "", []int{1}, "stated", 3, true, false),
		item("decision", "Timeout for the thing", "It is unclear which timeout.", "", []int{1}, "stated", 3, false, true),
		item("fact", "Tests print dots", "go test prints dots.", "", []int{1}, "verified", 1, false, false),
	},
})

// longPart answers one part of the long record: the running episode grows
// part by part.
func longPart(prompt string) string {
	n := 1
	for i := 2; i <= 9; i++ {
		if strings.Contains(prompt, fmt.Sprintf("this is part %d.", i)) {
			n = i
		}
	}
	a := map[string]any{"segment_summary": fmt.Sprintf("Part %d of the worker log.", n),
		"episodes": []any{map[string]any{"request": 1, "outcome": "success", "keep": true,
			"title":   fmt.Sprintf("Find why the queue backs up (through part %d)", n),
			"summary": fmt.Sprintf("Read the worker log through part %d; the pool shrinks to 2 workers every 97 jobs.", n),
			"cues":    []string{fmt.Sprintf("queue backs up %d", n)}, "concepts": []string{fmt.Sprintf("part-%d", n)}}},
		"items": []any{}}
	if n == 1 {
		a["items"] = []any{map[string]any{"kind": "fact", "title": "Worker pool shrinks every 97 jobs", "summary": "The queue worker pool in /srv/queue shrinks to 2 workers every 97 jobs.",
			"body": "Seen in the worker log.", "applies_when": "When the queue backs up.", "scope": "project", "requests": []int{1}, "confidence": "verified",
			"importance": 3, "contested": false, "ambiguous": false, "cues": []string{"queue backlog"}, "concepts": []string{"POOL_MIN"}}}
	}
	return mustJSON(a)
}

// fault handles request n (1-based) itself when it returns true.
type fault func(n int, w http.ResponseWriter, r *http.Request) bool

// wireServer is an httptest fake of one wire format that answers with
// script and records every request body.
type wireServer struct {
	*httptest.Server
	format string
	mu     sync.Mutex
	bodies []string
	fault  fault
	// answer, when set, answers instead of script.
	answer func(system, prompt string) string
}

func newWireServer(t *testing.T, format string, f fault) *wireServer {
	s := &wireServer{format: format, fault: f}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// setFault installs f for the next requests.
func (s *wireServer) setFault(f fault) {
	s.mu.Lock()
	s.fault = f
	s.mu.Unlock()
}

func (s *wireServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func (s *wireServer) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	n := len(s.bodies)
	fl := s.fault
	s.mu.Unlock()
	if fl != nil && fl(n, w, r) {
		return
	}
	system, prompt := s.read(body)
	answer := script
	if s.answer != nil {
		answer = s.answer
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, s.wrap(answer(system, prompt), "stop"))
}

// read returns the system prompt and the user prompt of a request body.
func (s *wireServer) read(body []byte) (system, prompt string) {
	var req struct {
		System   string `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	system = req.System
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "user":
			prompt = m.Content
		}
	}
	return system, prompt
}

// wrap puts an answer in the format's response; finish is "stop" or
// "length" (cut at max tokens).
func (s *wireServer) wrap(answer, finish string) string {
	if s.format == "anthropic" {
		stop, input := "tool_use", json.RawMessage(answer)
		if finish == "length" {
			stop = "max_tokens"
		}
		if !json.Valid(input) {
			return mustJSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": answer}}, "stop_reason": stop,
				"usage": map[string]int{"input_tokens": 1000, "output_tokens": 100}})
		}
		return mustJSON(map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": toolName(s), "input": input}},
			"stop_reason": stop, "usage": map[string]int{"input_tokens": 1000, "output_tokens": 100}})
	}
	return mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
		"message": map[string]any{"role": "assistant", "content": answer}}},
		"usage": map[string]int{"prompt_tokens": 1000, "completion_tokens": 100}})
}

// toolName is the forced tool of the last request (the schema name).
func toolName(s *wireServer) string {
	s.mu.Lock()
	last := s.bodies[len(s.bodies)-1]
	s.mu.Unlock()
	var req struct {
		ToolChoice struct {
			Name string `json:"name"`
		} `json:"tool_choice"`
	}
	json.Unmarshal([]byte(last), &req)
	return req.ToolChoice.Name
}

// client returns the real model client of the format, pointed at url, with
// quick retries and the given per-attempt timeout.
func client(format, url string, timeout time.Duration) cairn.LLM {
	if format == "anthropic" {
		c := anthropic.New(url, "claude-test", "test-key")
		c.Backoff, c.MaxRetryWait, c.Timeout = time.Millisecond, time.Millisecond, timeout
		return c
	}
	c := openai.New(url, "gpt-test", "test-key")
	c.Backoff, c.MaxRetryWait, c.Timeout = time.Millisecond, time.Millisecond, timeout
	return c
}

var formats = []string{"openai", "anthropic"}

// scripted is an in-process model that answers with script and records
// every request.
type scripted struct {
	mu   sync.Mutex
	reqs []*cairn.LLMRequest
	// fn, when set, answers instead of script (n is 1-based).
	fn func(n int, req *cairn.LLMRequest) (*cairn.LLMResponse, error)
}

func (s *scripted) Complete(ctx context.Context, req *cairn.LLMRequest) (*cairn.LLMResponse, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	s.mu.Unlock()
	if s.fn != nil {
		return s.fn(n, req)
	}
	return &cairn.LLMResponse{Text: script(req.System, req.Prompt), TokensIn: len(req.Prompt) / 4, TokensOut: 100}, nil
}

var _ = consolidate.DocumentPath // the package under test
