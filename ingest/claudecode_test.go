package ingest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// updateGolden rewrites the golden files of the transcript parsers:
// go test ./ingest/... -run 'Golden' -update
var updateGolden = goldenfile.Update // -update

const (
	ccFixtureRoot = "testdata/transcripts/claude-code"
	ccFixtureDir  = ccFixtureRoot + "/projects/-home-dev-acme-api"
	ccMainFixture = ccFixtureDir + "/7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f.jsonl"
	ccSubFixture  = ccFixtureDir + "/7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f/subagents/agent-a1b2c3d4e5f6a7b8.jsonl"
)

// ccParseFile parses one transcript of a source with its registered reader.
func ccParseFile(t testing.TB, source, path string) cairn.Session {
	t.Helper()
	r, ok := Reader(source)
	if !ok {
		t.Fatalf("no reader registered for %s", source)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := r.Parse(data, ParseOptions{Path: path})
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	if len(ss) != 1 {
		t.Fatalf("parse %s: %d sessions, want 1", path, len(ss))
	}
	return ss[0]
}

// ccCheckGolden compares the parsed sessions of every transcript a source
// finds under root with testdata/golden/<source>/<name>.json, where name is
// the file name without extensions; -update rewrites them.
func ccCheckGolden(t *testing.T, source, root string) {
	t.Helper()
	r, _ := Reader(source)
	paths, err := r.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("find %s: no transcripts", root)
	}
	for _, path := range paths {
		name := filepath.Base(path)
		name = name[:strings.Index(name, ".")]
		t.Run(name, func(t *testing.T) {
			s := ccParseFile(t, source, path)
			got, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", source, name+".json")
			if *updateGolden {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs from %s (-want +got):\n%s", path, golden, diff)
			}
		})
	}
}

func TestClaudeCodeGolden(t *testing.T) {
	ccCheckGolden(t, cairn.SourceClaudeCode, ccFixtureRoot)
}

