package whisper

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// TestSessionPassages: a session hit's passage is its turn when the turn
// fits 1,200 characters, else the messages its chunk touches (C12's
// enhanced budget), never over 1,200 characters, with the messages'
// dates.
func TestSessionPassages(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "projects", "-home-dev-zoo")
	os.MkdirAll(dir, 0o755)
	long := strings.Repeat("The enclosure plan covers water, shade and fencing in detail. ", 25) // about 1,550 characters
	lines := []map[string]any{
		msg("u1", "", "user", "Where should the okapi enclosure go?", "2026-05-04T09:00:00Z"),
		msg("a1", "u1", "assistant", long, "2026-05-04T09:00:05Z"),
		msg("u2", "a1", "user", "And the zebra feeding times?", "2026-05-04T09:10:00Z"),
		msg("a2", "u2", "assistant", "Zebras eat at 8 and 16.", "2026-05-04T09:10:04Z"),
	}
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	os.WriteFile(filepath.Join(dir, "9a8b7c6d-0000-4000-8000-000000000001.jsonl"), []byte(b.String()), 0o600)
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions,
		MaxExpandedTokens: 1000, Sources: []cairn.SourceSpec{{ID: cairn.SourceClaudeCode, Roots: []string{root}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ query, want, not string }{
		{"okapi enclosure", "user: Where should the okapi enclosure go?", "water, shade"}, // the turn is too long: the message alone
		{"zebra feeding", "user: And the zebra feeding times?\nassistant: Zebras eat at 8 and 16.", ""},
	} {
		lex, _, err := EngineRetriever{Engine: eng}.Lanes(ctx, LaneQuery{Lex: tt.query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(lex) == 0 {
			t.Fatalf("%s: no hit", tt.query)
		}
		p := lex[0]
		if !strings.HasPrefix(p.Text, tt.want) || (tt.not != "" && strings.Contains(p.Text, tt.not)) || utf8.RuneCountInString(p.Text) > MaxPassageChars {
			t.Errorf("%s: passage (%d chars)\n%s", tt.query, utf8.RuneCountInString(p.Text), p.Text)
		}
		if len(p.Dates) == 0 {
			t.Errorf("%s: no dates", tt.query)
		}
	}
}

func msg(id, parent, role, text, ts string) map[string]any {
	m := map[string]any{"uuid": id, "type": role, "timestamp": ts, "sessionId": "9a8b7c6d-0000-4000-8000-000000000001",
		"cwd": "/home/dev/zoo", "isSidechain": false, "userType": "external"}
	if parent == "" {
		m["parentUuid"] = nil
	} else {
		m["parentUuid"] = parent
	}
	if role == "user" {
		m["message"] = map[string]any{"role": "user", "content": text}
	} else {
		m["message"] = map[string]any{"role": "assistant", "id": fmt.Sprintf("msg_%s", id), "type": "message",
			"content": []any{map[string]any{"type": "text", "text": text}}}
	}
	return m
}
