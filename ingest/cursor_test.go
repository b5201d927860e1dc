package ingest

import (
	"os"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestCursorSessionInline reads the older composer shape, with the bubbles
// inline, and a composer with no start time (none is invented).
func TestCursorSessionInline(t *testing.T) {
	composer := `{"composerId":"c1","conversation":[{"bubbleId":"b1","type":1,"text":"hi","context":{"fileSelections":[{"text":"file only"}]}},{"bubbleId":"b2","type":2,"text":"hello"}]}`
	s, ok := CursorSession([]byte(composer), func(string) []byte { return nil }, "")
	if !ok || len(s.Messages) != 2 || s.Messages[0].Text != "hi" || s.Messages[1].Role != cairn.RoleAssistant {
		t.Fatalf("ok %v, messages %+v", ok, s.Messages)
	}
	if !s.StartedAt.IsZero() || s.StartedAtRaw != "" {
		t.Errorf("start %v %q, want none", s.StartedAt, s.StartedAtRaw)
	}
	if _, ok := CursorSession([]byte(`{"name":"no id"}`), nil, ""); ok {
		t.Errorf("a composer without an id was read")
	}
}

func FuzzParseCursor(f *testing.F) {
	seed, err := os.ReadFile("testdata/transcripts/cursor/seed.sql")
	if err != nil {
		f.Fatal(err)
	}
	// the composer and a bubble value of the shared fixture
	for _, line := range strings.Split(string(seed), "\n") {
		if i := strings.Index(line, "','{"); i > 0 {
			v := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(line[i+3:], ";"), ","), ")")
			f.Add([]byte(strings.TrimSuffix(v, "'")), []byte(`{"type":2,"text":"x","toolFormerData":{"name":"t","rawArgs":"{\"command\":\"ls\"}","result":"out"}}`))
		}
	}
	f.Fuzz(func(t *testing.T, composer, bubble []byte) {
		s, ok := CursorSession(composer, func(string) []byte { return bubble }, "/w")
		if !ok {
			return
		}
		if s.Source != cairn.SourceCursor || s.ID == "" {
			t.Fatalf("session %q %q", s.Source, s.ID)
		}
		for _, m := range s.Messages {
			if m.Role != cairn.RoleUser && m.Role != cairn.RoleAssistant {
				t.Fatalf("role %q", m.Role)
			}
			if m.Role == cairn.RoleUser && len(m.Tools) > 0 {
				t.Fatalf("tool output under a user message")
			}
		}
	})
}
