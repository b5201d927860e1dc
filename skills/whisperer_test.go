package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/judge"
	"github.com/cairnmemory/cairn/whisper"
)

// skillRoot writes three skills and returns their folder.
func skillRoot(t *testing.T) string {
	root := t.TempDir()
	write(t, filepath.Join(root, "deploy", "SKILL.md"), skill("deploy", "Ship the website to the staging server"))
	write(t, filepath.Join(root, "release", "SKILL.md"), skill("release", "Ship a release of the website"))
	write(t, filepath.Join(root, "review", "SKILL.md"), skill("review", "Review a pull request for bugs"))
	write(t, filepath.Join(root, "cook", "SKILL.md"), skill("cook", "Bake bread at home"))
	return root
}

func turn(run, prompt string, msgs ...whisper.Message) *whisper.Turn {
	return &whisper.Turn{AgentID: "a", SessionID: "s", RunID: run, Trigger: "user", Prompt: prompt, Messages: msgs}
}

func mustWhisper(t *testing.T, w *Whisperer, tr *whisper.Turn) whisper.Section {
	t.Helper()
	sec, err := w.Whisper(context.Background(), tr)
	if err != nil {
		t.Fatalf("Whisper: %v", err)
	}
	return sec
}

func TestLocalWhisperer(t *testing.T) {
	root := skillRoot(t)
	w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), nil)
	w.CooldownTurns = 2
	if w.Mode() != "missing_key" {
		t.Fatalf("mode = %s", w.Mode())
	}
	ask := "please ship the website to the staging server"
	sec := mustWhisper(t, w, turn("r1", ask))
	want := fmt.Sprintf(`The skill "deploy" may be relevant to this request; to use it, read its instructions at %q.`, filepath.Join(root, "deploy", "SKILL.md"))
	if sec.Kind != whisper.KindSkill || sec.Outcome != "emitted" || sec.Body != want || len(sec.Also) != 1 || sec.Also[0] != "missing_key" {
		t.Fatalf("turn 1 = %+v\nwant body %s", sec, want)
	}
	// Turns 2 and 3 are within the cooldown of 2; the next best is never
	// named instead.
	for i := 2; i <= 3; i++ {
		if sec := mustWhisper(t, w, turn(fmt.Sprint("r", i), ask)); sec.Outcome != "cooldown" || sec.Body != "" || len(sec.Also) != 0 {
			t.Fatalf("turn %d = %+v, want cooldown", i, sec)
		}
	}
	if sec := mustWhisper(t, w, turn("r4", ask)); sec.Outcome != "emitted" {
		t.Fatalf("turn 4 = %+v, want emitted", sec)
	}
	// Opening the skill (turn 4 still) starts its cooldown again; a read
	// that failed, another tool or another file does not.
	read := func(path string, ok bool, tool string) {
		args, _ := json.Marshal(map[string]string{"file_path": path})
		if err := w.Observe(context.Background(), &whisper.Observation{AgentID: "a", SessionID: "s", Tool: tool, Args: args, OK: ok}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		mustWhisper(t, w, turn("x", ask)) // turns 5-7: cooling from 4, then 8 would emit
	}
	read(filepath.Join(root, "deploy", "SKILL.md"), false, "Read")
	read(filepath.Join(root, "deploy", "SKILL.md"), true, "Write")
	read(filepath.Join(root, "deploy", "README.md"), true, "Read")
	read(filepath.Join(root, "deploy", "skill.md"), true, "Read") // another name of no configured skill
	if sec := mustWhisper(t, w, turn("r8", ask)); sec.Outcome != "cooldown" {
		t.Fatalf("turn 8 = %+v, want cooldown (suggested at 7)", sec)
	}
	// Turn 7 named it again (5, 6 cooled; 7 = 4+3 emitted); now open it at turn 8.
	read(filepath.Join(root, "deploy", "SKILL.md"), true, "Read")
	for i := 9; i <= 10; i++ {
		if sec := mustWhisper(t, w, turn("r", ask)); sec.Outcome != "cooldown" {
			t.Fatalf("turn %d = %+v, want cooldown (opened at 8)", i, sec)
		}
	}
	if sec := mustWhisper(t, w, turn("r11", ask)); sec.Outcome != "emitted" {
		t.Fatalf("turn 11 = %+v, want emitted", sec)
	}
	// Below minScore: nothing.
	w.MinScore = 0.99
	if sec := mustWhisper(t, w, turn("r12", "zebra quantum")); sec.Outcome != "no_candidates" {
		t.Fatalf("unrelated = %+v, want no_candidates", sec)
	}
	// A session's state is its own; EndSession forgets it.
	w.MinScore = 0.1
	other := turn("o1", ask)
	other.SessionID = "s2"
	if sec := mustWhisper(t, w, other); sec.Outcome != "emitted" {
		t.Fatalf("other session = %+v", sec)
	}
	w.EndSession("a", "s")
	if sec := mustWhisper(t, w, turn("r13", ask)); sec.Outcome != "emitted" {
		t.Fatalf("after EndSession = %+v", sec)
	}
}

