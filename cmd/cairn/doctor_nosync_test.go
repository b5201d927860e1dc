package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorBeforeFirstSync: doctor before any sync checks the
// configuration (ux U14: it exited 1 with "nothing is indexed here yet"
// and checked no corpus): a readable corpus passes with the index "not
// there yet", exit 0; a corpus root that is gone is a problem, exit 1.
func TestDoctorBeforeFirstSync(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	c.ok("corpus", "add", "notes", notes)
	out, errs, code := c.run("doctor")
	if code != 0 || !strings.Contains(out, "index      not there yet: nothing is indexed here (run cairn sync)") || !strings.Contains(out, "corpora    1 corpus, 1 root, all readable") {
		t.Errorf("doctor before the first sync: exit %d\n%s%s", code, out, errs)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(gone, 0o755)
	c.ok("corpus", "add", "gone", gone)
	os.Remove(gone)
	out, _, code = c.run("doctor")
	if code != 1 || !strings.Contains(out, "gone: "+gone+" does not exist") {
		t.Errorf("doctor with a root gone before the first sync: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(c.home, "agents", "default", "index.db")); !os.IsNotExist(err) {
		t.Errorf("doctor made index.db (%v)", err)
	}
}
