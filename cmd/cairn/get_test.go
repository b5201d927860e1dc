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
	// The corpus name matches ignoring case, as in MCP memory_get (ux
	// U30); the file name does not.
	if got := c.ok("get", "cairn://NOTES/db.md:3-3"); !strings.HasPrefix(got, "Set busy_timeout") {
		t.Errorf("get cairn://NOTES/db.md = %q", got)
	}
	if _, _, code := c.run("get", "cairn://notes/DB.md"); code == 0 {
		t.Errorf("get cairn://notes/DB.md found a document: file names are case-sensitive")
	}
}

// TestGetPastEnd: --from past the document's last line (given as a flag or
// in the path's range) exits 2 naming the from, the document and its
// lines, with --json too; before, it printed nothing and exited 0. From
// the last line, --lines past the end prints what there is.
func TestGetPastEnd(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n\n# Other\n\nUnrelated words here.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	const want = "from 8 is past the end of cairn://notes/db.md (7 lines): from must be 1..7"
	for _, args := range [][]string{
		{"get", "cairn://notes/db.md", "--from", "8"},
		{"get", "cairn://notes/db.md", "--from", "8", "--json"},
		{"get", "cairn://notes/db.md:8-9"},
		{"get", filepath.Join(notes, "db.md"), "--from", "8", "--lines", "1"},
	} {
		out, errs, code := c.run(args...)
		if code != 2 || out != "" || !strings.Contains(errs, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", args, code, out, errs, want)
		}
	}
	if got := c.ok("get", "cairn://notes/db.md", "--from", "7", "--lines", "1000"); got != "Unrelated words here.\n" {
		t.Errorf("get --from 7 --lines 1000 = %q, want the last line", got)
	}
}
