package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/sqlite"
)

// TestSyncFailsOnDamagedIndex: a page of index.db holding one note's
// text garbled, a sync with nothing to do and a sync with a changed file
// both fail (exit 1) naming index.db and cairn doctor --repair; the
// memories stay readable, and the repair and a sync bring the note back
// (review finding F12: both syncs said "done", exit 0).
func TestSyncFailsOnDamagedIndex(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	for i := 1; i <= 300; i++ {
		text := fmt.Sprintf("# Note %d\n\nwalrus %d tusk text about topic %d and more words here\n", i, i, i%17)
		if err := os.WriteFile(filepath.Join(notes, fmt.Sprintf("n%d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	c.ok("remember", "--kind", "fact", "--title", "Kept", "The walrus memory is kept.")
	index := filepath.Join(c.home, "agents", "default", sqlite.IndexFile)
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte("walrus 150 tusk"))
	if at < 0 {
		t.Fatalf("no page of %s holds note 150's text", index)
	}
	page := at / 4096 * 4096
	copy(b[page:page+4096], bytes.Repeat([]byte{0xa5}, 4096))
	if err := os.WriteFile(index, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"nothing changed", "a file changed"} {
		if step == "a file changed" {
			os.WriteFile(filepath.Join(notes, "n7.md"), []byte("# Note 7\n\nwalrus 7 changed\n"), 0o644)
		}
		_, stderr, code := c.run("sync")
		if code != 1 || !strings.Contains(stderr, index) || !strings.Contains(stderr, "cairn doctor --repair") {
			t.Errorf("sync, %s, over a damaged index: exit %d, stderr %q; want exit 1 naming %s and cairn doctor --repair", step, code, stderr, index)
		}
	}
	if out, _, _ := c.run("memories", "list"); !strings.Contains(out, "Kept") {
		t.Errorf("memories list over a damaged index: %q", out)
	}
	c.ok("doctor", "--repair")
	c.ok("sync")
	if out := c.ok("search", "walrus 150 tusk"); !strings.Contains(out, "cairn://notes/n150.md") {
		t.Errorf("after the repair, search finds no note 150: %q", out)
	}
	if out := c.ok("memories", "list"); !strings.Contains(out, "Kept") {
		t.Errorf("memories list after the repair: %q", out)
	}
}
