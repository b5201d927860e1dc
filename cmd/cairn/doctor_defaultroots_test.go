package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorDefaultRootsAbsent: a sessions corpus of claude-code and codex
// on a home that holds ~/.claude alone passes doctor, naming the standard
// folders not there yet (~/.config/claude, ~/.codex) as a note (ux U27:
// doctor failed with "does not exist" for them though sync was fine).
func TestDoctorDefaultRootsAbsent(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(k, "")
	}
	os.MkdirAll(filepath.Join(home, ".claude", "projects"), 0o755)
	c := newCLI(t)
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "claude-code", "--source", "codex")
	c.ok("sync")
	out, stderr, code := c.run("doctor")
	if code != 0 || strings.Contains(out, "problem") {
		t.Fatalf("doctor: exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "no transcripts yet at the standard") || !strings.Contains(out, filepath.Join(home, ".codex")) {
		t.Errorf("doctor does not note the absent standard folders:\n%s", out)
	}
}