func TestQueryText(t *testing.T) {
	msgs := []whisper.Message{
		{Role: "user", Content: "first"},
		{Role: "assistant", Content: "hidden", Channel: "analysis"},
		{Role: "tool", Content: "tool output"},
		{Role: "assistant", Content: "reply one"},
		{Role: "assistant", Content: "broken", StopReason: "error"},
		{Role: "user", Content: "second"},
		{Role: "assistant", Content: "   "},
		{Role: "user", Content: "now"}, // a copy of the prompt: dropped
	}
	q := func(n int) string { return queryText(history(&whisper.Turn{Prompt: "now", Messages: msgs}, n)) }
	if got := q(2); got != "assistant: reply one\n\nuser: second\n\nuser: now" {
		t.Fatalf("query = %q", got)
	}
	if got := q(0); got != "user: now" {
		t.Fatalf("query without history = %q", got)
	}
	long := strings.Repeat("é", MaxQueryChars+10)
	if got := queryText(nil, long); len([]rune(got)) != MaxQueryChars || !strings.HasSuffix(got, "é") {
		t.Fatalf("long query: %d runes", len([]rune(got)))
	}
}

// judgeFake is an OpenAI-compatible judge endpoint: useful gives P(yes)
// by candidate name (a missing name: HTTP 500); delay holds every answer.
type judgeFake struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	states []judgeState
	useful map[string]float64
	delay  time.Duration
}

func newJudgeFake(t *testing.T, useful map[string]float64) *judgeFake {
	f := &judgeFake{useful: useful}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			t.Errorf("judge request is not JSON: %v", err)
		}
		st := stateOf(t, body)
		f.mu.Lock()
		f.bodies, f.states = append(f.bodies, body), append(f.states, st)
		p, ok := f.useful[st.Candidate.Name]
		delay := f.delay
		f.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if !ok {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, logprobAnswer(p))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *judgeFake) requests() []judgeState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]judgeState(nil), f.states...)
}

// stateOf reads the state a judge prompt quotes between <state> tags.
func stateOf(t *testing.T, body map[string]any) judgeState {
	t.Helper()
	data, _ := json.Marshal(body["messages"])
	var msgs []struct{ Role, Content string }
	json.Unmarshal(data, &msgs)
	for _, m := range msgs {
		rest, ok := strings.CutPrefix(m.Content, "<state>\n") // the user message; the system one names the tags too
		raw, _, closed := strings.Cut(rest, "\n</state>")
		if m.Role != "user" || !ok || !closed {
			continue
		}
		var st judgeState
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			t.Errorf("state %q: %v", raw, err)
		}
		return st
	}
	t.Errorf("no <state> in the judge request: %s", data)
	return judgeState{}
}

// logprobAnswer is a chat completion answering "useful: yes" with P(yes) = p.
func logprobAnswer(p float64) string {
	lp := func(x float64) float64 { return math.Log(max(x, 1e-9)) }
	tok := func(text string, alts map[string]float64) map[string]any {
		top := []map[string]any{}
		for k, v := range alts {
			top = append(top, map[string]any{"token": k, "logprob": v})
		}
		return map[string]any{"token": text, "logprob": alts[text], "top_logprobs": top}
	}
	content := []map[string]any{tok("useful", map[string]float64{"useful": 0}), tok(":", map[string]float64{":": 0}),
		tok(" yes", map[string]float64{" yes": lp(p), " no": lp(1 - p)})}
	data, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "useful: yes"}, "finish_reason": "stop",
			"logprobs": map[string]any{"content": content}}},
		"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 3},
	})
	return string(data)
}

