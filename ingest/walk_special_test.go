package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// TestWalkListsSpecialMatches: the aider and openai-chat walks list a
// matching name that is a symlink or a FIFO, so the sync's open can refuse
// it with its reason and count the failure, as ccFind's .jsonl entries
// are (ux F12: they were skipped without a word). Directories, links to
// directories and non-matching names stay out.
func TestWalkListsSpecialMatches(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	gaoWrite(t, out, map[string]string{"p2/.aider.chat.history.md": "# aider chat started at 2024-01-01 10:00:00\n", "c.json": "[]"})
	gaoWrite(t, root, map[string]string{"real/.aider.chat.history.md": "", "a.json": "[]"})
	for _, l := range [][2]string{
		{filepath.Join(out, "p2", ".aider.chat.history.md"), "proj/.aider.chat.history.md"},
		{filepath.Join(out, "p2"), "linkdir"},
		{filepath.Join(out, "c.json"), "b/c.json"},
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, l[1])), 0o755)
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "fifo"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo", ".aider.chat.history.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := aiderFind(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fifo/.aider.chat.history.md", "proj/.aider.chat.history.md", "real/.aider.chat.history.md"}; !reflect.DeepEqual(gaoRel(t, root, got), want) {
		t.Errorf("aiderFind = %q, want %q", gaoRel(t, root, got), want)
	}
	got, err = oaiFind(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.json", "b/c.json"}; !reflect.DeepEqual(gaoRel(t, root, got), want) {
		t.Errorf("oaiFind = %q, want %q", gaoRel(t, root, got), want)
	}
}