// TestClaudeCodeExpected checks the expected results of spec §1.6.
func TestClaudeCodeExpected(t *testing.T) {
	s := ccParseFile(t, cairn.SourceClaudeCode, ccMainFixture)

	var prompts, summaries []cairn.Message
	var merged []cairn.Message
	for _, m := range s.Messages {
		switch {
		case m.Role == cairn.RoleUser && m.Kind == cairn.KindText:
			prompts = append(prompts, m)
		case m.Kind == cairn.KindSummary:
			summaries = append(summaries, m)
		case m.ID == "a2000000-0000-4000-8000-000000000002" || m.ID == "a3000000-0000-4000-8000-000000000003":
			merged = append(merged, m)
		}
	}
	// 2 human prompts: lines 3 and 14.
	wantPrompts := []string{"a1000000-0000-4000-8000-000000000001", "c9d0e1f2-0000-4000-8000-00000000000d"}
	if len(prompts) != 2 || prompts[0].ID != wantPrompts[0] || prompts[1].ID != wantPrompts[1] {
		t.Errorf("human prompts = %+v, want lines 3 and 14 (%v)", prompts, wantPrompts)
	}
	if len(prompts) == 2 && prompts[1].Text != "also check the refresh-token test" {
		t.Errorf("second prompt = %q", prompts[1].Text)
	}
	// Line 13 is a compact summary, kept once, with role user but never a prompt.
	if len(summaries) != 1 || summaries[0].ID != "c9d0e1f2-0000-4000-8000-00000000000c" || summaries[0].Role != cairn.RoleUser {
		t.Errorf("summaries = %+v, want line 13 only", summaries)
	}
	// msg_01FixtureAAAA (lines 4 and 5, thinking + tool_use) is one assistant turn
	// without the thinking, and carries the paired tool result of line 6.
	if len(merged) != 1 {
		t.Fatalf("msg_01FixtureAAAA makes %d messages, want 1", len(merged))
	}
	m := merged[0]
	if m.Role != cairn.RoleAssistant || m.Text != "" || strings.Contains(m.Text, "smells") || len(m.Tools) != 1 {
		t.Errorf("merged turn = %+v, want one tool call and no text", m)
	} else {
		tc := m.Tools[0]
		want := cairn.ToolCall{ID: "toolu_01FixtureBash", Name: "Bash", Input: `{"command":"go test ./tests -run TestLogin -count=10"}`}
		if tc.ID != want.ID || tc.Name != want.Name || tc.Input != want.Input || tc.IsError ||
			!strings.HasPrefix(tc.Output, "--- FAIL: TestLogin") {
			t.Errorf("tool call = %+v, want %+v with the line 6 output", tc, want)
		}
	}
	// Lines 6 and 8 are tool results: no user message holds their text.
	for _, m := range s.Messages {
		if m.Role == cairn.RoleUser && (strings.Contains(m.Text, "FAIL") || strings.Contains(m.Text, "TTL is 1s")) {
			t.Errorf("tool result became a user message: %+v", m)
		}
	}
	// The Task call carries the sub-agent's answer (line 8, toolUseResult.agentId).
	var task *cairn.ToolCall
	for i := range s.Messages {
		for j := range s.Messages[i].Tools {
			if s.Messages[i].Tools[j].ID == "toolu_01FixtureTask" {
				task = &s.Messages[i].Tools[j]
			}
		}
	}
	if task == nil || task.Name != "Task" || !strings.HasPrefix(task.Output, "TTL is 1s") {
		t.Errorf("Task call = %+v", task)
	}
	// Title: ai-title beats summary.
	if s.Title != "Fix flaky login test TTL" {
		t.Errorf("title = %q", s.Title)
	}
	want := cairn.Session{
		Source: cairn.SourceClaudeCode, ID: "7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f", Provider: "claude-code",
		ConversationID: "/home/dev/acme-api", Cwd: "/home/dev/acme-api", GitBranch: "main",
		StartedAtRaw: "2026-05-04T09:15:02.120Z",
	}
	got := cairn.Session{
		Source: s.Source, ID: s.ID, Provider: s.Provider, ConversationID: s.ConversationID,
		Cwd: s.Cwd, GitBranch: s.GitBranch, StartedAtRaw: s.StartedAtRaw,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session metadata (-want +got):\n%s", diff)
	}
	if s.StartedAt.Format("2006-01-02T15:04:05.000Z07:00") != "2026-05-04T09:15:02.120Z" {
		t.Errorf("StartedAt = %v", s.StartedAt)
	}
	if s.Stats.Lines != 16 || len(s.Stats.Skipped) != 0 {
		t.Errorf("stats = %+v, want 16 lines and nothing skipped", s.Stats)
	}
}

// TestClaudeCodeSubagent checks the sub-agent link of spec §1.6.
func TestClaudeCodeSubagent(t *testing.T) {
	s := ccParseFile(t, cairn.SourceClaudeCode, ccSubFixture)
	if s.ID != "agent-a1b2c3d4e5f6a7b8" || s.AgentID != "a1b2c3d4e5f6a7b8" ||
		s.ParentID != "7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f" || s.ParentToolID != "toolu_01FixtureTask" {
		t.Errorf("sub-agent ids = ID %q AgentID %q ParentID %q ParentToolID %q", s.ID, s.AgentID, s.ParentID, s.ParentToolID)
	}
	if len(s.Messages) != 3 {
		t.Fatalf("%d messages, want 3 (prompt, grep call, answer)", len(s.Messages))
	}
	for _, m := range s.Messages {
		if !m.Sidechain {
			t.Errorf("message %s not marked sidechain", m.ID)
		}
	}
	if s.Title != "Find token TTL config" {
		t.Errorf("title = %q, want the meta description", s.Title)
	}
	// Without the meta file the session still parses; the tool link is unknown.
	dir := t.TempDir()
	path := filepath.Join(dir, "agent-a1b2c3d4e5f6a7b8.jsonl")
	data, _ := os.ReadFile(ccSubFixture)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s = ccParseFile(t, cairn.SourceClaudeCode, path)
	if s.ParentToolID != "" || s.ParentID == "" || len(s.Messages) != 3 {
		t.Errorf("without meta: ParentToolID %q ParentID %q, %d messages", s.ParentToolID, s.ParentID, len(s.Messages))
	}
}

