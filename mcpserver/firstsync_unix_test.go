//go:build unix

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// A first sync that waits for another process's sync lock (a `cairn sync`
// in a terminal) does not hold searches past its bound: they answer with
// what is indexed and say the sync is in progress; once the lock is free
// the first sync runs and the note is found.
func TestFirstSyncWaitsForLockWithoutBlockingSearch(t *testing.T) {
	notes, data := t.TempDir(), t.TempDir()
	write(t, filepath.Join(notes, "db.md"), topics["db.md"])
	lock, err := os.OpenFile(filepath.Join(data, engine.LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := local.Open(ctx, engine.Options{Dir: data,
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	a := NewAgent("claude", eng)
	defer a.Close(ctx)
	if err := a.StartBackground(BackgroundOptions{FirstSync: true, FirstSyncWait: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	out, err := a.Search(ctx, SearchIn{Query: "busy timeout"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 0 || !strings.Contains(out.Notice, "sync in progress") {
		t.Errorf("search while the lock is held elsewhere: %+v; want no results and a sync in progress", out)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first sync runs once the lock is free", func() bool {
		out, err := a.Search(ctx, SearchIn{Query: "busy timeout"})
		return err == nil && len(out.Results) == 1 && out.Notice == ""
	})
}