func (f *judgeFake) judge(t *testing.T) *judge.Judge {
	j, err := judge.FromConfig(config.Judge{LLM: config.LLM{API: "openai", BaseURL: f.srv.URL, Model: "judge-m"}, From: "llm.judge", TimeoutMs: 5000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Cache = nil // every call asks
	return j
}

func TestJudgedWhisperer(t *testing.T) {
	root := skillRoot(t)
	f := newJudgeFake(t, map[string]float64{"deploy": 0.6, "release": 0.9, "review": 0.8, "cook": 0.99})
	w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
	w.HistoryMessages = 1
	if w.Mode() != "enhanced" {
		t.Fatalf("mode = %s", w.Mode())
	}
	hist := []whisper.Message{{Role: "user", Content: "older message"}, {Role: "assistant", Content: "I can help with the website"}}
	ask := "please ship the website to the staging server for review"
	sec := mustWhisper(t, w, turn("r1", ask, hist...))
	// The three most similar are judged (deploy, release, review: cook
	// shares no word); release, the best at or above 0.7 of them, wins
	// over deploy, the most similar.
	if sec.Outcome != "emitted" || !strings.Contains(sec.Body, `"release"`) || len(sec.Also) != 0 {
		t.Fatalf("judged = %+v, want release", sec)
	}
	reqs := f.requests()
	names := map[string]bool{}
	for _, st := range reqs {
		names[st.Candidate.Name] = true
		if st.CurrentRequest != ask || st.History != "assistant: I can help with the website" {
			t.Fatalf("state = %+v", st)
		}
	}
	if len(reqs) != 3 || !names["deploy"] || !names["release"] || !names["review"] {
		t.Fatalf("judged %v in %d requests, want deploy, release, review", names, len(reqs))
	}
	if st := reqs[0]; (st.Candidate.Name == "deploy") && st.Candidate.Description != "Ship the website to the staging server" {
		t.Fatalf("candidate = %+v", st.Candidate)
	}
	body := f.bodies[0]
	if data, _ := json.Marshal(body); !strings.Contains(string(data), "materially help") || body["model"] != "judge-m" {
		t.Fatalf("request does not carry the skill-useful rubric: %s", data)
	}
	// The winner cools: no fall-through to review (0.8 ≥ 0.7 too).
	if sec := mustWhisper(t, w, turn("r2", ask)); sec.Outcome != "cooldown" {
		t.Fatalf("turn 2 = %+v, want cooldown", sec)
	}
}

func TestJudgedOutcomes(t *testing.T) {
	root := skillRoot(t)
	ask := "please ship the website to the staging server for review" // top 3: deploy, release, review
	t.Run("rejected, no vector fallback", func(t *testing.T) {
		f := newJudgeFake(t, map[string]float64{"deploy": 0.69, "release": 0.1, "review": 0.2})
		w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
		w.MinScore = 0 // local mode would name deploy
		if sec := mustWhisper(t, w, turn("r", ask)); sec.Outcome != "rejected" || sec.Body != "" {
			t.Fatalf("= %+v, want rejected", sec)
		}
	})
	t.Run("one failed, one useful", func(t *testing.T) {
		f := newJudgeFake(t, map[string]float64{"deploy": 0.8, "release": 0.1})
		w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
		if sec := mustWhisper(t, w, turn("r", ask)); sec.Outcome != "emitted" || !strings.Contains(sec.Body, `"deploy"`) {
			t.Fatalf("= %+v, want deploy", sec)
		}
	})
	t.Run("all failed", func(t *testing.T) {
		f := newJudgeFake(t, nil)
		w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
		sec, err := w.Whisper(context.Background(), turn("r", ask))
		if err == nil || sec.Outcome != "failed" || sec.Body != "" || judge.CodeOf(err) != judge.CodeHTTP {
			t.Fatalf("= %+v, %v; want failed with http_error", sec, err)
		}
		if n := len(f.requests()); n != 3 {
			t.Fatalf("%d requests, want 3 (no retries)", n)
		}
	})
	t.Run("unreadable key", func(t *testing.T) {
		f := newJudgeFake(t, map[string]float64{"deploy": 0.9})
		w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
		w.Credential = func() string { return CredentialUnreadable }
		sec, err := w.Whisper(context.Background(), turn("r", ask))
		if err == nil || sec.Outcome != "failed" || len(f.requests()) != 0 {
			t.Fatalf("= %+v, %v, %d requests; want failed, none sent", sec, err, len(f.requests()))
		}
	})
	t.Run("key missing or judge disabled: local", func(t *testing.T) {
		f := newJudgeFake(t, map[string]float64{})
		for cred, mode := range map[string]string{CredentialMissing: "missing_key", CredentialDisabled: "judge_disabled"} {
			w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
			w.Credential = func() string { return cred }
			if w.Mode() != mode {
				t.Fatalf("mode = %s, want %s", w.Mode(), mode)
			}
			if sec := mustWhisper(t, w, turn("r", ask)); sec.Outcome != "emitted" || !strings.Contains(sec.Body, `"deploy"`) || len(sec.Also) != 1 || sec.Also[0] != mode {
				t.Fatalf("%s: %+v, want deploy by similarity", cred, sec)
			}
		}
		if n := len(f.requests()); n != 0 {
			t.Fatalf("%d judge requests in local mode", n)
		}
	})
	t.Run("all three cooling: none judged", func(t *testing.T) {
		f := newJudgeFake(t, map[string]float64{"deploy": 0.9, "release": 0.9, "review": 0.9})
		w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
		for _, name := range []string{"deploy", "release", "review"} {
			args, _ := json.Marshal(map[string]string{"path": filepath.Join(root, name, "SKILL.md")})
			w.Observe(context.Background(), &whisper.Observation{AgentID: "a", SessionID: "s", Tool: "read", Args: args, OK: true})
		}
		if sec := mustWhisper(t, w, turn("r", ask)); sec.Outcome != "cooldown" || len(f.requests()) != 0 {
			t.Fatalf("= %+v after %d requests; want cooldown, none", sec, len(f.requests()))
		}
	})
}

// TestWhispererDeadline: a judge that answers after the deadline gives no
// hint, records nothing, and the next call names the skill afresh.
func TestWhispererDeadline(t *testing.T) {
	root := skillRoot(t)
	f := newJudgeFake(t, map[string]float64{"deploy": 0.9, "release": 0.1, "review": 0.1})
	f.delay = time.Minute // held until the request is cancelled
	w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), f.judge(t))
	w.deadline = 100 * time.Millisecond
	ask := "please ship the website to the staging server"
	sec, err := w.Whisper(context.Background(), turn("r1", ask))
	if err != nil || sec.Outcome != "timed_out" || sec.Body != "" {
		t.Fatalf("late judge = %+v, %v; want timed_out, no hint", sec, err)
	}
	f.mu.Lock()
	f.delay = 0
	f.mu.Unlock()
	w.deadline = 0 // the fixed Deadline
	if sec := mustWhisper(t, w, turn("r2", ask)); sec.Outcome != "emitted" || !strings.Contains(sec.Body, `"deploy"`) {
		t.Fatalf("next call = %+v, want deploy emitted (nothing recorded by the late one)", sec)
	}
	// A caller that cancels: cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if sec, err := w.Whisper(ctx, turn("r3", "review the pull request")); err != nil || sec.Outcome != "cancelled" {
		t.Fatalf("cancelled = %+v, %v", sec, err)
	}
}

