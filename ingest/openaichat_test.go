package ingest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
)

// Shared by the gemini, aider and openai-chat tests.

var updateGoldenGAO = goldenfile.Update // -update

// gaoOpts are fixed parse options, so golden output does not depend on the
// host: a non-UTC zone for aider's local times.
var gaoOpts = ParseOptions{
	Location: time.FixedZone("CEST", 2*3600),
}

// gaoParse parses data as source with gaoOpts and path.
func gaoParse(t testing.TB, source, path string, data []byte) ([]cairn.Session, error) {
	t.Helper()
	r, ok := Reader(source)
	if !ok {
		t.Fatalf("reader %q not registered", source)
	}
	o := gaoOpts
	o.Path = path
	return r.Parse(data, o)
}

// gaoFixture parses testdata/transcripts/<source>/<rel>.
func gaoFixture(t testing.TB, source, rel string) []cairn.Session {
	t.Helper()
	path := filepath.Join("testdata", "transcripts", source, filepath.FromSlash(rel))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := gaoParse(t, source, path, data)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return ss
}

// gaoGolden compares sessions with testdata/golden/<source>/<name>.json,
// name being the fixture's base name without a leading dot or extension.
func gaoGolden(t *testing.T, source, name string, ss []cairn.Session) {
	t.Helper()
	got, err := json.MarshalIndent(ss, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	name = strings.TrimPrefix(name, ".")
	path := filepath.Join("testdata", "golden", source, strings.TrimSuffix(name, filepath.Ext(name))+".json")
	if *updateGoldenGAO {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(run with -update if intended)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs in length: got %d lines, want %d", path, len(gl), len(wl))
	}
}

// gaoTexts lists "role/kind: text" per message.
func gaoTexts(ss cairn.Session) []string {
	var out []string
	for _, m := range ss.Messages {
		out = append(out, m.Role+"/"+m.Kind+": "+m.Text)
	}
	return out
}

// gaoWrite creates files (slash paths relative to dir) with contents.
func gaoWrite(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gaoRel makes found paths relative to root, slash-separated.
func gaoRel(t testing.TB, root string, paths []string) []string {
	t.Helper()
	out := []string{}
	for _, p := range paths {
		r, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

func TestOpenAIChatFind(t *testing.T) {
	root := t.TempDir()
	gaoWrite(t, root, map[string]string{
		"a.json":                  "[]",
		"b/c.jsonl":               "",
		"b/notes.md":              "",
		".git/x.json":             "",
		"node_modules/pkg/p.json": "",
	})
	got, err := oaiFind(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.json", "b/c.jsonl"}; !reflect.DeepEqual(gaoRel(t, root, got), want) {
		t.Fatalf("find = %v, want %v", gaoRel(t, root, got), want)
	}
	if got, err := oaiFind(filepath.Join(root, "missing")); err != nil || got != nil {
		t.Fatalf("missing root: %v, %v", got, err)
	}
}

// TestOpenAIChatFixtureMessages checks the spec §7 expectations for
// messages.json.
func TestOpenAIChatFixtureMessages(t *testing.T) {
	ss := gaoFixture(t, cairn.SourceOpenAIChat, "messages.json")
	if len(ss) != 1 {
		t.Fatalf("sessions = %d, want 1", len(ss))
	}
	s := ss[0]
	if s.ID != "messages" || s.ConversationID != "messages" || s.Provider != "openai-chat" {
		t.Errorf("id, conversation, provider = %q, %q, %q", s.ID, s.ConversationID, s.Provider)
	}
	// The file records no time: none is made up (the mtime of a copy is
	// the time of the copy).
	if !s.StartedAt.IsZero() || s.StartedAtRaw != "" {
		t.Errorf("started = %v %q, want none", s.StartedAt, s.StartedAtRaw)
	}
	want := []string{
		"user/text: What is the default port of the acme-api dev server?",
		"assistant/text: ",
		"assistant/text: It listens on 8081 (config/dev.yaml).",
		"user/text: and in prod?",
	}
	if got := gaoTexts(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("messages:\n%q\nwant\n%q", got, want)
	}
	tool := s.Messages[1].Tools
	wantTool := []cairn.ToolCall{{ID: "call_fx1", Name: "read_file", Input: `{"path":"config/dev.yaml"}`, Output: "server:\n  port: 8081"}}
	if !reflect.DeepEqual(tool, wantTool) {
		t.Errorf("tool = %+v, want %+v", tool, wantTool)
	}
	wantSkips := map[string]int{"system message": 1, "image part": 1}
	if !reflect.DeepEqual(s.Stats.Skipped, wantSkips) {
		t.Errorf("skipped = %v, want %v", s.Stats.Skipped, wantSkips)
	}
	for i, m := range s.Messages {
		if want := "messages:" + []string{"1", "2", "4", "5"}[i]; m.ID != want {
			t.Errorf("message %d id = %q, want %q", i, m.ID, want)
		}
	}
	gaoGolden(t, cairn.SourceOpenAIChat, "messages.json", ss)
}

// TestOpenAIChatFixtureJSONL checks the spec §7 expectations for
// conversations.jsonl.
func TestOpenAIChatFixtureJSONL(t *testing.T) {
	ss := gaoFixture(t, cairn.SourceOpenAIChat, "conversations.jsonl")
	if len(ss) != 2 {
		t.Fatalf("sessions = %d, want 2", len(ss))
	}
	want := []struct {
		id, start string
		texts     []string
	}{
		{"conv-001", "2026-05-04T09:00:00Z", []string{"user/text: remember I prefer metric units", "assistant/text: Noted: metric units."}},
		{"conv-002", "2026-05-05T10:00:00Z", []string{"user/text: how tall should the fence be?", "assistant/text: 1.8 m is common for privacy."}},
	}
	for i, w := range want {
		s := ss[i]
		if s.ID != w.id || s.StartedAtRaw != w.start || s.StartedAt.Format(time.RFC3339) != w.start {
			t.Errorf("session %d: id %q start %v (%q)", i, s.ID, s.StartedAt, s.StartedAtRaw)
		}
		if s.ConversationID != "dana" {
			t.Errorf("session %d conversation = %q, want metadata.user", i, s.ConversationID)
		}
		if got := gaoTexts(s); !reflect.DeepEqual(got, w.texts) {
			t.Errorf("session %d messages = %q, want %q", i, got, w.texts)
		}
	}
	if last := ss[1].Stats; last.ConsumedBytes == 0 || last.PartialTail {
		t.Errorf("file stats = %+v", last)
	}
	gaoGolden(t, cairn.SourceOpenAIChat, "conversations.jsonl", ss)
}

func TestOpenAIChatMalformed(t *testing.T) {
	conv := func(id, text string) string {
		return `{"id":"` + id + `","created_at":1777885200,"messages":[{"role":"user","content":"` + text + `"}]}`
	}
	tests := []struct {
		name     string
		path     string
		data     string
		ids      []string
		skipped  map[string]int // on the last session
		partial  bool
		consumed int64 // on the last session; -1 skips the check
		wantErr  bool
	}{
		{name: "empty", path: "e.jsonl", data: "", consumed: -1},
		{name: "blank", path: "e.json", data: " \n\n", consumed: -1},
		{name: "broken line counted", path: "c.jsonl",
			data: conv("a", "one") + "\n{\"id\":\"b\",\n" + conv("c", "three") + "\n",
			ids:  []string{"a", "c"}, skipped: map[string]int{"malformed json": 1}, consumed: -1},
		{name: "half-written tail", path: "c.jsonl",
			data: conv("a", "one") + "\n" + `{"id":"b","messages":[{"ro`,
			ids:  []string{"a"}, partial: true, consumed: int64(len(conv("a", "one")) + 1)},
		{name: "only malformed lines", path: "c.jsonl", data: "{oops\n[1,\n", wantErr: true},
		{name: "not a conversation", path: "package.json", data: `{"name":"x","version":"1"}`, consumed: -1},
		{name: "non-conversation line", path: "c.jsonl",
			data: `{"kind":"header"}` + "\n" + conv("a", "one") + "\n",
			ids:  []string{"a"}, skipped: map[string]int{"not a conversation": 1}, consumed: -1},
		{name: "broken array", path: "m.json", data: `[{"role":"user","content":"hi"}`, wantErr: true},
		{name: "array of conversations", path: "all.json",
			data: "[" + conv("x", "1") + "," + `{"messages":[]}` + "]",
			ids:  []string{"x", "all#2"}, consumed: -1},
		{name: "array of other things", path: "n.json", data: `[1,2,{"a":1}]`, consumed: -1},
		{name: "bad message counted", path: "m.json",
			data: `[{"role":"user","content":"hi"},{"role":7},"str",{"role":"narrator","content":"x"}]`,
			ids:  []string{"m"}, skipped: map[string]int{"malformed message": 2, "unknown role": 1}, consumed: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := gaoParse(t, cairn.SourceOpenAIChat, tt.path, []byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			var ids []string
			for _, s := range ss {
				ids = append(ids, s.ID)
			}
			if !reflect.DeepEqual(ids, tt.ids) {
				t.Fatalf("ids = %q, want %q", ids, tt.ids)
			}
			if len(ss) == 0 {
				return
			}
			last := ss[len(ss)-1].Stats
			if len(tt.skipped) > 0 || len(last.Skipped) > 0 {
				if !reflect.DeepEqual(last.Skipped, tt.skipped) {
					t.Errorf("skipped = %v, want %v", last.Skipped, tt.skipped)
				}
			}
			if last.PartialTail != tt.partial {
				t.Errorf("partial tail = %v, want %v", last.PartialTail, tt.partial)
			}
			if tt.consumed >= 0 && last.ConsumedBytes != tt.consumed {
				t.Errorf("consumed = %d, want %d", last.ConsumedBytes, tt.consumed)
			}
		})
	}
}

func TestOpenAIChatMessages(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		texts []string
		tools [][]cairn.ToolCall // per message; nil entries mean none
		skips map[string]int
	}{
		{
			name: "legacy function call",
			data: `[{"role":"user","content":"weather?"},
				{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}},
				{"role":"function","name":"get_weather","content":"3°C"},
				{"role":"assistant","content":"3 degrees."}]`,
			texts: []string{"user/text: weather?", "assistant/text: ", "assistant/text: 3 degrees."},
			tools: [][]cairn.ToolCall{nil, {{Name: "get_weather", Input: `{"city":"Oslo"}`, Output: "3°C"}}, nil},
		},
		{
			name: "orphan result and empty assistant",
			data: `[{"role":"tool","tool_call_id":"nope","content":"x"},
				{"role":"assistant","content":null},
				{"role":"developer","content":"be brief"},
				{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:"}}]}]`,
			skips: map[string]int{"orphan tool result": 1, "empty message": 2, "system message": 1, "image part": 1},
		},
		{
			name: "arguments not JSON, object arguments, parts content",
			data: `[{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"tool_calls":[
					{"id":"1","type":"function","function":{"name":"sh","arguments":"ls -la"}},
					{"id":"2","type":"function","function":{"name":"edit","arguments":{"path":"x.go","n":3}}}]},
				{"role":"tool","tool_call_id":"2","content":[{"type":"text","text":"ok"}]}]`,
			texts: []string{"assistant/text: a\nb"},
			tools: [][]cairn.ToolCall{{{ID: "1", Name: "sh", Input: "ls -la"}, {ID: "2", Name: "edit", Input: `{"n":3,"path":"x.go"}`, Output: "ok"}}},
		},
		{
			name:  "speaker name",
			data:  `[{"role":"user","name":"dana","content":"hi"}]`,
			texts: []string{"user/text: hi"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := gaoParse(t, cairn.SourceOpenAIChat, "x.json", []byte(tt.data))
			if err != nil || len(ss) != 1 {
				t.Fatalf("parse: %d sessions, %v", len(ss), err)
			}
			s := ss[0]
			if got := gaoTexts(s); !reflect.DeepEqual(got, tt.texts) {
				t.Fatalf("messages = %q, want %q", got, tt.texts)
			}
			for i, want := range tt.tools {
				if got := s.Messages[i].Tools; !reflect.DeepEqual(got, want) {
					t.Errorf("message %d tools = %+v, want %+v", i, got, want)
				}
			}
			if tt.skips != nil && !reflect.DeepEqual(s.Stats.Skipped, tt.skips) {
				t.Errorf("skipped = %v, want %v", s.Stats.Skipped, tt.skips)
			}
			if tt.name == "speaker name" && s.Messages[0].Speaker != "dana" {
				t.Errorf("speaker = %q", s.Messages[0].Speaker)
			}
		})
	}
}

func TestOpenAIChatMetadata(t *testing.T) {
	tests := []struct {
		line, conv, start string
	}{
		{`{"id":"a","created_at":1777885200,"metadata":{"user":"dana","conversation_id":"c-9"},"messages":[]}`, "c-9", "2026-05-04T09:00:00Z"},
		{`{"id":"a","created_at":1777885200123,"metadata":{"thread_id":"t-1"},"messages":[]}`, "t-1", "2026-05-04T09:00:00.123Z"},
		{`{"id":"a","created_at":"1777885200","messages":[]}`, "f", "2026-05-04T09:00:00Z"},
		{`{"id":"a","created_at":"yesterday","messages":[]}`, "f", ""}, // no usable time: none
		{`{"id":"a","created_at":"2026-05-04T11:00:00+02:00","messages":[]}`, "f", "2026-05-04T09:00:00Z"},
	}
	for _, tt := range tests {
		ss, err := gaoParse(t, cairn.SourceOpenAIChat, "dir/f.jsonl", []byte(tt.line+"\n"))
		if err != nil || len(ss) != 1 {
			t.Fatalf("%s: %d sessions, %v", tt.line, len(ss), err)
		}
		start := ""
		if s := ss[0]; !s.StartedAt.IsZero() {
			start = s.StartedAt.Format(time.RFC3339Nano)
		}
		if s := ss[0]; s.ConversationID != tt.conv || start != tt.start {
			t.Errorf("%s: conversation %q, start %q; want %q, %q", tt.line, s.ConversationID, start, tt.conv, tt.start)
		}
	}
}

func TestOAIKeyArgs(t *testing.T) {
	long := strings.Repeat("x", oaiArgValueChars+10)
	tests := []struct{ in, want string }{
		{``, ``},
		{`null`, ``},
		{`{"b":1,"a":"<tag>"}`, `{"a":"<tag>","b":1}`},
		{`{"content":"` + long + `"}`, `{"content":"` + long[:oaiArgValueChars] + `…"}`},
		{`{"list":[` + strings.Repeat(`1,`, 150) + `1]}`, `{"list":"[` + strings.Repeat(`1,`, 99) + `1…"}`},
		{`[1, 2]`, `[1,2]`},
		{`not json`, `not json`},
	}
	for _, tt := range tests {
		if got := oaiKeyArgs([]byte(tt.in)); got != tt.want {
			t.Errorf("oaiKeyArgs(%.40q) = %.80q, want %.80q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseOpenAIChat(f *testing.F) {
	for _, name := range []string{"messages.json", "conversations.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", "transcripts", "openai-chat", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"role":"function","name":"f"},{"role":"assistant","function_call":{"name":"f"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := parseOpenAIChat(data, ParseOptions{Path: "f.jsonl"})
		if err != nil {
			return
		}
		gaoCheckSessions(t, ss, len(data))
	})
}

// gaoCheckSessions asserts invariants every parsed session keeps.
func gaoCheckSessions(t *testing.T, ss []cairn.Session, size int) {
	t.Helper()
	for _, s := range ss {
		if s.ID == "" || s.Source == "" {
			t.Fatalf("session without id or source: %+v", s)
		}
		if s.Stats.ConsumedBytes < 0 || s.Stats.ConsumedBytes > int64(size) {
			t.Fatalf("consumed %d of %d bytes", s.Stats.ConsumedBytes, size)
		}
		for _, m := range s.Messages {
			if m.ID == "" || (m.Role != cairn.RoleUser && m.Role != cairn.RoleAssistant) {
				t.Fatalf("bad message %+v", m)
			}
			if m.Text == "" && len(m.Tools) == 0 {
				t.Fatalf("empty message %+v", m)
			}
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
	}
}
