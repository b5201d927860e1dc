package whisper

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// funcWhisperer is a whisperer made of functions.
type funcWhisperer struct {
	kind    string
	whisper func(ctx context.Context, t *Turn) (Section, error)
	calls   atomic.Int32
	ended   atomic.Int32
	seen    []*Observation
	mu      sync.Mutex
}

func (f *funcWhisperer) Kind() string { return f.kind }
func (f *funcWhisperer) Whisper(ctx context.Context, t *Turn) (Section, error) {
	f.calls.Add(1)
	return f.whisper(ctx, t)
}
func (f *funcWhisperer) Observe(_ context.Context, o *Observation) error {
	f.mu.Lock()
	f.seen = append(f.seen, o)
	f.mu.Unlock()
	return nil
}
func (f *funcWhisperer) EndSession(string, string) { f.ended.Add(1) }

func fixed(kind, body string) *funcWhisperer {
	return &funcWhisperer{kind: kind, whisper: func(context.Context, *Turn) (Section, error) {
		if body == "" {
			return Section{Kind: kind, Outcome: "rejected"}, nil
		}
		return Section{Kind: kind, Body: body, Outcome: "emitted"}, nil
	}}
}

// TestServiceCompose: sections in C28's order (memory before skill, even
// when the skill whisperer is listed first), a whisperer that fails or
// panics skipped and counted, nothing for turns that do not run.
func TestServiceCompose(t *testing.T) {
	skill := fixed(KindSkill, `The skill "deploy" may help: "/skills/deploy/SKILL.md"`)
	mem := fixed(KindMemory, `[{"source":"cairn://notes/db.md","lines":"1-3","body":"x"}]`)
	bad := &funcWhisperer{kind: "people", whisper: func(context.Context, *Turn) (Section, error) { panic("boom") }}
	s := NewService(nil, nil, skill, bad, mem)
	defer s.Close()
	res, err := s.Whisper(context.Background(), turn("s", "r1", "deploy?"))
	if err != nil {
		t.Fatal(err)
	}
	want := "<cairn_memory>\n" + RetrievedNote + "\n<memory>\n" + `[{"source":"cairn://notes/db.md","lines":"1-3","body":"x"}]` + "\n</memory>\n<skill>\n" +
		`The skill "deploy" may help: "/skills/deploy/SKILL.md"` + "\n</skill>\n</cairn_memory>"
	if res.AppendContext != want {
		t.Errorf("appendContext\n%s\nwant\n%s", res.AppendContext, want)
	}
	if n := s.Stats.OutcomesOf("main", "people")["failed"]; n != 1 {
		t.Errorf("panicking whisperer counted failed %d times", n)
	}
	if n := s.Stats.OutcomesOf("main", KindMemory)["emitted"]; n != 1 {
		t.Errorf("memory emitted %d", n)
	}
	b, _ := json.Marshal(Result{})
	if string(b) != "{}" {
		t.Errorf("empty result encodes as %s, want {}", b)
	}
	for _, tn := range []*Turn{
		{AgentID: "main", SessionID: "s", RunID: "r9", Trigger: "heartbeat", Prompt: "x"},
		{AgentID: "main", SessionID: "s", Trigger: TriggerUser, Prompt: "x"},
		{SessionID: "s", RunID: "r8", Trigger: TriggerUser, Prompt: "x"},
		{AgentID: "main", RunID: "r7", Trigger: TriggerUser, Prompt: "x"},
	} {
		res, _ := s.Whisper(context.Background(), tn)
		if res.AppendContext != "" {
			t.Errorf("turn %+v ran: %s", tn, res.AppendContext)
		}
	}
	if n := mem.calls.Load(); n != 1 {
		t.Errorf("memory whisperer called %d times, want 1", n)
	}
}

