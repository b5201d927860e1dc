package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGetTakesSearchOutput: the path a search prints (with its line range)
// and the absolute path of an indexed file both read the document; a flag
// given explicitly overrides the range (issue 14 item 16).
func TestGetTakesSearchOutput(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n\n# Other\n\nUnrelated words here.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	out := c.ok("search", "busy_timeout")
	printed, _, _ := strings.Cut(out, " ")
	if !strings.HasPrefix(printed, "cairn://notes/db.md:1-") {
		t.Fatalf("search printed %q", out)
	}
	if got := c.ok("get", printed); !strings.Contains(got, "busy_timeout") || strings.Contains(got, "Unrelated") {
		t.Errorf("get %s = %q, want the hit's lines only", printed, got)
	}
	if got := c.ok("get", "cairn://notes/db.md:3-3", "--lines", "5"); !strings.HasPrefix(got, "Set busy_timeout") || !strings.Contains(got, "Unrelated") {
		t.Errorf("get with --lines = %q, want 5 lines from line 3", got)
	}
	if got := c.ok("get", filepath.Join(notes, "db.md"), "--from", "7"); got != "Unrelated words here.\n" {
		t.Errorf("get absolute path = %q", got)
	}
	if _, errs, code := c.run("get", filepath.Join(t.TempDir(), "db.md")); code == 0 || !strings.Contains(errs, "not found") {
		t.Errorf("get of a file never indexed: exit %d, stderr %q", code, errs)
	}
}
