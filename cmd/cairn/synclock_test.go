//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a writer safe to read while another goroutine writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSyncWaitsForLock (item 10): with another process holding the sync
// lock, sync --json says on stderr whom it waits for and keeps stdout to
// its JSON.
func TestSyncWaitsForLock(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# A\n\nalpha\n"), 0o644)
	c.ok("init")
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	lock := filepath.Join(c.home, "agents", "default", "sync.lock")
	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	f.Truncate(0)
	f.WriteAt([]byte("4242 syncing\n"), 0)
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() { done <- run(context.Background(), []string{"sync", "--json"}, &stdout, &stderr) }()
	for !strings.Contains(stderr.String(), "waiting for another sync") {
		time.Sleep(5 * time.Millisecond)
	}
	f.Truncate(0) // the holder finished cleanly
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if code := <-done; code != 0 {
		t.Fatalf("sync: exit %d, stderr %q", code, stderr.String())
	}
	if want := "(pid 4242)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %s", stderr.String(), want)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil {
		t.Errorf("stdout is not one JSON value: %q", stdout.String())
	}
}
