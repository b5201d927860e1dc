package mcpserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// TestWatcherSkipsExcludedFolders: the watcher does not watch a folder the
// scan never enters (Cairn's data folder under a corpus root, ux F21), whose
// session copies each sync writes would start the next sync.
func TestWatcherSkipsExcludedFolders(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "home/agents/default/sessions", "homely"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Skipf("no file watcher: %v", err)
	}
	defer fw.Close()
	d := &dirWatcher{w: fw, skip: []string{filepath.Join(root, "home")}}
	if n := d.addTree(root); n != 3 { // root, a, homely
		t.Errorf("addTree watched %d folders, want 3: %q", n, fw.WatchList())
	}
}
