package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnFoldersNotScanned: a files corpus of a folder that holds
// CAIRN_HOME (ux F21: `cairn corpus add notes ~` with the data folder under
// ~) indexes neither the session copies Cairn writes there nor anything
// else of it, sync and doctor say so in one line, and a search finds the
// session once, in the sessions corpus. Before, the second sync took the
// copies into notes and each session hit showed twice.
func TestOwnFoldersNotScanned(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "cairn-home")
	t.Setenv("CAIRN_HOME", home)
	c := &cli{t: t, home: home}
	if err := os.WriteFile(filepath.Join(root, "note.md"), []byte("# Note\n\nA note about gardening.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fixtures := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "notes", root)
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+fixtures)
	c.ok("sync")
	out := c.ok("sync") // the copies exist now: a scan of root would find them
	note := "corpus notes: Cairn's data folder " + filepath.Join(home, "agents") + " lies under its root and is not scanned"
	if strings.Count(out, note) != 1 {
		t.Errorf("sync output lacks one %q:\n%s", note, out)
	}
	if strings.Contains(out, "failed:") {
		t.Errorf("sync reports failures:\n%s", out)
	}
	hits := c.ok("search", "metric units", "--json")
	if strings.Contains(hits, "cairn://notes/") {
		t.Errorf("notes holds Cairn's own files: %s", hits)
	}
	if !strings.Contains(hits, "cairn://sessions/") {
		t.Errorf("the session is not found: %s", hits)
	}
	if n := c.ok("search", "gardening", "--json"); !strings.Contains(n, "cairn://notes/note.md") {
		t.Errorf("the note beside the data folder is not found: %s", n)
	}
	doc, _, _ := c.run("doctor")
	if !strings.Contains(doc, note) {
		t.Errorf("doctor lacks %q:\n%s", note, doc)
	}
}

// TestNotesInsideCairnHome: notes kept in CAIRN_HOME beside config.toml
// ($CAIRN_HOME/notes) are indexed, and a corpus of CAIRN_HOME itself
// leaves out agents/ alone (ux U24: the first F21 fix excluded all of
// CAIRN_HOME, so such notes were no longer indexed, and the note said the
// reverse). A corpus rooted inside agents/ reads nothing and says so: sync
// fails the root, doctor reports a problem.
func TestNotesInsideCairnHome(t *testing.T) {
	c := newCLI(t)
	notes := filepath.Join(c.home, "notes")
	os.MkdirAll(notes, 0o755)
	if err := os.WriteFile(filepath.Join(notes, "a.md"), []byte("walrus colony notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("corpus", "add", "notes", notes)
	if out := c.ok("sync"); strings.Contains(out, "not scanned") {
		t.Errorf("sync of notes beside agents/ says a folder is left out:\n%s", out)
	}
	if hits := c.ok("search", "walrus", "--json"); !strings.Contains(hits, "cairn://notes/a.md") {
		t.Errorf("notes inside CAIRN_HOME are not found: %s", hits)
	}
	c.ok("corpus", "add", "home", c.home)
	out := c.ok("sync")
	if want := "corpus home: Cairn's data folder " + filepath.Join(c.home, "agents") + " lies under its root and is not scanned"; !strings.Contains(out, want) {
		t.Errorf("sync lacks %q:\n%s", want, out)
	}
	if hits := c.ok("search", "walrus", "--json"); !strings.Contains(hits, "cairn://home/notes/a.md") {
		t.Errorf("a corpus of CAIRN_HOME does not find its notes: %s", hits)
	}
	inside := filepath.Join(c.home, "agents", "default")
	c.ok("corpus", "add", "mine", inside)
	out, _, _ = c.run("sync")
	if want := "failed: mine: " + inside + ": corpus root lies in a folder Cairn keeps its own data in; nothing is read"; !strings.Contains(out, want) {
		t.Errorf("sync lacks %q:\n%s", want, out)
	}
	doc, _, code := c.run("doctor")
	if want := "mine: " + inside + " lies in Cairn's data folder " + filepath.Join(c.home, "agents") + ", which is never scanned"; code != 1 || !strings.Contains(doc, want) {
		t.Errorf("doctor: exit %d, lacks %q:\n%s", code, want, doc)
	}
}
