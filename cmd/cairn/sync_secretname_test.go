package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/redact/redacttest"
)

// TestSyncSecretFileName: a note whose file name holds a token (ux F23) is
// not indexed: sync counts it failed under the redacted name, naming the
// kind, and no file of the data folder holds the token, while the other
// note is searchable. Before, the path (and the title taken from it) was
// stored and shown as written, and sync said nothing.
func TestSyncSecretFileName(t *testing.T) {
	var secret string
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			secret = s.Secret
		}
	}
	c := newCLI(t)
	notes := t.TempDir()
	for name, text := range map[string]string{secret + ".md": "deploy checklist for the saffron release\n", "plain.md": "saffron harvest notes\n"} {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.ok("corpus", "add", "notes", notes)
	out := c.ok("sync")
	if want := "failed: notes/[REDACTED:github-token].md: file name holds a secret (github-token): not indexed; rename the file"; !strings.Contains(out, want) {
		t.Errorf("sync output lacks %q:\n%s", want, out)
	}
	for _, args := range [][]string{{"sync", "--json"}, {"sync", "status"}, {"search", "saffron", "--json"}} {
		if out := c.ok(args...); strings.Contains(out, secret) {
			t.Errorf("cairn %v prints the token:\n%s", args, out)
		}
	}
	if out := c.ok("search", "harvest", "--json"); !strings.Contains(out, "cairn://notes/plain.md") {
		t.Errorf("the other note is not found: %s", out)
	}
	filepath.WalkDir(c.home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
}