func TestRenderEscapes(t *testing.T) {
	got := render(Skill{Name: "<b>x</b>", Path: "/skills/<x>/SKILL.md"})
	if strings.ContainsAny(got, "<>") || !strings.Contains(got, `\u003cb\u003ex\u003c/b\u003e`) {
		t.Fatalf("render = %s", got)
	}
}

// TestObserveArgs: a read names its file as path, file_path or filePath
// (C30 step 5), by any name of the file (a symlink to it counts); only a
// successful read of a SKILL.md counts.
func TestObserveArgs(t *testing.T) {
	root := skillRoot(t)
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(filepath.Join(root, "deploy"), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, tool, args string
		ok, opened       bool
	}{
		{"path", "read", `{"path": %q}`, true, true},
		{"file_path", "Read", `{"file_path": %q}`, true, true},
		{"filePath", "READ", `{"filePath": %q}`, true, true},
		{"failed read", "Read", `{"file_path": %q}`, false, false},
		{"another tool", "Edit", `{"file_path": %q}`, true, false},
		{"not an object", "Read", `[%q]`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), nil)
			mustWhisper(t, w, turn("r0", "zebra")) // turn 1, nothing named
			args := fmt.Sprintf(tc.args, filepath.Join(link, "SKILL.md"))
			w.Observe(context.Background(), &whisper.Observation{AgentID: "a", SessionID: "s", Tool: tc.tool, Args: json.RawMessage(args), OK: tc.ok})
			sec := mustWhisper(t, w, turn("r1", "please ship the website to the staging server"))
			if opened := sec.Outcome == "cooldown"; opened != tc.opened {
				t.Fatalf("after the read: %+v, want opened %v", sec, tc.opened)
			}
		})
	}
}

// TestLocalModeCounts: three turns of a session in local mode count as
// their outcomes (emitted, then cooldown twice) and the mode once, not
// missing_key on every turn.
func TestLocalModeCounts(t *testing.T) {
	root := skillRoot(t)
	w := NewWhisperer(NewIndex([]string{root}, &wordEmbedder{}), nil)
	w.CooldownTurns = 2
	stats := &whisper.Stats{}
	svc := whisper.NewService(stats, nil, w)
	defer svc.Close()
	for i := 1; i <= 3; i++ {
		tt := turn(fmt.Sprint("r", i), "please ship the website to the staging server")
		if _, err := svc.Whisper(context.Background(), tt); err != nil {
			t.Fatal(err)
		}
	}
	got := stats.OutcomesOf(turn("r", "").AgentID, whisper.KindSkill)
	if got["emitted"] != 1 || got["cooldown"] != 2 || got["missing_key"] != 1 {
		t.Errorf("outcomes %v, want emitted 1, cooldown 2, missing_key 1 (the session's mode)", got)
	}
}