func TestClaudeCodeFind(t *testing.T) {
	got, err := ccFind(ccFixtureRoot)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{ccMainFixture, ccSubFixture}, got); diff != "" {
		t.Errorf("fixtures (-want +got):\n%s", diff)
	}

	root := t.TempDir()
	files := []string{
		"projects/-home-a/s1.jsonl",
		"projects/-home-a/agent-0a1b2c3d.jsonl",
		"projects/-home-a/s1/subagents/agent-ff00.jsonl",
		"projects/-home-a/s1/subagents/agent-ff00.meta.json",
		"projects/-home-a/s1/tool-results/x.jsonl",
		"projects/-home-a/sessions-index.json",
		"projects/-home-x-claude-mem-observer-sessions/s2.jsonl",
		"history.jsonl",
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
	got, err = ccFind(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(root, "projects/-home-a/agent-0a1b2c3d.jsonl"),
		filepath.Join(root, "projects/-home-a/s1.jsonl"),
		filepath.Join(root, "projects/-home-a/s1/subagents/agent-ff00.jsonl"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("find (-want +got):\n%s", diff)
	}
	if got, err := ccFind(filepath.Join(root, "missing")); err != nil || len(got) != 0 {
		t.Errorf("missing root: %v, %v", got, err)
	}
}

// ccLine builds one transcript line from a JSON object literal with
// defaults for the envelope.
func ccLine(fields string) string {
	return `{"sessionId":"s1","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z",` + fields + "}\n"
}

func TestClaudeCodeTree(t *testing.T) {
	user := func(uuid, parent, text string) string {
		return ccLine(`"type":"user","uuid":"` + uuid + `","parentUuid":` + parent + `,"message":{"role":"user","content":"` + text + `"}`)
	}
	asst := func(uuid, parent, id, req, text string, side bool) string {
		sc := ""
		if side {
			sc = `"isSidechain":true,`
		}
		return ccLine(sc + `"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","requestId":"` + req +
			`","message":{"id":"` + id + `","role":"assistant","content":[{"type":"text","text":"` + text + `"}]}`)
	}
	tests := []struct {
		name      string
		lines     []string
		wantTexts []string
		wantDedup int
	}{
		{
			name: "rewind keeps the newest branch",
			lines: []string{
				user("u1", "null", "first"),
				asst("a1", "u1", "m1", "r1", "answer one", false),
				user("u2", `"a1"`, "abandoned"),
				asst("a2", "u2", "m2", "r2", "abandoned answer", false),
				user("u3", `"a1"`, "edited"),
				asst("a3", "u3", "m3", "r3", "new answer", false),
			},
			wantTexts: []string{"first", "answer one", "edited", "new answer"},
		},
		{
			name: "split lines merge by message id",
			lines: []string{
				user("u1", "null", "go"),
				asst("a1", "u1", "m1", "r1", "part one", false),
				asst("a2", "a1", "m1", "r1", "part two", false),
			},
			wantTexts: []string{"go", "part one\npart two"},
		},
		{
			name: "btw replay with another request id is dropped",
			lines: []string{
				user("u1", "null", "go"),
				asst("a1", "u1", "m1", "r1", "answer", false),
				asst("b1", "a1", "m1", "r9", "answer", true),
				user("u2", `"a1"`, "next"),
			},
			wantTexts: []string{"go", "answer", "next"},
			wantDedup: 1,
		},
		{
			name: "repeated uuid counted once",
			lines: []string{
				user("u1", "null", "go"),
				user("u1", "null", "go"),
			},
			wantTexts: []string{"go"},
			wantDedup: 1,
		},
		{
			name: "harness user lines are not prompts",
			lines: []string{
				user("u1", "null", "<command-name>/clear</command-name>"),
				user("u2", `"u1"`, "<local-command-stdout></local-command-stdout>"),
				user("u3", `"u2"`, "Caveat: The messages below were generated"),
				user("u4", `"u3"`, "[Request interrupted by user]"),
				user("u5", `"u4"`, "<system-reminder>x</system-reminder>"),
				user("u6", `"u5"`, "<task-notification>done</task-notification>"),
				ccLine(`"type":"user","uuid":"u7","parentUuid":"u6","isMeta":true,"message":{"role":"user","content":"skill body"}`),
				user("u8", `"u7"`, "real prompt"),
			},
			wantTexts: []string{"real prompt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := ccParse([]byte(strings.Join(tt.lines, "")), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, m := range ss[0].Messages {
				texts = append(texts, m.Text)
			}
			if diff := cmp.Diff(tt.wantTexts, texts); diff != "" {
				t.Errorf("texts (-want +got):\n%s", diff)
			}
			if ss[0].Stats.Deduplicated != tt.wantDedup {
				t.Errorf("deduplicated = %d, want %d", ss[0].Stats.Deduplicated, tt.wantDedup)
			}
		})
	}
}

