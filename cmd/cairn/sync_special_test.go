package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSyncAiderSpecialFiles: an aider history file that is a symlink
// leading outside the source root, or a FIFO, is a failure with its reason
// in cairn sync's output, as for Claude Code; the regular one beside them
// is indexed (ux F12: both were skipped without a word, "files 0").
func TestSyncAiderSpecialFiles(t *testing.T) {
	c := newCLI(t)
	root, outside := t.TempDir(), t.TempDir()
	history := "# aider chat started at 2024-05-01 10:00:00\n\n#### how do I rotate the walrus key?\n\nRun rotate.sh in the ops folder.\n"
	for _, d := range []string{"real", "proj", "fifo"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "real", ".aider.chat.history.md"), []byte(history), 0o644)
	os.WriteFile(filepath.Join(outside, ".aider.chat.history.md"), []byte(strings.ReplaceAll(history, "walrus", "narwhal")), 0o644)
	if err := os.Symlink(filepath.Join(outside, ".aider.chat.history.md"), filepath.Join(root, "proj", ".aider.chat.history.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo", ".aider.chat.history.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("init", "--no-discover")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "aider", "--root", "aider="+root)
	out := c.ok("sync")
	for _, want := range []string{
		"failed: aider: " + filepath.Join(root, "proj", ".aider.chat.history.md") + ": not read: open transcript: symbolic link leads outside the source root",
		"failed: aider: " + filepath.Join(root, "fifo", ".aider.chat.history.md") + ": not read: open transcript: not a regular file (a FIFO)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sync output lacks %q:\n%s", want, out)
		}
	}
	if !regexpLine(out, `^\s+aider\s+3\s+1\s+1\s+1\s+0\s+0\s+0\s+2$`) {
		t.Errorf("aider row: want 3 files, 1 changed, 1 session, 2 failed:\n%s", out)
	}
	if out := c.ok("search", "walrus", "--mode", "lexical"); !strings.Contains(out, "rotate") {
		t.Errorf("search walrus: %s", out)
	}
	if out := c.ok("search", "narwhal", "--mode", "lexical"); !strings.Contains(out, "no results") {
		t.Errorf("the linked file outside the root was read: %s", out)
	}
}
