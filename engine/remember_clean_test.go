package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
)

// A remembered memory keeps no control byte: a colour code before a token
// goes whole (and the token is redacted), a NUL inside a word, a lone CR (a line break)
// and invalid UTF-8 are cleaned, in every field and in the memory file
// (ux F1 addendum: memory_remember stored the raw ESC).
func TestRememberCleansControls(t *testing.T) {
	f := rememberFixture(t, nil)
	const tok = "ghp_ReMaNsI2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	res, err := f.eng.Remember(context.Background(), &cairn.RememberRequest{Agent: "test", Kind: "fact",
		Title: "Deploy\x00 key", Summary: "use \x1b[1m" + tok + "\x1b[0m for deploys\r\nalways\rtoday \xff",
		Cues: []string{"\x1b[31mred cue"}, Concepts: []string{"de\x07ploy"}})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Memory
	want := "use [REDACTED:github-token] for deploys always today \uFFFD" // the summary is one line (Told folds the newline)
	if m.Title != "Deploy key" || m.Summary != want || len(m.Cues) != 1 || m.Cues[0] != "red cue" || len(m.Concepts) != 1 || m.Concepts[0] != "deploy" {
		t.Errorf("stored title %q, summary %q, cues %q, concepts %q; want %q, %q, [red cue], [deploy]", m.Title, m.Summary, m.Cues, m.Concepts, "Deploy key", want)
	}
	b, err := os.ReadFile(filepath.Join(f.eng.memoriesRoot(), consolidate.DocumentPath(&m)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(b), "\x1b\x00\r\x07") || strings.Contains(string(b), "ReMaNsI2") || strings.Contains(string(b), "[1m") {
		t.Errorf("memory file holds a control byte, a colour code or the token:\n%q", b)
	}
	if got := cleanField("plain text\twith tab\n"); got != "plain text\twith tab\n" {
		t.Errorf("clean text changed: %q", got)
	}
}
