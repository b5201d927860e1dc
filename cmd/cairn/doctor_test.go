package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctorCLI(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n"), 0o644)
	c.ok("init")
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	out := c.ok("doctor")
	for _, check := range []string{"index", "fulltext", "strays", "vectors", "temp_files", "lock", "memories"} {
		if !strings.Contains(out, check) {
			t.Errorf("doctor output lacks the %s check:\n%s", check, out)
		}
	}
	raw := c.ok("doctor", "--json")
	wantKeys(t, "doctor", json.RawMessage(raw), "checks", "dir", "problems", "repair")
	var rep struct{ Checks []json.RawMessage }
	json.Unmarshal([]byte(raw), &rep)
	wantKeys(t, "doctor check", rep.Checks[0], "detail", "name", "status")

	// A damaged index: search fails naming the file and the remedy, doctor
	// exits 1, doctor --repair rebuilds it.
	db := filepath.Join(c.home, "agents", "default", "index.db")
	os.WriteFile(db, bytes.Repeat([]byte("garbage!"), 1000), 0o600)
	_, errs, code := c.run("search", "busy")
	if code != 1 || !strings.Contains(errs, db) || !strings.Contains(errs, "cairn doctor --repair") {
		t.Errorf("search a damaged index: exit %d, stderr %q", code, errs)
	}
	out, errs, code = c.run("doctor")
	if code != 1 || !strings.Contains(out, "problem") || !strings.Contains(errs, "cairn doctor --repair") {
		t.Errorf("doctor on a damaged index: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	out = c.ok("doctor", "--repair")
	if !strings.Contains(out, "repaired") || !strings.Contains(out, ".damaged-") {
		t.Errorf("doctor --repair output:\n%s", out)
	}
	if out := c.ok("search", "busy"); !strings.Contains(out, "db.md") {
		t.Errorf("search after repair: %s", out)
	}
}
