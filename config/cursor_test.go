package config

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestCursorRoots: Cursor's root is the folder holding User/ (Linux:
// $XDG_CONFIG_HOME/Cursor, else ~/.config/Cursor); discovery finds its chat
// store there and counts it; config accepts the id.
func TestCursorRoots(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux layout")
	}
	none := func(string) string { return "" }
	if got := DefaultRoots(cairn.SourceCursor, none, "/h"); !cmp.Equal(got, []string{"/h/.config/Cursor"}) {
		t.Errorf("default %v", got)
	}
	xdg := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": "/x"}[k] }
	if got := DefaultRoots(cairn.SourceCursor, xdg, "/h"); !cmp.Equal(got, []string{"/x/Cursor"}) {
		t.Errorf("XDG_CONFIG_HOME %v", got)
	}
	home := t.TempDir()
	root := filepath.Join(home, ".config", "Cursor")
	touch(t, filepath.Join(root, "User", "globalStorage", "state.vscdb"), "")
	touch(t, filepath.Join(root, "User", "workspaceStorage", "abc", "state.vscdb"), "")
	got := Discover(none, home)
	want := []FoundSource{{ID: cairn.SourceCursor, Roots: []string{root}, Transcripts: 1}}
	if diff := cmp.Diff(want, got.Sources); diff != "" {
		t.Errorf("discover (-want +got):\n%s", diff)
	}
	if !containsSource(cairn.Sources, "cursor") {
		t.Errorf("cursor is not a source: %v", cairn.Sources)
	}
}

func containsSource(ids []string, id string) bool {
	for _, s := range ids {
		if s == id {
			return true
		}
	}
	return false
}
