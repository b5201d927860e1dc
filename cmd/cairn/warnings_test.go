package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverlappingCorporaWarn: two corpora covering the same folder are a
// warning on stderr when the config is loaded, and the command goes on
// (issue 14 item 9).
func TestOverlappingCorporaWarn(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.MkdirAll(filepath.Join(notes, "work"), 0o755)
	os.WriteFile(filepath.Join(notes, "work", "a.md"), []byte("# A\n\nalpha\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("corpus", "add", "work", filepath.Join(notes, "work"))
	out, errs, code := c.run("search", "alpha")
	if code != 0 || !strings.Contains(errs, `cairn: warning: `) || !strings.Contains(errs, `corpora "notes"`) ||
		!strings.Contains(errs, filepath.Join(notes, "work")) {
		t.Errorf("search: exit %d, stdout %q, stderr %q; want a warning naming both corpora and the folder", code, out, errs)
	}
}
