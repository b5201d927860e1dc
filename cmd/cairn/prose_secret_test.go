package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIProsePasswordsRedacted: a password written in a sentence ("the
// password is ...", review finding F5) is redacted in every corpus kind
// that reaches the data directory: a note, a Claude Code session and a
// told memory. No file under the data directory and no output of sync,
// search, get or memories list holds it; get shows the placeholder, and
// the sentences about passwords next to it are kept.
func TestCLIProsePasswordsRedacted(t *testing.T) {
	secrets := []string{"hunter2x9", "Summer2024!", "Tr0ub4dor-q7Z", "k7Qp2mZx"}
	c := newCLI(t)
	notes := t.TempDir()
	note := "# Walrus staging\n\nThe walrus staging password is " + secrets[0] + ".\n" +
		"The password is in the vault; password is required for prod.\n"
	if err := os.WriteFile(filepath.Join(notes, "ops.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	ccRoot := t.TempDir()
	proj := filepath.Join(ccRoot, "projects", "-home-dev-api")
	os.MkdirAll(proj, 0o755)
	var cc strings.Builder
	parent := "null"
	for i, text := range []string{"walrus: my db password was " + secrets[1] + " until today",
		"walrus again, Password: " + secrets[2] + " for the admin account"} {
		msg, _ := json.Marshal(text)
		id := fmt.Sprintf("d0d0d0d0-0000-4000-8000-00000000000%d", i)
		fmt.Fprintf(&cc, `{"parentUuid":%s,"isSidechain":false,"cwd":"/home/dev/api","sessionId":"5ec2e700-0000-4000-8000-00000000f005","type":"user","message":{"role":"user","content":%s},"uuid":%q,"timestamp":"2026-05-06T10:0%d:00.000Z"}`+"\n", parent, msg, id, i)
		parent = fmt.Sprintf("%q", id)
	}
	if err := os.WriteFile(filepath.Join(proj, "5ec2e700-0000-4000-8000-00000000f005.jsonl"), []byte(cc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("corpus", "add", "notes", notes)
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "claude-code", "--root", "claude-code="+ccRoot)

	var outs []string
	run := func(args ...string) string {
		t.Helper()
		out := c.ok(args...)
		outs = append(outs, out)
		return out
	}
	run("remember", "--kind", "fact", "--title", "Walrus router", "The walrus router passphrase is '"+secrets[3]+"'.")
	run("sync", "--json")
	run("memories", "list", "--json")
	var hits struct{ Results []struct{ Path string } }
	json.Unmarshal([]byte(run("search", "walrus", "--json", "--limit", "20")), &hits)
	corpora := map[string]bool{}
	var docs strings.Builder
	for _, h := range hits.Results {
		corpora[strings.SplitN(strings.TrimPrefix(h.Path, "cairn://"), "/", 2)[0]] = true
		docs.WriteString(run("get", h.Path, "--lines", "1000", "--json"))
	}
	for _, want := range []string{"my db password was [REDACTED:password] until today", "Password: [REDACTED:password] for the admin account",
		"passphrase is '[REDACTED:password]'"} {
		if !strings.Contains(docs.String(), want) {
			t.Errorf("no document found holds %q: %s", want, docs.String())
		}
	}
	for _, want := range []string{"notes", "sessions", "memories"} {
		if !corpora[want] {
			t.Errorf("search walrus finds nothing in %s: %v", want, hits.Results)
		}
	}
	got := run("get", "cairn://notes/ops.md", "--json")
	if !strings.Contains(got, "The walrus staging password is [REDACTED:password].") ||
		!strings.Contains(got, "The password is in the vault; password is required for prod.") {
		t.Errorf("get of the note: %s", got)
	}
	for i, out := range outs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("output %d holds %q: %s", i, s, out)
			}
		}
	}
	noSecretStored(t, c.home, secrets)
}

// noSecretStored fails t for every file under home (the data directory:
// indexes, projections, memories, exports) that holds one of secrets, and
// when fewer than three files were read (a walk that saw nothing proves
// nothing).
func noSecretStored(t *testing.T, home string, secrets []string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%q stored in %s", s, p)
			}
		}
		return nil
	})
	if err != nil || files < 3 {
		t.Fatalf("walk the data directory: %v (%d files)", err, files)
	}
}
