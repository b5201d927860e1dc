package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncPrintsFilesRedactions: sync's text output counts the secrets a
// files corpus redacted, as it does a sessions source's (a new user's try:
// only --json said a note had two).
func TestSyncPrintsFilesRedactions(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	note := "# Deploy\n\nthe password is hunter2x9 for staging\n\ntoken ghp_0123456789abcdefghijABCDEFGHIJ012345\n"
	if err := os.WriteFile(filepath.Join(dir, "deploy.md"), []byte(note), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("corpus", "add", "notes", dir)
	out := c.ok("sync")
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "notes: ") && strings.Contains(l, "secrets redacted") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 || !strings.Contains(out, "secrets redacted: password") {
		t.Fatalf("sync output names no redaction of the notes corpus:\n%s", out)
	}
	if out := c.ok("sync"); strings.Contains(out, "secrets redacted") {
		t.Fatalf("a no-op sync counts redactions again:\n%s", out)
	}
}