func TestClaudeCodeToolError(t *testing.T) {
	data := ccLine(`"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"run it"}`) +
		ccLine(`"type":"assistant","uuid":"a1","parentUuid":"u1","requestId":"r1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Running."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"false"}}]}`) +
		ccLine(`"type":"user","uuid":"u2","parentUuid":"a1","sourceToolAssistantUUID":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"exit 1"},{"type":"image","source":{}}]}]}`) +
		ccLine(`"type":"assistant","uuid":"a2","parentUuid":"u2","requestId":"r2","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/x"}}]}`)
	ss, _ := ccParse([]byte(data), ParseOptions{})
	want := []cairn.Message{
		{ID: "u1", Role: "user", Kind: "text", Text: "run it"},
		{ID: "a1", Role: "assistant", Kind: "text", Text: "Running.", Tools: []cairn.ToolCall{
			{ID: "t1", Name: "Bash", Input: `{"command":"false"}`, Output: "exit 1", IsError: true}}},
		{ID: "a2", Role: "assistant", Kind: "text", Tools: []cairn.ToolCall{
			{ID: "t2", Name: "Read", Input: `{"file_path":"/x"}`}}}, // resumed: no result yet
	}
	for i := range ss[0].Messages {
		ss[0].Messages[i].Time, ss[0].Messages[i].TimeRaw = time.Time{}, ""
	}
	if diff := cmp.Diff(want, ss[0].Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestClaudeCodeTitlePrecedence(t *testing.T) {
	base := `{"type":"summary","summary":"from summary","leafUuid":"x"}` + "\n" +
		`{"type":"ai-title","aiTitle":"ai one","sessionId":"s1"}` + "\n" +
		`{"type":"ai-title","aiTitle":"ai two","sessionId":"s1"}` + "\n"
	tests := []struct{ name, data, want string }{
		{"summary only", `{"type":"summary","summary":"from summary","leafUuid":"x"}` + "\n", "from summary"},
		{"last ai-title beats summary", base, "ai two"},
		{"custom-title beats ai-title", base + `{"type":"custom-title","customTitle":"mine","sessionId":"s1"}` + "\n", "mine"},
		{"agent-name beats ai-title", `{"type":"agent-name","agentName":"bot","sessionId":"s1"}` + "\n" + base, "bot"},
	}
	for _, tt := range tests {
		ss, _ := ccParse([]byte(tt.data), ParseOptions{})
		if ss[0].Title != tt.want {
			t.Errorf("%s: title = %q, want %q", tt.name, ss[0].Title, tt.want)
		}
	}
}

// TestClaudeCodeMalformed checks that bad input is counted and the rest read.
func TestClaudeCodeMalformed(t *testing.T) {
	good := ccLine(`"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hello"}`)
	good2 := ccLine(`"type":"user","uuid":"u2","parentUuid":"u1","message":{"role":"user","content":"again"}`)
	tests := []struct {
		name        string
		data        string
		wantTexts   int
		wantSkipped map[string]int
		wantPartial bool
		wantLines   int
	}{
		{"empty file", "", 0, nil, false, 0},
		{"blank lines", "\n\n  \n", 0, nil, false, 0},
		{"broken line in the middle", good + "{not json\n" + good2, 2, map[string]int{"malformed json": 1}, false, 3},
		{"half-written last line", good + good2[:20], 1, nil, true, 1},
		{"complete last line without newline", good + strings.TrimSuffix(good2, "\n"), 2, nil, false, 2},
		{"unknown record type", good + `{"type":"hologram","uuid":"h"}` + "\n" + good2, 2, map[string]int{"unknown type: hologram": 1}, false, 3},
		{"wrong field shape", good + `{"type":"user","uuid":7}` + "\n" + good2, 2, map[string]int{"malformed record": 1}, false, 3},
		{"not an object", good + "[1,2]\n" + good2, 2, map[string]int{"malformed record": 1}, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := ccParse([]byte(tt.data), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := ss[0]
			if len(s.Messages) != tt.wantTexts {
				t.Errorf("%d messages, want %d", len(s.Messages), tt.wantTexts)
			}
			if diff := cmp.Diff(tt.wantSkipped, s.Stats.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if s.Stats.PartialTail != tt.wantPartial || s.Stats.Lines != tt.wantLines {
				t.Errorf("stats = %+v, want partial %v, %d lines", s.Stats, tt.wantPartial, tt.wantLines)
			}
			if tt.wantPartial && s.Stats.ConsumedBytes != int64(len(good)) {
				t.Errorf("consumed %d bytes, want %d", s.Stats.ConsumedBytes, len(good))
			}
		})
	}
}

func TestClaudeCodeToolInput(t *testing.T) {
	long := strings.Repeat("x", 500)
	tests := []struct{ name, input, want string }{
		{"Bash", `{"command":"ls -la","description":"list"}`, `{"command":"ls -la"}`},
		{"Edit", `{"file_path":"/a.go","old_string":"a","new_string":"b"}`, `{"file_path":"/a.go"}`},
		{"Grep", `{"pattern":"x<y","path":"/w"}`, `{"path":"/w","pattern":"x<y"}`},
		{"mcp__thing", `{"q":"` + long + `"}`, `{"q":"` + long[:ccMaxArg] + `…"}`},
		{"Bash", `{"timeout":5}`, `{"timeout":5}`},
		{"Bash", `"raw"`, `raw`},
		{"Bash", ``, ``},
	}
	for _, tt := range tests {
		if got := ccToolInput(tt.name, json.RawMessage(tt.input)); got != tt.want {
			t.Errorf("ccToolInput(%s, %s) = %s, want %s", tt.name, tt.input, got, tt.want)
		}
	}
}

func FuzzParseClaudeCode(f *testing.F) {
	for _, p := range []string{ccMainFixture, ccSubFixture} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(bytes.Join(lines[len(lines)/2:], nil))
	}
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","uuid":"a","parentUuid":null,"logicalParentUuid":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := ccParse(data, ParseOptions{})
		if err != nil || len(ss) != 1 {
			t.Fatalf("parse: %d sessions, %v", len(ss), err)
		}
		if ss[0].Stats.ConsumedBytes > int64(len(data)) {
			t.Fatalf("consumed %d of %d bytes", ss[0].Stats.ConsumedBytes, len(data))
		}
	})
}