// TestServiceRuns: a repeated run id is answered from the cache without a
// new call; a new run aborts the session's previous one, whose late
// section is dropped; session_end forgets the session.
func TestServiceRuns(t *testing.T) {
	release := make(chan struct{})
	var n atomic.Int32
	w := &funcWhisperer{kind: KindMemory, whisper: func(ctx context.Context, t *Turn) (Section, error) {
		if n.Add(1) == 1 {
			select { // the first run waits until aborted
			case <-ctx.Done():
			case <-release:
			}
			return Section{Body: "late", Outcome: "emitted"}, nil
		}
		return Section{Body: "fresh " + t.RunID, Outcome: "emitted"}, nil
	}}
	s := NewService(nil, nil, w)
	defer s.Close()
	first := make(chan Result, 1)
	go func() {
		res, _ := s.Whisper(context.Background(), turn("s", "r1", "a"))
		first <- res
	}()
	for n.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	res, err := s.Whisper(context.Background(), turn("s", "r2", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.AppendContext, "fresh r2") {
		t.Errorf("run 2: %q", res.AppendContext)
	}
	if got := <-first; got.AppendContext != "" {
		t.Errorf("the aborted run injected %q", got.AppendContext)
	}
	if c := s.Stats.OutcomesOf("main", KindMemory)["cancelled"]; c != 1 {
		t.Errorf("cancelled %d, want 1", c)
	}
	again, _ := s.Whisper(context.Background(), turn("s", "r2", "b"))
	if again != res || w.calls.Load() != 2 {
		t.Errorf("repeated run id: %q after %d calls, want the cached answer and 2 calls", again.AppendContext, w.calls.Load())
	}
	s.Whisper(context.Background(), &Turn{AgentID: "main", SessionID: "s", Trigger: TriggerSessionEnd})
	if w.ended.Load() != 1 {
		t.Errorf("EndSession called %d times", w.ended.Load())
	}
	res, _ = s.Whisper(context.Background(), turn("s", "r2", "b"))
	if w.calls.Load() != 3 || !strings.Contains(res.AppendContext, "fresh r2") {
		t.Errorf("after session_end the run id runs again: %d calls, %q", w.calls.Load(), res.AppendContext)
	}
	s.Observe(context.Background(), &Observation{AgentID: "main", SessionID: "s", Tool: "Read", OK: true})
	if len(w.seen) != 1 {
		t.Errorf("observations %d", len(w.seen))
	}
	close(release)
}

// TestStatsBound: at most MaxAgents agents are counted, the oldest
// inserted evicted first; counters never hold text.
func TestStatsBound(t *testing.T) {
	var s Stats
	for i := range MaxAgents + 5 {
		s.Count(fmt.Sprintf("agent-%03d", i), KindMemory, "emitted")
		s.Record(fmt.Sprintf("agent-%03d", i), "memoryWhisperer", "ok", map[string]float64{"elapsedMs": float64(i)})
	}
	agents := s.Agents()
	if len(agents) != MaxAgents || agents[0] != "agent-005" {
		t.Fatalf("%d agents, first %s; want %d from agent-005", len(agents), agents[0], MaxAgents)
	}
	if got := s.OutcomesOf("agent-000", KindMemory)["emitted"]; got != 0 {
		t.Errorf("evicted agent still counted: %d", got)
	}
	o := s.OutcomesOf("agent-104", KindMemory)
	if len(o) != len(Outcomes) || o["emitted"] != 1 {
		t.Errorf("outcomes %v", o)
	}
	for range 300 {
		s.Record("agent-104", "memoryWhisperer", "ok", map[string]float64{"elapsedMs": 10})
	}
	m := s.Telemetry("agent-104", "memoryWhisperer").Measurements["elapsedMs"]
	if m.Samples != 301 || m.RecentSamples != RecentWindow || m.P50 != 10 || m.P95 != 10 {
		t.Errorf("measurement %+v", m)
	}
}

// TestSessionBound: past MaxSessions sessions the least recently used
// one is forgotten.
func TestSessionBound(t *testing.T) {
	w := NewMemoryWhisperer(MemoryOptions{})
	for i := range MaxSessions + 1 {
		w.nextTurn(sessionKey{"main", fmt.Sprint(i)})
		if i == 1 {
			w.nextTurn(sessionKey{"main", "0"}) // used again: session 1 is now the oldest
		}
	}
	if len(w.sessions) != MaxSessions || w.sessions[sessionKey{"main", "1"}] != nil || w.sessions[sessionKey{"main", "0"}] == nil {
		t.Errorf("%d sessions; session 1 kept %v, session 0 kept %v", len(w.sessions),
			w.sessions[sessionKey{"main", "1"}] != nil, w.sessions[sessionKey{"main", "0"}] != nil)
	}
}

// TestNoRunReason: a turn that does not run says why: its trigger, or
// the fields it lacks.
func TestNoRunReason(t *testing.T) {
	full := Turn{AgentID: "a", SessionID: "s", RunID: "r", Trigger: TriggerUser}
	if r := NoRunReason(&full); r != "" {
		t.Errorf("full turn: %q", r)
	}
	for _, tc := range []struct {
		edit func(*Turn)
		want string
	}{
		{func(t *Turn) { t.RunID, t.AgentID = "", "" }, "no agentId, runId"},
		{func(t *Turn) { t.Trigger = "heartbeat" }, `trigger "heartbeat"`},
		{func(t *Turn) { t.Trigger = "" }, "no trigger"},
		{func(t *Turn) { t.Trigger = TriggerSessionEnd }, "session_end"},
	} {
		turn := full
		tc.edit(&turn)
		if r := NoRunReason(&turn); !strings.Contains(r, tc.want) {
			t.Errorf("%+v: %q, want %q", turn, r, tc.want)
		}
	}
}
