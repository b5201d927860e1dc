package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

func TestAiderFind(t *testing.T) {
	root := t.TempDir()
	gaoWrite(t, root, map[string]string{
		"api/.aider.chat.history.md":                   "",
		"api/tools/.aider.chat.history.md":             "",
		"api/.aider.input.history":                     "",
		"api/.git/.aider.chat.history.md":              "",
		"web/node_modules/x/.aider.chat.history.md":    "",
		"web/notes/aider.chat.history.md":              "",
		"web/.aider.chat.history.md/not-a-file-inside": "",
	})
	got, err := aiderFind(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"api/.aider.chat.history.md", "api/tools/.aider.chat.history.md"}
	if !reflect.DeepEqual(gaoRel(t, root, got), want) {
		t.Fatalf("find = %q, want %q", gaoRel(t, root, got), want)
	}
	if got, err := aiderFind(filepath.Join(root, "missing")); err != nil || got != nil {
		t.Fatalf("missing root: %v, %v", got, err)
	}
}

// TestAiderFixture checks the spec §5 expectations.
func TestAiderFixture(t *testing.T) {
	ss := gaoFixture(t, cairn.SourceAider, ".aider.chat.history.md")
	if len(ss) != 2 {
		t.Fatalf("sessions = %d, want 2", len(ss))
	}
	dir := filepath.Join("testdata", "transcripts", "aider")
	for i, raw := range []string{"2026-05-04 11:20:07", "2026-05-05 08:02:44"} {
		s := ss[i]
		want, _ := time.ParseInLocation("2006-01-02 15:04:05", raw, gaoOpts.Location)
		if s.StartedAtRaw != raw || !s.StartedAt.Equal(want) || s.StartedAt.Location() != gaoOpts.Location {
			t.Errorf("session %d start = %v (%q), want %v in the configured zone", i, s.StartedAt, s.StartedAtRaw, want)
		}
		if s.ConversationID != dir || s.Provider != "aider" || len(s.ID) != 16 {
			t.Errorf("session %d: conversation %q provider %q id %q", i, s.ConversationID, s.Provider, s.ID)
		}
		// Aider writes no per-message time: messages have none (not the
		// session start).
		for j, m := range s.Messages {
			if m.ID != s.ID+":"+string(rune('1'+j)) || !m.Time.IsZero() || m.TimeRaw != "" {
				t.Errorf("session %d message %d: id %q time %v %q", i, j, m.ID, m.Time, m.TimeRaw)
			}
		}
	}
	if ss[0].ID == ss[1].ID {
		t.Errorf("sessions share id %q", ss[0].ID)
	}

	s := ss[0]
	want := []string{
		"user/text: add a --dry-run flag to cmd/migrate",
		"assistant/text: I'll add the flag and skip the exec when it is set.\n\ncmd/migrate/main.go\n```go\n<<<<<<< SEARCH\n\tflag.Parse()\n=======\n\tdryRun := flag.Bool(\"dry-run\", false, \"print statements without executing\")\n\tflag.Parse()\n>>>>>>> REPLACE\n```",
		"user/command: /run go test ./cmd/...",
		"assistant/text: ",
	}
	if got := gaoTexts(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("session 1 messages:\n%q\nwant\n%q", got, want)
	}
	edit := []cairn.ToolCall{{Name: "aider", Output: "Tokens: 6.1k sent, 180 received. Cost: $0.02 message, $0.02 session.\nApplied edit to cmd/migrate/main.go\nCommit 4b2e9f1 feat: add --dry-run flag to migrate"}}
	if got := s.Messages[1].Tools; !reflect.DeepEqual(got, edit) {
		t.Errorf("status after the reply = %+v, want %+v", got, edit)
	}
	confirm := []cairn.ToolCall{{Name: "aider", Output: "Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: y"}}
	if got := s.Messages[3].Tools; !reflect.DeepEqual(got, confirm) {
		t.Errorf("status after the command = %+v, want %+v", got, confirm)
	}
	if s.Messages[1].Model != "anthropic/claude-sonnet-4-6" {
		t.Errorf("model = %q, want the banner's main model", s.Messages[1].Model)
	}
	if !reflect.DeepEqual(s.Stats.Skipped, map[string]int{"startup banner": 1}) {
		t.Errorf("skipped = %v", s.Stats.Skipped)
	}

	want = []string{
		"user/text: what did we change yesterday in migrate?\n(answer briefly)",
		"assistant/text: We added a `--dry-run` flag to `cmd/migrate` (commit 4b2e9f1).",
	}
	if got := gaoTexts(ss[1]); !reflect.DeepEqual(got, want) {
		t.Errorf("session 2 messages = %q, want %q", got, want)
	}
	gaoGolden(t, cairn.SourceAider, ".aider.chat.history.md", ss)
}

