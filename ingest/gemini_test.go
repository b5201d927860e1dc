package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

const (
	gemFixtureJSONL = "tmp/acme-api/chats/session-2026-05-04T09-15-3e7a9c1b.jsonl"
	gemFixtureJSON  = "tmp/acme-api/chats/session-2025-11-20T14-02-9a8b7c6d.json"
)

func TestGeminiFindFixture(t *testing.T) {
	root := filepath.Join("testdata", "transcripts", "gemini")
	got, err := gemFind(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{gemFixtureJSON, gemFixtureJSONL}; !reflect.DeepEqual(gaoRel(t, root, got), want) {
		t.Fatalf("find = %q, want %q", gaoRel(t, root, got), want)
	}
}

func TestGeminiFind(t *testing.T) {
	root := t.TempDir()
	gaoWrite(t, root, map[string]string{
		"tmp/p/chats/session-2026-01-02T10-00-abcdef12.jsonl": "",
		"tmp/p/chats/session-2026-01-02T10-00-abcdef12.json":  "", // converted: skipped
		"tmp/p/chats/session-2025-12-01T10-00-99999999.json":  "",
		"tmp/p/chats/abcdef12-full-id/child-1.jsonl":          "",
		"tmp/p/chats/abcdef12-full-id/notes.txt":              "",
		"tmp/p/chats/checkpoint.json":                         "",
		"tmp/p/.project_root":                                 "/x",
		"tmp/q/logs.json":                                     "",
		"projects.json":                                       "{}",
	})
	got, err := gemFind(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"tmp/p/chats/abcdef12-full-id/child-1.jsonl",
		"tmp/p/chats/session-2025-12-01T10-00-99999999.json",
		"tmp/p/chats/session-2026-01-02T10-00-abcdef12.jsonl",
	}
	if !reflect.DeepEqual(gaoRel(t, root, got), want) {
		t.Fatalf("find = %q, want %q", gaoRel(t, root, got), want)
	}
	if got, err := gemFind(filepath.Join(root, "missing")); err != nil || got != nil {
		t.Fatalf("missing root: %v, %v", got, err)
	}
}

// TestGeminiFixtureJSONL checks the spec §4 expectations for the JSONL file.
func TestGeminiFixtureJSONL(t *testing.T) {
	ss := gaoFixture(t, cairn.SourceGemini, gemFixtureJSONL)
	if len(ss) != 1 {
		t.Fatalf("sessions = %d, want 1", len(ss))
	}
	s := ss[0]
	if s.ID != "3e7a9c1b-2d4f-4a6b-8c0d-1e2f3a4b5c6d" || s.Provider != "gemini" || s.ParentID != "" {
		t.Errorf("id %q provider %q parent %q", s.ID, s.Provider, s.ParentID)
	}
	if s.Title != "Find migrations touching the sessions table" {
		t.Errorf("title = %q, want the $set summary", s.Title)
	}
	if s.ConversationID != "/home/dev/acme-api" {
		t.Errorf("conversation = %q, want the .project_root", s.ConversationID)
	}
	if s.StartedAtRaw != "2026-05-04T09:15:30.000Z" || !s.StartedAt.Equal(time.Date(2026, 5, 4, 9, 15, 30, 0, time.UTC)) {
		t.Errorf("started = %v (%q)", s.StartedAt, s.StartedAtRaw)
	}
	var ids []string
	for _, m := range s.Messages {
		ids = append(ids, m.ID)
	}
	if want := []string{"m-0001", "m-0002"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %q, want %q (m-0003 rewound)", ids, want)
	}
	u, g := s.Messages[0], s.Messages[1]
	if u.Role != cairn.RoleUser || u.Text != "list the migrations that touch the sessions table" {
		t.Errorf("user = %+v", u)
	}
	if g.Role != cairn.RoleAssistant || g.Model != "gemini-2.5-pro" ||
		g.Text != "Two migrations touch it: 0003_create_sessions.sql and 0011_add_session_ttl.sql." {
		t.Errorf("assistant (second version) = %+v", g)
	}
	if strings.Contains(g.Text, "Scanning") {
		t.Errorf("thoughts leaked into text: %q", g.Text)
	}
	wantTool := cairn.ToolCall{
		ID: "grep-1777886144900-1", Name: "search_file_content",
		Input:  `{"path":"db/migrations","pattern":"sessions"}`,
		Output: "db/migrations/0003_create_sessions.sql:1: CREATE TABLE sessions (\ndb/migrations/0011_add_session_ttl.sql:1: ALTER TABLE sessions ADD COLUMN ttl_seconds INTEGER;",
	}
	if len(g.Tools) != 1 || !reflect.DeepEqual(g.Tools[0], wantTool) {
		t.Errorf("tools = %+v, want %+v", g.Tools, wantTool)
	}
	if s.Stats.Deduplicated != 1 || s.Stats.Skipped["rewound"] != 1 || s.Stats.Lines != 7 {
		t.Errorf("stats = %+v", s.Stats)
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "transcripts", "gemini", gemFixtureJSONL))
	g2, err := gemParse(data, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g2.meta.LastUpdated != "2026-05-04T09:16:05.000Z" {
		t.Errorf("lastUpdated = %q, want 09:16:05Z from $set", g2.meta.LastUpdated)
	}
	gaoGolden(t, cairn.SourceGemini, filepath.Base(gemFixtureJSONL), ss)
}

// TestGeminiFixtureJSON checks the spec §4 expectations for the old format.
func TestGeminiFixtureJSON(t *testing.T) {
	ss := gaoFixture(t, cairn.SourceGemini, gemFixtureJSON)
	if len(ss) != 1 {
		t.Fatalf("sessions = %d, want 1", len(ss))
	}
	s := ss[0]
	if s.ID != "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" || s.ConversationID != "/home/dev/acme-api" {
		t.Errorf("id %q conversation %q", s.ID, s.ConversationID)
	}
	want := []string{"user/text: what does make lint run?", "assistant/text: It runs golangci-lint with .golangci.yml."}
	if got := gaoTexts(s); !reflect.DeepEqual(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
	if s.Messages[0].ID != "u-1" || s.Messages[1].ID != "g-1" || s.Messages[1].Model != "gemini-2.5-flash" {
		t.Errorf("messages = %+v", s.Messages)
	}
	if !reflect.DeepEqual(s.Stats.Skipped, map[string]int{"info record": 1}) {
		t.Errorf("skipped = %v, want the info record", s.Stats.Skipped)
	}
	gaoGolden(t, cairn.SourceGemini, filepath.Base(gemFixtureJSON), ss)
}

func TestGeminiProjectRoot(t *testing.T) {
	hash := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	line1 := `{"sessionId":"s1","projectHash":"%s","startTime":"2026-01-02T10:00:00Z","kind":"%s"}` + "\n" +
		`{"id":"a","type":"user","content":"hi"}` + "\n"
	tests := []struct {
		name, rel, hash, kind, want, parent string
	}{
		{name: "slug in projects.json", rel: "tmp/web/chats/session-x-s1.jsonl", want: "/src/web"},
		{name: "old hash folder", rel: "tmp/" + hash("/src/api") + "/chats/session-x-s1.jsonl", want: "/src/api"},
		{name: "projectHash", rel: "tmp/zzz/chats/session-x-s1.jsonl", hash: hash("/src/api"), want: "/src/api"},
		{name: "unknown", rel: "tmp/zzz/chats/session-x-s1.jsonl"},
		{name: "sub-agent", rel: "tmp/web/chats/parent-uuid/s1.jsonl", kind: "subagent", want: "/src/web", parent: "parent-uuid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			body := strings.Replace(strings.Replace(line1, "%s", tt.hash, 1), "%s", tt.kind, 1)
			gaoWrite(t, root, map[string]string{
				"projects.json": `{"projects":{"/src/web":"web","/src/api":"api"}}`,
				tt.rel:          body,
			})
			path := filepath.Join(root, filepath.FromSlash(tt.rel))
			ss, err := gaoParse(t, cairn.SourceGemini, path, []byte(body))
			if err != nil || len(ss) != 1 {
				t.Fatalf("parse: %d sessions, %v", len(ss), err)
			}
			s := ss[0]
			if s.ConversationID != tt.want || s.ParentID != tt.parent {
				t.Errorf("conversation %q parent %q, want %q %q", s.ConversationID, s.ParentID, tt.want, tt.parent)
			}
			if side := s.Messages[0].Sidechain; side != (tt.parent != "") {
				t.Errorf("sidechain = %v", side)
			}
		})
	}
}

func TestGeminiMalformed(t *testing.T) {
	meta := `{"sessionId":"s1","startTime":"2026-01-02T10:00:00Z"}` + "\n"
	user := func(id, text string) string {
		return `{"id":"` + id + `","type":"user","content":"` + text + `"}` + "\n"
	}
	tests := []struct {
		name, path, data string
		texts            []string // nil: no session expected
		skipped          map[string]int
		partial, err     bool
	}{
		{name: "empty", path: "s.jsonl", data: ""},
		{name: "broken line counted", path: "s.jsonl", data: meta + user("a", "one") + "{\"id\":\n" + user("b", "two"),
			texts: []string{"user/text: one", "user/text: two"}, skipped: map[string]int{"malformed json": 1}},
		{name: "half-written tail", path: "s.jsonl", data: meta + user("a", "one") + `{"id":"b","ty`,
			texts: []string{"user/text: one"}, partial: true},
		{name: "only metadata", path: "s.jsonl", data: meta, texts: []string{}},
		{name: "metadata missing", path: "dir/s9.jsonl", data: user("a", "one"), texts: []string{"user/text: one"}},
		{name: "rewind to unknown id", path: "s.jsonl", data: meta + user("a", "one") + `{"$rewindTo":"zz"}` + "\n",
			texts: []string{"user/text: one"}, skipped: map[string]int{"rewind to unknown id": 1}},
		{name: "re-append after rewind", path: "s.jsonl",
			data:  meta + user("a", "one") + user("b", "two") + `{"$rewindTo":"a"}` + "\n" + user("b", "again"),
			texts: []string{"user/text: again"}, skipped: map[string]int{"rewound": 2}},
		{name: "status records and unknowns", path: "s.jsonl",
			data: meta + `{"id":"i","type":"info","content":"x"}` + "\n" + `{"id":"e","type":"error","content":"x"}` + "\n" +
				`{"id":"w","type":"warning","content":"x"}` + "\n" + `{"id":"z","type":"other"}` + "\n" + `{"foo":1}` + "\n" +
				`{"$set":"bad"}` + "\n" + meta + `{"id":"g","type":"gemini","content":[{"text":"hmm","thought":true}]}` + "\n",
			texts: []string{},
			skipped: map[string]int{"info record": 1, "error record": 1, "warning record": 1, "unknown type": 1,
				"unknown record": 1, "malformed $set": 1, "repeated metadata": 1, "empty message": 1}},
		{name: "old json broken", path: "s.json", data: `{"sessionId":"s1","messages":[`, err: true},
		{name: "old json bad message", path: "s.json", data: `{"sessionId":"s1","messages":[{"id":5},{"id":"a","type":"user","content":"x"}]}`,
			texts: []string{"user/text: x"}, skipped: map[string]int{"malformed message": 1}},
		{name: "old json by content", path: "", data: `{"sessionId":"s1","messages":[{"id":"a","type":"user","content":"x"}]}`,
			texts: []string{"user/text: x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := gaoParse(t, cairn.SourceGemini, tt.path, []byte(tt.data))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if tt.texts == nil {
				if len(ss) != 0 {
					t.Fatalf("sessions = %+v, want none", ss)
				}
				return
			}
			if len(ss) != 1 {
				t.Fatalf("sessions = %d, want 1", len(ss))
			}
			s := ss[0]
			if got := gaoTexts(s); len(got)+len(tt.texts) > 0 && !reflect.DeepEqual(got, tt.texts) {
				t.Errorf("messages = %q, want %q", got, tt.texts)
			}
			if len(s.Stats.Skipped)+len(tt.skipped) > 0 && !reflect.DeepEqual(s.Stats.Skipped, tt.skipped) {
				t.Errorf("skipped = %v, want %v", s.Stats.Skipped, tt.skipped)
			}
			if s.Stats.PartialTail != tt.partial {
				t.Errorf("partial = %v", s.Stats.PartialTail)
			}
			if s.ID == "" {
				t.Errorf("no id (started %v)", s.StartedAt)
			}
		})
	}
}

