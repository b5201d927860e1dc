package transcript

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
	"github.com/google/go-cmp/cmp"
)

// TestProjectBadCharactersGolden: NUL, escape, a lone carriage return and
// invalid UTF-8 are dropped or replaced in the message that holds them (and
// in a speaker's name); the other messages are untouched (issue 13 item 6).
func TestProjectBadCharactersGolden(t *testing.T) {
	t0 := time.Date(2026, 5, 4, 9, 15, 6, 0, time.UTC)
	s := &cairn.Session{Source: cairn.SourceClaudeCode, ID: "bad-chars", StartedAt: t0, Messages: []cairn.Message{
		{Role: cairn.RoleUser, Speaker: "Da\x00na", Text: "clean question", Time: t0},
		{Role: cairn.RoleAssistant, Text: "nul:\x00 esc:\x1b[31m red\x1b[0m cr:a\rb tab:\tok bad:\xff\xfe end\r\nnext line", Time: t0.Add(time.Second),
			Tools: []cairn.ToolCall{{Name: "Bash", Input: "cat bin\x00ary", Output: "\x7fELF\x02\x01\x01\x00"}}},
		{Role: cairn.RoleUser, Text: "another clean one", Time: t0.Add(2 * time.Second)},
	}}
	p, ok := Project(s, Options{})
	if !ok {
		t.Fatal("Project: not ok")
	}
	const golden = "testdata/bad-characters.md"
	if *update {
		os.WriteFile(golden, []byte(p.Text), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), p.Text); d != "" {
		t.Errorf("projection (-want +got):\n%s", d)
	}
	if strings.ContainsAny(p.Text, "\x00\x1b\r") || !strings.Contains(p.Text, "bad:\uFFFD\uFFFD end") {
		t.Errorf("bad characters left in:\n%q", p.Text)
	}
	if d := cmp.Diff(map[string]int{CutChars: 2}, p.Cut); d != "" { // the assistant message and the speaker's
		t.Errorf("cut (-want +got):\n%s", d)
	}
	if d := cmp.Diff(p.Spans, Messages(p.Text)); d != "" {
		t.Errorf("spans do not round-trip (-project +parsed):\n%s", d)
	}
}

// TestProjectCutsLongMessage: a message over DefaultMaxMessageBytes is cut
// with a marker and counted.
func TestProjectCutsLongMessage(t *testing.T) {
	s := &cairn.Session{Source: "codex", ID: "long", Messages: []cairn.Message{
		{Role: cairn.RoleUser, Text: strings.Repeat("é", DefaultMaxMessageBytes)},
	}}
	p, _ := Project(s, Options{})
	if len(p.Text) > DefaultMaxMessageBytes+200 || !strings.HasSuffix(p.Text, "[… message cut at 1 MiB]\n") || p.Cut[CutMessage] != 1 {
		t.Errorf("%d bytes, cut %v", len(p.Text), p.Cut)
	}
}

// TestParts: a long projection splits between messages into parts of at
// most the given size. Each part reads back (Messages) to its own spans,
// whose lines frame each message; together the parts hold every message
// once, in order; a projection that fits is returned as it is.
func TestParts(t *testing.T) {
	t0 := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	s := &cairn.Session{Source: "codex", ID: "parts", StartedAt: t0}
	for i := range 60 {
		role := cairn.RoleUser
		if i%2 == 1 {
			role = cairn.RoleAssistant
		}
		body := fmt.Sprintf("message %02d\n\n```\ncode %d\n```\n%s", i, i, strings.Repeat("word ", 20+i*7))
		s.Messages = append(s.Messages, cairn.Message{Role: role, Text: body, Time: t0.Add(time.Duration(i) * time.Minute)})
	}
	p, _ := Project(s, Options{})
	if got := p.Parts(len(p.Text)); len(got) != 1 || got[0].Text != p.Text || got[0].Path != p.Path {
		t.Fatalf("a projection that fits was split into %d parts", len(got))
	}
	const max = 4000
	parts := p.Parts(max)
	if len(parts) < 3 {
		t.Fatalf("%d parts of a %d-byte projection at %d bytes", len(parts), len(p.Text), max)
	}
	n := 0
	for k, part := range parts {
		if len(part.Text) > max {
			t.Errorf("part %d: %d bytes", k+1, len(part.Text))
		}
		if want := PartPath(p.Path, k+1); part.Path != want || k > 0 && !strings.HasSuffix(part.Path, fmt.Sprintf("--part-%03d.md", k+1)) {
			t.Errorf("part %d path %q, want %q", k+1, part.Path, want)
		}
		if k > 0 && !strings.HasPrefix(part.Text, fmt.Sprintf("# Transcript (part %d)\n\n## ", k+1)) {
			t.Errorf("part %d starts %q", k+1, part.Text[:40])
		}
		if d := cmp.Diff(part.Spans, Messages(part.Text)); d != "" {
			t.Errorf("part %d: spans do not round-trip (-part +parsed):\n%s", k+1, d)
		}
		lines := strings.Split(part.Text, "\n")
		for _, sp := range part.Spans {
			orig := p.Spans[n]
			if sp.Body(part.Text) != orig.Body(p.Text) || !strings.HasPrefix(lines[sp.StartLine-1], "## ") ||
				lines[sp.StartLine+1] != fmt.Sprintf("message %02d", n) || strings.TrimSpace(lines[sp.EndLine-1]) == "" {
				t.Errorf("part %d: message %d misplaced: %+v", k+1, n, sp)
			}
			n++
		}
	}
	if n != len(p.Spans) {
		t.Errorf("%d messages in the parts, want %d", n, len(p.Spans))
	}
}

