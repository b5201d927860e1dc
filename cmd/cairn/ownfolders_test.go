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
	note := "corpus notes: Cairn's data folder " + home + " lies under its root and is not scanned"
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
