package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/internal/testshared"
)

// TestCLISecretRepeatsRedacted: a secret a rule redacts in one turn of a
// Claude Code session is redacted where another turn repeats it bare,
// before or after (review finding ux F5: "I will not repeat hunter2" was
// stored and found by cairn search hunter2). The fixture transcript gets
// three more turns; no file under the data directory (projection,
// index.db, memory.db) nor the export holds a secret, search finds
// nothing for one, and get shows the placeholders in the assistant's turn.
func TestCLISecretRepeatsRedacted(t *testing.T) {
	secrets := []string{"hunter2x9", "Tr0ub4dor-q7Z", "7Hq2mZx9Lk"}
	c := newCLI(t)
	ccRoot := t.TempDir()
	fixture := filepath.Join(testshared.Dir(t, "fixtures/transcripts/claude-code"), "fixtures", "transcripts", "claude-code")
	if err := os.CopyFS(ccRoot, os.DirFS(fixture)); err != nil {
		t.Fatalf("copy the fixture transcripts: %v", err)
	}
	main := filepath.Join(ccRoot, "projects", "-home-dev-acme-api", "7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f.jsonl")
	f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	parent := "c9d0e1f2-0000-4000-8000-00000000000d" // the fixture's last turn
	for i, turn := range []struct{ role, text string }{
		{"user", "oops, I typed " + secrets[2] + " into the shell history"},
		{"user", "the password is " + secrets[0] + " and the admin passphrase is '" + secrets[2] + "'. Password: " + secrets[1] + " for the admin account"},
		{"assistant", "Noted. I will not repeat " + secrets[0] + " or " + secrets[1] + " anywhere, and " + secrets[2] + " should be rotated."},
	} {
		content, _ := json.Marshal(turn.text)
		if turn.role == "assistant" {
			content, _ = json.Marshal([]map[string]string{{"type": "text", "text": turn.text}})
		}
		id := fmt.Sprintf("e1e1e1e1-0000-4000-8000-00000000000%d", i)
		fmt.Fprintf(f, `{"parentUuid":%q,"isSidechain":false,"cwd":"/home/dev/acme-api","sessionId":"7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f","type":%q,"message":{"role":%q,"model":"claude-sonnet-4-6","content":%s},"uuid":%q,"timestamp":"2026-05-04T09:3%d:00.000Z"}`+"\n",
			parent, turn.role, turn.role, content, id, i)
		parent = id
	}
	f.Close()
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "claude-code", "--root", "claude-code="+ccRoot)
	c.ok("sync")

	var hits struct{ Results []struct{ Path string } }
	out := c.ok("search", "will not repeat anywhere rotated", "--json", "--limit", "5")
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits.Results) == 0 {
		t.Fatalf("search for the assistant's turn: %v %s", err, out)
	}
	doc := c.ok("get", hits.Results[0].Path, "--lines", "1000")
	for _, want := range []string{
		"oops, I typed [REDACTED:password] into the shell history",
		"the password is [REDACTED:password] and the admin passphrase is '[REDACTED:password]'. Password: [REDACTED:password] for the admin account",
		"I will not repeat [REDACTED:password] or [REDACTED:password] anywhere, and [REDACTED:password] should be rotated.",
		"also check the refresh-token test", // the fixture's own turns stay
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the session document lacks %q:\n%s", want, doc)
		}
	}
	for _, s := range secrets {
		if out, _, _ := c.run("search", s, "--json", "--mode", "lexical"); strings.Contains(out, "cairn://") {
			t.Errorf("search %s finds %s", s, out)
		}
	}
	c.ok("export", filepath.Join(c.home, "agent.cairn.jsonl"))

	noSecretStored(t, c.home, secrets)
}
