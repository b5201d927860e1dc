package ingest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/google/go-cmp/cmp"
)

var ocUpdateGolden = goldenfile.Update // -update

const ocFixtureRoot = "testdata/transcripts/openclaw"

// ocGolden compares v, as indented JSON, with testdata/golden/openclaw/name,
// rewriting it under -update.
func ocGolden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", "openclaw", name)
	if *ocUpdateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

func ocParseFixture(t *testing.T) cairn.Session {
	t.Helper()
	paths, err := FindOpenClaw(ocFixtureRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || !strings.HasSuffix(paths[0], "6a1f0c2e-9d8b-4c7a-8e6f-5d4c3b2a1f0e.jsonl") {
		t.Fatalf("FindOpenClaw = %q, want the two fixture transcripts", paths)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	r, ok := Reader(cairn.SourceOpenClaw)
	if !ok {
		t.Fatal("openclaw reader not registered")
	}
	sessions, err := r.Parse(data, ParseOptions{Path: paths[0]})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("Parse = %d sessions, %v", len(sessions), err)
	}
	return sessions[0]
}

// TestOpenClawFixture asserts the expected results of spec §3.8.
func TestOpenClawFixture(t *testing.T) {
	s := ocParseFixture(t)
	var texts []string
	var summaries int
	for _, m := range s.Messages {
		if m.Kind == cairn.KindSummary {
			summaries++
			continue
		}
		texts = append(texts, m.Role+": "+m.Text)
	}
	wantTexts := []string{
		"user: what did we decide about the garden fence?",
		"assistant: On 2 March we settled on cedar boards, 1.8 m high, installed in June.",
	}
	if d := cmp.Diff(wantTexts, texts); d != "" {
		t.Errorf("projected messages (-want +got):\n%s", d)
	}
	if summaries != 1 {
		t.Errorf("summaries = %d, want 1", summaries)
	}
	if s.Messages[0].Speaker != "Dana" {
		t.Errorf("user speaker = %q, want Dana", s.Messages[0].Speaker)
	}
	if s.Stats.Skipped["event custom"] != 1 || s.Stats.Skipped["no text"] != 1 {
		t.Errorf("skipped = %v, want one custom event and one textless assistant message", s.Stats.Skipped)
	}
	meta := []string{s.ID, s.AgentID, s.Provider, s.ChatType, s.AccountID, s.ConversationID, s.StartedAtRaw}
	wantMeta := []string{"6a1f0c2e-9d8b-4c7a-8e6f-5d4c3b2a1f0e", "main", "telegram", "direct", "default", "5550001", "2026-03-16T09:40:02.100Z"}
	if d := cmp.Diff(wantMeta, meta); d != "" {
		t.Errorf("metadata (-want +got):\n%s", d)
	}
	ocGolden(t, "6a1f0c2e-9d8b-4c7a-8e6f-5d4c3b2a1f0e.json", s)
}

// ocLines builds a v4 transcript: the header, then events.
func ocLines(events ...string) []byte {
	lines := append([]string{`{"type":"session","version":4,"id":"s1","timestamp":"2026-05-04T10:00:00.000Z","cwd":"/w"}`}, events...)
	return []byte(strings.Join(lines, "\n") + "\n")
}

func ocUser(id, parent, text string) string {
	b, _ := json.Marshal(map[string]any{"type": "message", "id": id, "parentId": ocParent(parent),
		"timestamp": "2026-05-04T10:00:01.000Z", "message": map[string]any{"role": "user", "content": text}})
	return string(b)
}

func ocAssistant(id, parent string, content ...any) string {
	b, _ := json.Marshal(map[string]any{"type": "message", "id": id, "parentId": ocParent(parent),
		"timestamp": "2026-05-04T10:00:02.000Z", "message": map[string]any{"role": "assistant", "content": content, "model": "m1"}})
	return string(b)
}

func ocParent(p string) any {
	if p == "" {
		return nil
	}
	return p
}

func ocParse(t *testing.T, data []byte) cairn.Session {
	t.Helper()
	ss, err := ParseOpenClaw(data, ParseOptions{Path: "/nowhere/agents/a1/sessions/s1.jsonl"})
	if err != nil || len(ss) != 1 {
		t.Fatalf("ParseOpenClaw = %d sessions, %v", len(ss), err)
	}
	return ss[0]
}

func ocTexts(s cairn.Session) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Speaker+"|"+m.Text)
	}
	return out
}