func TestAiderParse(t *testing.T) {
	const h1 = "# aider chat started at 2026-01-02 03:04:05\n\n"
	tests := []struct {
		name  string
		data  string
		texts [][]string // per session
		raw   []string   // StartedAtRaw per session
	}{
		{name: "empty", data: ""},
		{name: "blank lines only", data: "\n\n  \n"},
		{name: "header only", data: "\n" + h1 + "> Aider v0.86.1  \n", texts: [][]string{nil}, raw: []string{"2026-01-02 03:04:05"}},
		{
			name: "fenced prefixes are assistant text",
			data: h1 + "#### show a quote  \n\nHere:\n\n```md\n#### not a prompt\n> not status\n# aider chat started at x\n```\n\n> Tokens: 1k  \n",
			texts: [][]string{{"user/text: show a quote",
				"assistant/text: Here:\n\n```md\n#### not a prompt\n> not status\n# aider chat started at x\n```"}},
		},
		{
			name: "longer fences and tildes",
			data: h1 + "#### q\n\n````\n```\n#### inner\n```\n````\n~~~\n> quoted\n~~~\nafter\n",
			texts: [][]string{{"user/text: q",
				"assistant/text: ````\n```\n#### inner\n```\n````\n~~~\n> quoted\n~~~\nafter"}},
		},
		{
			name:  "truncated inside a fence",
			data:  h1 + "#### q\n\n```go\nfunc main() {\n#### x",
			texts: [][]string{{"user/text: q", "assistant/text: ```go\nfunc main() {\n#### x"}},
		},
		{
			name:  "truncated mid prompt",
			data:  h1 + "#### add a --dr",
			texts: [][]string{{"user/text: add a --dr"}},
		},
		{
			name:  "header ends an open fence",
			data:  h1 + "#### q\n\n```\nhalf\n\n# aider chat started at 2026-01-03 00:00:00\n\n#### next  \n",
			texts: [][]string{{"user/text: q", "assistant/text: ```\nhalf"}, {"user/text: next"}},
			raw:   []string{"2026-01-02 03:04:05", "2026-01-03 00:00:00"},
		},
		{
			name:  "text before the first header",
			data:  "tail of a reply\n\n" + h1 + "#### q\n",
			texts: [][]string{{"assistant/text: tail of a reply"}, {"user/text: q"}},
			raw:   []string{"", "2026-01-02 03:04:05"},
		},
		{
			name:  "crlf and status before the reply",
			data:  strings.ReplaceAll(h1+"#### /add a.go  \n\n> Added a.go to the chat  \n\n#### fix it  \n\nDone.\n\n> Applied edit to a.go  \n", "\n", "\r\n"),
			texts: [][]string{{"user/command: /add a.go", "assistant/text: ", "user/text: fix it", "assistant/text: Done."}},
		},
		{
			name:  "reply resumes after status",
			data:  h1 + "#### q\n\nfirst\n> Applied edit to a.go\nsecond\n",
			texts: [][]string{{"user/text: q", "assistant/text: first", "assistant/text: second"}},
		},
		{
			name:  "separate prompts and empty input line",
			data:  h1 + "#### one  \n####\n#### two  \n\n#### three\n",
			texts: [][]string{{"user/text: one\n\ntwo", "user/text: three"}},
		},
		{
			name:  "invalid header date falls back to mtime",
			data:  "# aider chat started at 2026-13-45 99:00:00\n\n#### q\n",
			texts: [][]string{{"user/text: q"}},
			raw:   []string{"2026-13-45 99:00:00"},
		},
		{
			name:  "invalid utf-8",
			data:  h1 + "#### caf\xe9\n",
			texts: [][]string{{"user/text: caf\uFFFD"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := gaoParse(t, cairn.SourceAider, "/src/repo/.aider.chat.history.md", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if len(ss) != len(tt.texts) {
				t.Fatalf("sessions = %d, want %d: %+v", len(ss), len(tt.texts), ss)
			}
			for i, s := range ss {
				if got := gaoTexts(s); !reflect.DeepEqual(got, tt.texts[i]) {
					t.Errorf("session %d messages:\n%q\nwant\n%q", i, got, tt.texts[i])
				}
				if s.ConversationID != "/src/repo" {
					t.Errorf("conversation = %q", s.ConversationID)
				}
				if tt.raw != nil && s.StartedAtRaw != tt.raw[i] {
					t.Errorf("session %d raw start = %q, want %q", i, s.StartedAtRaw, tt.raw[i])
				}
				if s.StartedAtRaw == "" || strings.HasPrefix(s.StartedAtRaw, "2026-13") {
					// No usable header time: no start time, never the file's mtime.
					if !s.StartedAt.IsZero() {
						t.Errorf("session %d start = %v, want none", i, s.StartedAt)
					}
				}
			}
		})
	}
}

func TestAiderLocation(t *testing.T) {
	data := []byte("# aider chat started at 2026-01-02 03:04:05\n#### q\n")
	ss, err := parseAider(data, ParseOptions{Path: "h.md"})
	if err != nil || len(ss) != 1 {
		t.Fatalf("parse: %v %v", ss, err)
	}
	if want := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC); !ss[0].StartedAt.Equal(want) {
		t.Errorf("start = %v, want UTC when no location is set", ss[0].StartedAt)
	}
	again, _ := parseAider(data, ParseOptions{Path: "h.md"})
	if again[0].ID != ss[0].ID {
		t.Errorf("ids not stable: %q, %q", ss[0].ID, again[0].ID)
	}
}

func FuzzParseAider(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "transcripts", "aider", ".aider.chat.history.md"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("# aider chat started at 2026-01-02 03:04:05\n#### q\n```\n> x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := parseAider(data, ParseOptions{Path: "r/.aider.chat.history.md"})
		if err != nil {
			t.Fatal(err)
		}
		gaoCheckSessions(t, ss, len(data))
		lines := strings.Count(string(data), "\n") + 1
		n := 0
		for _, s := range ss {
			n += s.Stats.Lines
		}
		if n > lines {
			t.Fatalf("sessions read %d lines of %d", n, lines)
		}
	})
}