// TestProjectDropsColourCodes: a session redacted before it is projected
// (as the engine does) with a token in coloured tool output: the token is
// redacted and the projection holds neither the escape bytes nor the rest
// of the colour codes ("[01;31m[K" used to be left glued to the token; ux
// F1).
func TestProjectDropsColourCodes(t *testing.T) {
	tokenText := "ghp_" + strings.Repeat("A1b2", 9)
	s := &cairn.Session{Source: cairn.SourceClaudeCode, ID: "colour", Messages: []cairn.Message{
		{Role: cairn.RoleUser, Text: "grep it"},
		{Role: cairn.RoleAssistant, Text: "found:", Tools: []cairn.ToolCall{{Name: "Bash", Input: "grep --color=always GITHUB config.env",
			Output: "config.env:GITHUB=\x1b[01;31m\x1b[K" + tokenText + "\x1b[m\x1b[K\n\x1b[1;4mbold\x1b[0m done \x1b[2J\x1b[?25l end" +
				" \x1b]8;;file:///home/dev/notes.md\x1b\\notes.md\x1b]8;;\x1b\\ \x1b]0;title\x07ok"}}},
	}}
	for i := range s.Messages {
		m := &s.Messages[i]
		m.Text, _ = redact.Redact(m.Text)
		for j := range m.Tools {
			m.Tools[j].Output, _ = redact.Redact(m.Tools[j].Output)
		}
	}
	p, ok := Project(s, Options{})
	if !ok {
		t.Fatal("Project: not ok")
	}
	if strings.Contains(p.Text, "A1b2A1b2") || strings.ContainsAny(p.Text, "\x1b") {
		t.Fatalf("token or ESC left in:\n%q", p.Text)
	}
	want := "  > config.env:GITHUB=" + redact.Placeholder("github-token") + " bold done  end notes.md ok"
	if !strings.Contains(p.Text, want) {
		t.Errorf("projection:\n%q\nwant it to hold %q", p.Text, want)
	}
}

// TestProjectRedactsAfterCleaning: a token split by a control byte is
// missed by the redaction the engine runs before projecting; dropping the
// byte joins it, so the projection redacts the cleaned message again and
// no whole token is written (ux F2).
func TestProjectRedactsAfterCleaning(t *testing.T) {
	half := "ghp_" + strings.Repeat("N1l2", 5)
	rest := strings.Repeat("Q7r8", 4)
	s := &cairn.Session{Source: cairn.SourceClaudeCode, ID: "split", Messages: []cairn.Message{
		{Role: cairn.RoleUser, Speaker: "sk-ant-api03-\x00" + strings.Repeat("Xy9-", 6), Text: "raw: " + half + "\x00" + rest + " end"},
		{Role: cairn.RoleAssistant, Text: "cr: " + half + "\r" + rest + "\nesc: " + half + "\x1b" + rest + "\nclean " + half + rest},
	}}
	for i := range s.Messages {
		m := &s.Messages[i]
		m.Text, _ = redact.Redact(m.Text)
		m.Speaker, _ = redact.Redact(m.Speaker)
	}
	if !strings.Contains(s.Messages[0].Text, half+"\x00") {
		t.Fatalf("the split token was redacted before projecting: %q", s.Messages[0].Text)
	}
	p, ok := Project(s, Options{})
	if !ok {
		t.Fatal("Project: not ok")
	}
	if strings.Contains(p.Text, half) || strings.Contains(p.Text, "Xy9-Xy9-") {
		t.Fatalf("a joined token is in the projection:\n%q", p.Text)
	}
	ph := redact.Placeholder("github-token")
	for _, want := range []string{"raw: " + ph + " end", "cr: " + ph + "\nesc: " + ph + "\nclean " + ph,
		"## User — " + redact.Placeholder("anthropic-key")} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("projection:\n%q\nwant it to hold %q", p.Text, want)
		}
	}
}

// TestProjectDropsFetchedSecrets: the output of a tool call that fetches
// a secret is a bare value no rule sees, so the projection replaces it by
// a placeholder; other tool output stays (ux F22).
func TestProjectDropsFetchedSecrets(t *testing.T) {
	var tools []cairn.ToolCall
	secrets := map[string]string{
		`{"command":"op read op://prod/db/password"}`:               "OpReAdPw9x7Q2z",
		`{"command":"cat ~/.config/cairn/token"}`:                   "3f5a9c2e8b7d1f4a6c0e9b2d5f8a1c4e",
		`{"command":"printenv DATABASE_PASSWORD"}`:                  "PrInTeNv9x7Q2z",
		`{"command":"security find-generic-password -w -s openai"}`: "KeYcHaIn8Wv3Lm9Np2Rt5Yx",
	}
	for in, out := range secrets {
		tools = append(tools, cairn.ToolCall{Name: "Bash", Input: in, Output: out + "\n"})
	}
	tools = append(tools, cairn.ToolCall{Name: "Bash", Input: `{"command":"go test ./..."}`, Output: "ok  app 0.2s"})
	s := &cairn.Session{Source: cairn.SourceClaudeCode, ID: "fetch", Messages: []cairn.Message{
		{Role: cairn.RoleUser, Text: "connect to the prod db"},
		{Role: cairn.RoleAssistant, Text: "fetching", Tools: tools},
	}}
	p, ok := Project(s, Options{})
	if !ok {
		t.Fatal("Project: not ok")
	}
	for _, v := range secrets {
		if strings.Contains(p.Text, v) {
			t.Errorf("fetched secret %q in the projection:\n%s", v, p.Text)
		}
	}
	if n := strings.Count(p.Text, "  > "+redact.Placeholder(redact.KindCommandOutput)); n != len(secrets) || !strings.Contains(p.Text, "  > ok app 0.2s") {
		t.Errorf("%d outputs replaced, want %d, and go test's kept:\n%s", n, len(secrets), p.Text)
	}
}