func TestOpenClawEnvelope(t *testing.T) {
	fence := "```json\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"plain", "hello", "|hello"},
		{"time prefix", "[Mon 2026-05-04 09:46 UTC] hello", "|hello"},
		{"marker block", "Conversation info: ⟦openclaw:ctx⟧\n" + fence + `{"sender":{"id":"42","name":"Ann"}}` + "\n```\n\nhi there", "Ann|hi there"},
		{"two blocks, prefix, From line", "Conversation info: ⟦openclaw:ctx⟧\n" + fence + `{"sender":{"id":7,"username":"bob"}}` + "\n```\nReply chain of current user message (nearest first): ⟦openclaw:ctx⟧\n" + fence + `{"sender":{"name":"Quoted"}}` + "\n```\n\n[Tue 2026-05-05 10:40 CET] From: bob\nthe body", "bob|the body"},
		{"legacy label", "Sender (untrusted metadata):\n" + fence + `{"label":"Eve","id":"9"}` + "\n```\nhey", "Eve|hey"},
		{"unclosed fence kept", "Conversation info: ⟦openclaw:ctx⟧\n" + fence + `{"sender":{"name":"X"}}` + "\nno close", "|Conversation info: ⟦openclaw:ctx⟧\n" + fence + `{"sender":{"name":"X"}}` + "\nno close"},
		{"From kept without speaker", "From: someone\nbody", "|From: someone\nbody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ocParse(t, ocLines(ocUser("u1", "", tc.text)))
			if got := ocTexts(s); len(got) != 1 || got[0] != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOpenClawSpeakerFields(t *testing.T) {
	ev := `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-04T10:00:01Z","message":{"role":"user","content":"From: Zed\nyo","senderLabel":"Zed Label","senderId":"77"}}`
	if got := ocTexts(ocParse(t, ocLines(ev))); got[0] != "Zed Label|yo" {
		t.Errorf("got %q", got)
	}
	ev = `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-04T10:00:01Z","message":{"role":"user","content":"yo","senderName":"Own","__openclaw":{"senderName":"Meta\nName"}}}`
	if got := ocTexts(ocParse(t, ocLines(ev))); got[0] != "Meta Name|yo" {
		t.Errorf("got %q", got)
	}
}

func TestOpenClawDrops(t *testing.T) {
	for _, tc := range []struct {
		role, text, reason string
	}{
		{"user", "HEARTBEAT_OK", "heartbeat"},
		{"assistant", " HEARTBEAT_OK\n", "heartbeat"},
		{"assistant", "NO_REPLY", "no reply"},
		{"user", "[OpenClaw heartbeat poll] read HEARTBEAT.md", "heartbeat poll"},
		{"user", "[Queued messages while agent was busy]\n1. a", "queued messages"},
		{"user", "[Subagent Context] you are a helper", "subagent context"},
		{"user", "[Mon 2026-05-04 09:46 UTC] <relevant-memories>x</relevant-memories>", "relevant memories"},
		{"user", "   ", "no text"},
	} {
		ev := ocUser("m1", "", tc.text)
		if tc.role == "assistant" {
			ev = ocAssistant("m1", "", map[string]any{"type": "text", "text": tc.text})
		}
		s := ocParse(t, ocLines(ev))
		if len(s.Messages) != 0 || s.Stats.Skipped[tc.reason] != 1 {
			t.Errorf("%s %q: messages %v, skipped %v, want dropped as %q", tc.role, tc.text, ocTexts(s), s.Stats.Skipped, tc.reason)
		}
	}
	s := ocParse(t, ocLines(ocUser("m1", "", "NO_REPLY")))
	if len(s.Messages) != 1 {
		t.Errorf("user NO_REPLY dropped; only the assistant's is noise")
	}
}

func TestOpenClawBranchAndTools(t *testing.T) {
	data := ocLines(
		ocUser("u1", "", "question"),
		ocAssistant("a1", "u1", map[string]any{"type": "text", "text": "abandoned answer"}),
		ocAssistant("a2", "u1",
			map[string]any{"type": "thinking", "thinking": "hmm"},
			map[string]any{"type": "text", "text": "let me look"},
			map[string]any{"type": "toolCall", "id": "t1", "name": "read", "arguments": map[string]any{"path": "/x", "n": 1}},
			map[string]any{"type": "toolCall", "id": "t2", "name": "exec", "arguments": "ls"}),
		`{"type":"message","id":"r1","parentId":"a2","timestamp":"2026-05-04T10:00:03Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":"file body","isError":true}}`,
		`{"type":"message","id":"r9","parentId":"r1","timestamp":"2026-05-04T10:00:03Z","message":{"role":"toolResult","toolCallId":"nope","content":[{"type":"text","text":"x"}]}}`,
		`{"type":"branch_summary","id":"b1","parentId":"r9","timestamp":"2026-05-04T10:00:04Z","fromId":"a1","summary":"tried a shorter answer"}`,
		`{"type":"session_info","id":"i1","parentId":"b1","timestamp":"2026-05-04T10:00:05Z","name":"Fence talk"}`,
		ocUser("u1", "", "replayed duplicate"),
		"not json at all",
	)
	s := ocParse(t, data)
	want := []string{"|question", "|let me look", "|tried a shorter answer"}
	if d := cmp.Diff(want, ocTexts(s)); d != "" {
		t.Errorf("active branch (-want +got):\n%s", d)
	}
	wantTools := []cairn.ToolCall{
		{ID: "t1", Name: "read", Input: `{"n":1,"path":"/x"}`, Output: "file body", IsError: true},
		{ID: "t2", Name: "exec", Input: "ls"},
	}
	if d := cmp.Diff(wantTools, s.Messages[1].Tools); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if s.Messages[2].Kind != cairn.KindSummary || s.Title != "Fence talk" || s.Messages[1].Model != "m1" {
		t.Errorf("summary kind %q, title %q, model %q", s.Messages[2].Kind, s.Title, s.Messages[1].Model)
	}
	wantSkips := map[string]int{"inactive branch": 1, "orphan tool result": 1, "event session_info": 1, "malformed JSON": 1}
	if d := cmp.Diff(wantSkips, s.Stats.Skipped); d != "" || s.Stats.Deduplicated != 1 {
		t.Errorf("skipped (-want +got):\n%s; deduplicated %d", d, s.Stats.Deduplicated)
	}
	if s.ID != "s1" || s.AgentID != "a1" || s.Cwd != "/w" {
		t.Errorf("id %q agent %q cwd %q", s.ID, s.AgentID, s.Cwd)
	}

	// A materialized active branch wins over the parentId walk.
	s, err := OpenClawSession(cairn.Session{ID: "s1"}, []OpenClawEvent{
		{Seq: 1, JSON: []byte(ocUser("u1", "", "question"))},
		{Seq: 2, JSON: []byte(ocAssistant("a1", "u1", map[string]any{"type": "text", "text": "kept"}))},
		{Seq: 3, JSON: []byte(ocAssistant("a2", "u1", map[string]any{"type": "text", "text": "newest"}))},
	}, []int64{1, 2})
	if err != nil || cmp.Diff([]string{"|question", "|kept"}, ocTexts(s)) != "" {
		t.Errorf("materialized branch: %q, %v", ocTexts(s), err)
	}
}

func TestOpenClawTimes(t *testing.T) {
	ev := `{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"a","timestamp":1777900001000}}`
	s := ocParse(t, ocLines(ev, `{"type":"message","id":"u2","parentId":"u1","message":{"role":"user","content":"b"}}`))
	if s.Messages[0].TimeRaw != "1777900001000" || s.Messages[0].Time.UnixMilli() != 1777900001000 {
		t.Errorf("message-ms time: %q %v", s.Messages[0].TimeRaw, s.Messages[0].Time)
	}
	// A message without a time of its own has none (not the session start).
	if s.Messages[1].TimeRaw != "" || !s.Messages[1].Time.IsZero() {
		t.Errorf("untimed message: %q %v, want no time", s.Messages[1].TimeRaw, s.Messages[1].Time)
	}
}

// TestOpenClawMalformedEventSkipped: a malformed event among good ones is
// skipped and counted, and the rest of the transcript is read (issue 13
// item 7; these lines used to fail the whole file). When its id and parent
// still decode, the event keeps linking the branch: the message after it,
// whose parent it is, still reaches the first message.
func TestOpenClawMalformedEventSkipped(t *testing.T) {
	for _, tc := range []struct {
		name, line, parentOfNext string
	}{
		{"unknown block", ocAssistant("x", "u1", map[string]any{"type": "audio"}), "x"},
		{"user content object", `{"type":"message","id":"x","parentId":"u1","message":{"role":"user","content":{"text":"x"}}}`, "x"},
		{"text not string", `{"type":"message","id":"x","parentId":"u1","message":{"role":"user","content":[{"type":"text","text":5}]}}`, "x"},
		{"message string", `{"type":"message","id":"x","parentId":"u1","message":"hi"}`, "x"},
		{"parentId number", `{"type":"message","id":"x","parentId":3}`, "u1"},
		{"array event", `[1,2]`, "u1"},
	} {
		ss, err := ParseOpenClaw(ocLines(ocUser("u1", "", "first question"), tc.line, ocUser("u2", tc.parentOfNext, "second question")),
			ParseOptions{Path: "x/s1.jsonl"})
		if err != nil || len(ss) != 1 {
			t.Errorf("%s: ParseOpenClaw = %d sessions, %v; want the session read", tc.name, len(ss), err)
			continue
		}
		if d := cmp.Diff([]string{"|first question", "|second question"}, ocTexts(ss[0])); d != "" {
			t.Errorf("%s: messages (-want +got):\n%s", tc.name, d)
		}
		if d := cmp.Diff(map[string]int{"malformed event": 1}, ss[0].Stats.Skipped); d != "" {
			t.Errorf("%s: skipped (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestOpenClawFixtureOneMalformedLine reads a fixture transcript whose third
// event holds an unknown content block: the other messages are projected.
func TestOpenClawFixtureOneMalformedLine(t *testing.T) {
	data, err := os.ReadFile("testdata/openclaw-one-malformed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := ocParse(t, data)
	want := []string{"|what did we decide about the garden fence?", "|Cedar boards, stained dark.", "|and the gate?", "|A matching cedar gate."}
	if d := cmp.Diff(want, ocTexts(s)); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if s.Stats.Skipped["malformed event"] != 1 || s.Stats.Lines != 6 {
		t.Errorf("stats = %+v, want 6 lines with 1 malformed event skipped", s.Stats)
	}
}

func TestOpenClawFatal(t *testing.T) {
	_, err := ParseOpenClaw([]byte(`{"type":"session","version":2,"id":"old"}`+"\n"), ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), "unsupported session version 2") {
		t.Errorf("v2 header: %v", err)
	}
	// Unknown blocks in tool results and unknown roles or event types are not fatal.
	s := ocParse(t, ocLines(
		`{"type":"message","id":"r1","parentId":null,"message":{"role":"toolResult","toolCallId":"t","content":[{"type":"audio"},7]}}`,
		`{"type":"message","id":"c1","parentId":"r1","message":{"role":"bashExecution","command":"ls","output":{}}}`,
		`{"type":"future_thing","id":"f1","parentId":"c1","payload":[1]}`))
	want := map[string]int{"orphan tool result": 1, "message role bashExecution": 1, "unknown event type": 1}
	if d := cmp.Diff(want, s.Stats.Skipped); d != "" {
		t.Errorf("lenient skips (-want +got):\n%s", d)
	}
}

func TestOpenClawPartialTail(t *testing.T) {
	data := append(ocLines(ocUser("u1", "", "hi")), `{"type":"message","id":"u2"`...)
	s := ocParse(t, data)
	if !s.Stats.PartialTail || len(s.Messages) != 1 || s.Stats.ConsumedBytes != int64(len(data)-len(`{"type":"message","id":"u2"`)) {
		t.Errorf("partial tail %v, messages %d, consumed %d", s.Stats.PartialTail, len(s.Messages), s.Stats.ConsumedBytes)
	}
	if ss, err := ParseOpenClaw([]byte(`{"type":"sess`), ParseOptions{}); err != nil || len(ss) != 0 {
		t.Errorf("half-written header: %v, %v", ss, err)
	}
}

func TestFindOpenClaw(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"agents/main/sessions/a.jsonl",
		"agents/main/sessions/a.jsonl.reset.2026-05-01T00-00-00Z", // live file exists: skipped
		"agents/main/sessions/b.jsonl.deleted.1777000000000",      // live file gone: read
		"agents/main/sessions/sessions.json",
		"agents/main/sessions/cold/c.jsonl.zst",
		"agents/work/sessions/c-topic-9.jsonl",
		"agents/work/agent/openclaw-agent.sqlite",
		"sessions/legacy.jsonl",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FindOpenClaw(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(root, "agents/main/sessions/a.jsonl"),
		filepath.Join(root, "agents/main/sessions/b.jsonl.deleted.1777000000000"),
		filepath.Join(root, "agents/work/sessions/c-topic-9.jsonl"),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FindOpenClaw (-want +got):\n%s", d)
	}
	dbs, err := OpenClawDBPaths(root)
	if err != nil || len(dbs) != 1 || filepath.Base(dbs[0]) != OpenClawDBName {
		t.Errorf("OpenClawDBPaths = %q, %v", dbs, err)
	}
	if got, err := FindOpenClaw(filepath.Join(root, "missing")); err != nil || len(got) != 0 {
		t.Errorf("missing root: %q, %v", got, err)
	}
}

func TestOpenClawTopicAndArchiveIDs(t *testing.T) {
	data := ocLines(ocUser("u1", "", "hi"))
	for path, want := range map[string]string{
		"/x/agents/m/sessions/s1-topic-42.jsonl":             "s1-topic-42",
		"/x/agents/m/sessions/s1.jsonl.reset.2026-05-01T00Z": "s1",
	} {
		ss, err := ParseOpenClaw(data, ParseOptions{Path: path})
		if err != nil || len(ss) != 1 || ss[0].ID != want {
			t.Errorf("%s: %v %v, want id %q", path, ss, err, want)
		}
	}
}

func FuzzParseOpenClaw(f *testing.F) {
	if fixture, err := os.ReadFile(filepath.Join(ocFixtureRoot, "agents/main/sessions/6a1f0c2e-9d8b-4c7a-8e6f-5d4c3b2a1f0e.jsonl")); err == nil {
		f.Add(fixture)
	}
	f.Add(ocLines(ocUser("u1", "", "Conversation info: ⟦openclaw:ctx⟧\n```json\n{\"sender\":{\"name\":\"A\"}}\n```\nFrom: A\nx")))
	f.Add(ocLines(ocAssistant("a1", "", map[string]any{"type": "toolCall", "id": "t", "arguments": []int{1}})))
	f.Add([]byte(`{"type":"message","id":"a","parentId":"a"}` + "\n" + `{"type":"message","id":"b","parentId":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := ParseOpenClaw(data, ParseOptions{Path: "/f/agents/m/sessions/s.jsonl"})
		if err != nil {
			var ee *OpenClawEventError
			if !errors.As(err, &ee) {
				t.Fatalf("error is not an *OpenClawEventError: %v", err)
			}
			return
		}
		for _, s := range ss {
			if s.Stats.ConsumedBytes > int64(len(data)) {
				t.Fatalf("consumed %d of %d bytes", s.Stats.ConsumedBytes, len(data))
			}
			for _, m := range s.Messages {
				if strings.TrimSpace(m.Text) == "" || m.Role != cairn.RoleUser && m.Role != cairn.RoleAssistant {
					t.Fatalf("bad message %+v", m)
				}
			}
		}
	})
}