func TestGeminiMessages(t *testing.T) {
	data := `{"sessionId":"s1"}
{"id":"u","timestamp":"2026-01-02T10:00:01Z","type":"user","content":[{"text":"@a.go explain\n--- a.go ---\npackage a"}],"displayContent":[{"text":"@a.go explain"}]}
{"id":"g","timestamp":"2026-01-02T10:00:02Z","type":"gemini","content":"","toolCalls":[
 {"id":"t1","name":"run_shell_command","args":{"command":"go test"},"status":"error","result":[{"functionResponse":{"response":{"error":"exit 1"}}}]},
 {"id":"t2","name":"read_file","args":{"path":"a.go"},"status":"success","resultDisplay":"read 3 lines"},
 {"id":"t3","name":"ls","args":{},"status":"success","result":[{"functionResponse":{"response":{"files":["a"]}}}]}]}
`
	data = strings.ReplaceAll(data, "\n ", " ")
	ss, err := gaoParse(t, cairn.SourceGemini, "", []byte(data))
	if err != nil || len(ss) != 1 {
		t.Fatalf("parse: %d sessions, %v", len(ss), err)
	}
	s := ss[0]
	if len(s.Messages) != 2 {
		t.Fatalf("messages = %+v", s.Messages)
	}
	if s.Messages[0].Text != "@a.go explain" {
		t.Errorf("user text = %q, want displayContent", s.Messages[0].Text)
	}
	if !s.StartedAt.Equal(time.Date(2026, 1, 2, 10, 0, 1, 0, time.UTC)) {
		t.Errorf("started = %v, want the first message time", s.StartedAt)
	}
	want := []cairn.ToolCall{
		{ID: "t1", Name: "run_shell_command", Input: `{"command":"go test"}`, Output: "exit 1", IsError: true},
		{ID: "t2", Name: "read_file", Input: `{"path":"a.go"}`, Output: "read 3 lines"},
		{ID: "t3", Name: "ls", Input: `{}`, Output: `{"files":["a"]}`},
	}
	if got := s.Messages[1].Tools; !reflect.DeepEqual(got, want) {
		t.Errorf("tools = %+v\nwant %+v", got, want)
	}
}

func FuzzParseGemini(f *testing.F) {
	for _, rel := range []string{gemFixtureJSONL, gemFixtureJSON} {
		data, err := os.ReadFile(filepath.Join("testdata", "transcripts", "gemini", rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
		f.Add(data, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, old bool) {
		path := "chats/session-x.jsonl"
		if old {
			path = "chats/session-x.json"
		}
		ss, err := parseGemini(data, ParseOptions{Path: path})
		if err != nil {
			return
		}
		gaoCheckSessions(t, ss, len(data))
	})
}
