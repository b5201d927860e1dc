package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
)

const (
	codexFixtureRoot = "testdata/transcripts/codex"
	codexWrappedFile = codexFixtureRoot + "/sessions/2026/05/04/rollout-2026-05-04T11-15-02-019e9b2c-3d4e-7f50-8a61-b2c3d4e5f607.jsonl"
	codexBareFile    = codexFixtureRoot + "/sessions/2025/08/18/rollout-2025-08-18T10-02-11-5b1e7c2d-8f3a-4b6c-9d0e-1f2a3b4c5d6e.jsonl"
)

func TestCodexGolden(t *testing.T) {
	ccCheckGolden(t, cairn.SourceCodex, codexFixtureRoot)
}

// codexTexts lists "role/kind: text" per message.
func codexTexts(s cairn.Session) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Role+"/"+m.Kind+": "+m.Text)
	}
	return out
}

// TestCodexExpectedWrapped checks the expected results of spec §2.6 for the
// wrapped-era fixture.
func TestCodexExpectedWrapped(t *testing.T) {
	s := ccParseFile(t, cairn.SourceCodex, codexWrappedFile)
	const answer = "CI sets TZ=America/Los_Angeles, and the test built its expiry from local time. I switched it to UTC."
	// One prompt (lines 6 and 7 are the same text), one final answer (lines
	// 13 and 14), the compaction (line 17) once, its replacement_history not
	// re-ingested; the injected lines 2 and 3 dropped.
	want := []string{
		"user/text: why does TestRefreshToken fail on CI only?",
		"assistant/text: ",
		"assistant/text: " + answer,
		"user/summary: Summary of earlier work: TestRefreshToken failed on CI because CI runs with TZ=America/Los_Angeles; fixed by using UTC in tests/refresh_test.go.",
	}
	if diff := cmp.Diff(want, codexTexts(s)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	if s.Stats.Skipped["injected context"] != 2 || s.Stats.Deduplicated != 2 || s.Stats.Lines != 18 {
		t.Errorf("stats = %+v, want 18 lines, 2 injected, 2 duplicates", s.Stats)
	}
	// Tool pairs by call_id: lines 9-10 and 11-12.
	wantTools := []cairn.ToolCall{
		{ID: "call_FixtureExec001", Name: "exec_command", Input: `{"cmd":"grep -rn TZ .github/workflows"}`,
			Output: "Process exited with code 0\nOutput:\n.github/workflows/ci.yml:14:      TZ: America/Los_Angeles\n"},
		{ID: "call_FixturePatch01", Name: "apply_patch", Input: "Update File: tests/refresh_test.go",
			Output: "Success. Updated the following files:\nM tests/refresh_test.go\n"},
	}
	if diff := cmp.Diff(wantTools, s.Messages[1].Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if m := s.Messages[2]; m.Model != "gpt-5.3-codex" || m.TimeRaw != "2026-05-04T09:15:24.900Z" {
		t.Errorf("answer model %q time %q", m.Model, m.TimeRaw)
	}
	meta := cairn.Session{Source: s.Source, ID: s.ID, Provider: s.Provider, ConversationID: s.ConversationID,
		Cwd: s.Cwd, GitBranch: s.GitBranch, StartedAtRaw: s.StartedAtRaw}
	wantMeta := cairn.Session{Source: cairn.SourceCodex, ID: "019e9b2c-3d4e-7f50-8a61-b2c3d4e5f607", Provider: "codex",
		ConversationID: "/home/dev/acme-api", Cwd: "/home/dev/acme-api", GitBranch: "main",
		StartedAtRaw: "2026-05-04T09:15:02.290Z"}
	if diff := cmp.Diff(wantMeta, meta); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}

// TestCodexExpectedBare checks the expected results of spec §2.6 for the
// bare-era fixture.
func TestCodexExpectedBare(t *testing.T) {
	s := ccParseFile(t, cairn.SourceCodex, codexBareFile)
	want := []string{
		"user/text: add a /healthz endpoint",
		"assistant/text: ", // holds the shell call
		`assistant/text: Added GET /healthz returning 200 with {"status":"ok"} in internal/http/router.go.`,
	}
	if diff := cmp.Diff(want, codexTexts(s)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	// The state markers (lines 2, 5, 10) are bookkeeping; line 3 is injected
	// and holds the cwd.
	if diff := cmp.Diff(map[string]int{"injected context": 1}, s.Stats.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if s.Stats.Lines != 10 || s.Cwd != "/home/dev/acme-api" || s.ConversationID != s.Cwd {
		t.Errorf("lines %d, cwd %q, conversation %q", s.Stats.Lines, s.Cwd, s.ConversationID)
	}
	if s.ID != "5b1e7c2d-8f3a-4b6c-9d0e-1f2a3b4c5d6e" || s.GitBranch != "feature/login" ||
		s.StartedAtRaw != "2025-08-18T08:02:11.512Z" {
		t.Errorf("id %q branch %q start %q", s.ID, s.GitBranch, s.StartedAtRaw)
	}
	// The shell call's arguments and output are JSON strings, read through;
	// with no per-line timestamps, messages have no time (never the
	// session start).
	wantTool := cairn.ToolCall{ID: "call_FixtureLegacy1", Name: "shell",
		Input: `{"command":["bash","-lc","ls internal/http"]}`, Output: "router.go\nhandlers.go\n"}
	for i, m := range s.Messages {
		if !m.Time.IsZero() || m.TimeRaw != "" {
			t.Errorf("message %d time %v %q, want none", i, m.Time, m.TimeRaw)
		}
	}
	if diff := cmp.Diff([]cairn.ToolCall{wantTool}, s.Messages[1].Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if s.Messages[2].ID != "msg_fixture01" {
		t.Errorf("answer id %q, want the native id", s.Messages[1].ID)
	}
}

func TestCodexZstd(t *testing.T) {
	plain, err := os.ReadFile(codexWrappedFile)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	packed := enc.EncodeAll(plain, nil)
	want, _ := codexParse(plain, ParseOptions{Path: "rollout.jsonl"})
	got, err := codexParse(packed, ParseOptions{Path: "rollout.jsonl.zst"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("zstd parse differs (-plain +zstd):\n%s", diff)
	}
	// A stream cut short reads what it can, or fails cleanly.
	if ss, err := codexParse(packed[:len(packed)-8], ParseOptions{}); err == nil && len(ss) != 1 {
		t.Errorf("truncated stream: %d sessions", len(ss))
	}
	if _, err := codexParse(append(append([]byte{}, codexZstdMagic...), "garbage"...), ParseOptions{Path: "x.zst"}); err == nil {
		t.Errorf("corrupt zstd: no error")
	}
}

func TestCodexFind(t *testing.T) {
	got, err := codexFind(codexFixtureRoot)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{codexBareFile, codexWrappedFile, codexForkFile}, got); diff != "" {
		t.Errorf("fixtures (-want +got):\n%s", diff)
	}

	root := t.TempDir()
	for _, f := range []string{
		"sessions/2026/05/04/rollout-a.jsonl",
		"sessions/2026/05/04/rollout-a.jsonl.zst",
		"sessions/2026/05/05/rollout-b.jsonl.zst",
		"sessions/2026/05/05/notes.txt",
		"archived_sessions/rollout-a.jsonl",
		"archived_sessions/rollout-b.jsonl",
		"archived_sessions/rollout-c.jsonl.zst",
		"archived_sessions/rollout-d.jsonl",
		"archived_sessions/rollout-d.jsonl.zst",
		"history.jsonl",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err = codexFind(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(root, "archived_sessions/rollout-c.jsonl.zst"),
		filepath.Join(root, "archived_sessions/rollout-d.jsonl"),
		filepath.Join(root, "sessions/2026/05/04/rollout-a.jsonl"),
		filepath.Join(root, "sessions/2026/05/05/rollout-b.jsonl.zst"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("find (-want +got):\n%s", diff)
	}
	if got, err := codexFind(filepath.Join(root, "missing")); err != nil || len(got) != 0 {
		t.Errorf("missing root: %v, %v", got, err)
	}
}

// TestCodexEras checks shapes beyond the fixtures: later meta fields,
// 0.14x record types, paginated history, IDE-wrapped prompts, sub-agents.
func TestCodexEras(t *testing.T) {
	tests := []struct {
		name       string
		lines      []string
		want       []string
		wantParent string
		wantSide   bool
	}{
		{
			name: "era 3/4 meta and extra record types",
			lines: []string{
				`{"timestamp":"2026-06-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s3","timestamp":"2026-06-01T10:00:00.000Z","cwd":"/w","base_instructions":{"text":"x"},"thread_source":"user","history_mode":"legacy","session_id":"s3","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p1","depth":1}}}},"ordinal":1}`,
				`{"timestamp":"2026-06-01T10:00:00.100Z","type":"world_state","payload":{"full":true,"state":{"agents_md":"# AGENTS.md"}},"ordinal":2}`,
				`{"timestamp":"2026-06-01T10:00:00.200Z","type":"inter_agent_communication","payload":{"from":"a","to":"b","text":"hi"},"ordinal":3}`,
				`{"timestamp":"2026-06-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"do it","kind":"plain"},"ordinal":4}`,
				`{"timestamp":"2026-06-01T10:00:02.000Z","type":"event_msg","payload":{"type":"agent_message","message":"done","phase":"final_answer"},"ordinal":5}`,
			},
			want:       []string{"user/text: do it", "assistant/text: done"},
			wantParent: "p1",
			wantSide:   true,
		},
		{
			name: "paginated history mode",
			lines: []string{
				`{"timestamp":"2026-06-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s4","cwd":"/w","history_mode":"paginated","forked_from_id":"f1"}}`,
				`{"timestamp":"2026-06-01T10:00:01.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"i1","content":[{"type":"text","text":"hello"}]}}}`,
				`{"timestamp":"2026-06-01T10:00:02.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"i2","content":[{"type":"Text","text":"hi there"}]}}}`,
				`{"timestamp":"2026-06-01T10:00:02.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"Reasoning","id":"i3"}}}`,
			},
			want:       []string{"user/text: hello", "assistant/text: hi there"},
			wantParent: "f1",
		},
		{
			name: "IDE-wrapped prompt and response-item user text",
			lines: []string{
				`{"timestamp":"2025-09-20T10:00:00.000Z","type":"session_meta","payload":{"id":"s5","cwd":"/w"}}`,
				`{"timestamp":"2025-09-20T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# Context from my IDE setup:\n\n## Active file: a.go\n\n## My request for Codex:\nrename Foo"}]}}`,
				`{"timestamp":"2025-09-20T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>\nbe terse\n</user_instructions>"}]}}`,
				`{"timestamp":"2025-09-20T10:00:02.000Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"c1","status":"completed","action":{"type":"exec","command":["ls"]}}}`,
				`{"timestamp":"2025-09-20T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 2\nboom"}}`,
				`{"timestamp":"2025-09-20T10:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}`,
			},
			want: []string{"user/text: rename Foo", "assistant/text: "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := codexParse([]byte(strings.Join(tt.lines, "\n")+"\n"), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := ss[0]
			if diff := cmp.Diff(tt.want, codexTexts(s)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if s.ParentID != tt.wantParent {
				t.Errorf("parent %q, want %q", s.ParentID, tt.wantParent)
			}
			for _, m := range s.Messages {
				if m.Sidechain != tt.wantSide {
					t.Errorf("message %s sidechain %v", m.ID, m.Sidechain)
				}
			}
			if len(s.Stats.Skipped) > 1 || (len(s.Stats.Skipped) == 1 && s.Stats.Skipped["injected context"] == 0) {
				t.Errorf("skipped %v", s.Stats.Skipped)
			}
		})
	}
	// The local shell call failed and its replay under the same call_id was dropped.
	ss, _ := codexParse([]byte(strings.Join(tests[2].lines, "\n")), ParseOptions{})
	tools := ss[0].Messages[1].Tools
	if len(tools) != 1 || !tools[0].IsError || tools[0].Input != `{"command":["ls"]}` || ss[0].Stats.Deduplicated != 1 {
		t.Errorf("tools %+v, deduplicated %d", tools, ss[0].Stats.Deduplicated)
	}
}

// TestCodexMalformed checks that bad input is counted and the rest read.
func TestCodexMalformed(t *testing.T) {
	meta := `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w"}}` + "\n"
	msg := `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}` + "\n"
	tests := []struct {
		name        string
		data        string
		wantMsgs    int
		wantSkipped map[string]int
		wantPartial bool
	}{
		{"empty file", "", 0, nil, false},
		{"broken line in the middle", meta + "{oops\n" + msg, 1, map[string]int{"malformed json": 1}, false},
		{"half-written last line", meta + msg + msg[:30], 1, nil, true},
		{"unknown record type", meta + `{"timestamp":"x","type":"telepathy","payload":{}}` + "\n" + msg, 1, map[string]int{"unknown type: telepathy": 1}, false},
		{"unknown response item", meta + `{"timestamp":"x","type":"response_item","payload":{"type":"hologram"}}` + "\n" + msg, 1, map[string]int{"unknown item: hologram": 1}, false},
		{"payload of the wrong shape", meta + `{"timestamp":"x","type":"response_item","payload":{"type":7}}` + "\n" + msg, 1, map[string]int{"malformed record": 1}, false},
		{"wrapped type without payload", meta + `{"timestamp":"x","type":"event_msg"}` + "\n" + msg, 1, map[string]int{"malformed record": 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := codexParse([]byte(tt.data), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := ss[0]
			if len(s.Messages) != tt.wantMsgs {
				t.Errorf("%d messages, want %d", len(s.Messages), tt.wantMsgs)
			}
			if diff := cmp.Diff(tt.wantSkipped, s.Stats.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if s.Stats.PartialTail != tt.wantPartial {
				t.Errorf("partial tail %v, want %v", s.Stats.PartialTail, tt.wantPartial)
			}
		})
	}
}

func FuzzParseCodex(f *testing.F) {
	for _, p := range []string{codexWrappedFile, codexBareFile, codexForkFile} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(bytes.Join(lines[len(lines)/2:], nil))
	}
	enc, _ := zstd.NewWriter(nil)
	f.Add(enc.EncodeAll([]byte(`{"id":"x","timestamp":"2025-01-01T00:00:00Z"}`+"\n"), nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := codexParse(data, ParseOptions{})
		if err != nil {
			if !bytes.HasPrefix(data, codexZstdMagic) {
				t.Fatalf("plain input: %v", err)
			}
			return
		}
		if len(ss) != 1 {
			t.Fatalf("%d sessions", len(ss))
		}
	})
}

const codexForkFile = codexFixtureRoot + "/sessions/2026/05/04/rollout-2026-05-04T12-05-00-019e9b6a-0c1d-7e2f-8a3b-4c5d6e7f8091.jsonl"

// TestCodexFork checks the fork rule (codex_fork.go): the fork fixture
// replays its parent (the wrapped fixture) after the parent's session_meta
// and adds one turn; only that turn is the fork's. Without the parent the
// replay is the only copy and stays; a replay that stops agreeing with the
// parent keeps everything from where it differs.
func TestCodexFork(t *testing.T) {
	const q = "user/text: does the same TZ problem affect TestSessionExpiry?"
	const a = "assistant/text: No: TestSessionExpiry already builds its times in UTC, so CI's TZ does not change it."
	s := ccParseFile(t, cairn.SourceCodex, codexForkFile)
	if diff := cmp.Diff([]string{q, "assistant/text: ", a}, codexTexts(s)); diff != "" {
		t.Errorf("fork messages (-want +got):\n%s", diff)
	}
	parent := ccParseFile(t, cairn.SourceCodex, codexWrappedFile)
	if want := parent.Stats.Deduplicated + len(parent.Messages) + 2; s.Stats.Deduplicated != want {
		t.Errorf("deduplicated %d, want %d (the parent's own, its %d messages, the fork's two copies)", s.Stats.Deduplicated, want, len(parent.Messages))
	}
	if s.ID != "019e9b6a-0c1d-7e2f-8a3b-4c5d6e7f8091" || s.ParentID != parent.ID || s.StartedAtRaw != "2026-05-04T10:05:00.101Z" {
		t.Errorf("id %q parent %q start %q", s.ID, s.ParentID, s.StartedAtRaw)
	}

	data, err := os.ReadFile(codexForkFile)
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(t.TempDir(), "sessions", "2026", "05", "04", filepath.Base(codexForkFile))
	if err := os.MkdirAll(filepath.Dir(alone), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := codexParse(data, ParseOptions{Path: alone})
	if err != nil {
		t.Fatal(err)
	}
	want := append(codexTexts(parent), q, "assistant/text: ", a)
	if diff := cmp.Diff(want, codexTexts(ss[0])); diff != "" {
		t.Errorf("fork without its parent (-want +got):\n%s", diff)
	}

	// The parent's answer differs from the replayed one: the replay is kept
	// from the answer on.
	pdata, err := os.ReadFile(codexWrappedFile)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.ReplaceAll(pdata, []byte("I switched it to UTC."), []byte("I switched it to UTC, twice."))
	if err := os.WriteFile(filepath.Join(filepath.Dir(alone), filepath.Base(codexWrappedFile)), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	ss, _ = codexParse(data, ParseOptions{Path: alone})
	if diff := cmp.Diff(append(codexTexts(parent)[2:], q, "assistant/text: ", a), codexTexts(ss[0])); diff != "" {
		t.Errorf("fork of a changed parent (-want +got):\n%s", diff)
	}
}
