package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// TestSyncLock: the agent's sync lock is held across handles (processes):
// a second taker waits until the first releases it; another agent's lock
// is its own.
func TestSyncLock(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_synclock")
	a1, a2, other := openTest(t, b, "a"), openTest(t, b, "a"), openTest(t, b, "b")
	ctx := context.Background()
	unlock, err := a1.LockSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := a2.LockSync(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second handle of agent a took the held lock: %v", err)
	}
	u, err := other.LockSync(ctx)
	if err != nil {
		t.Fatalf("agent b's lock: %v", err)
	}
	u()
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	u, err = a2.LockSync(ctx)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	u()
}

// TestTwoServersOneAgent: two engines in two data folders (two servers
// behind a load balancer) serve one agent from one database; syncing the
// same corpus at once, one waits for the other, and the index holds each
// document once, as one clean sync makes it.
func TestTwoServersOneAgent(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_team")
	b.Agent = "team"
	ctx := context.Background()
	notes := t.TempDir()
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(notes, fmt.Sprintf("n%02d.md", i)), []byte(fmt.Sprintf("# Note %d\n\nwalrus number %d\n", i, i)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	corpora := []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: "**/*.md"}}
	var engines []*engine.Engine
	for range 2 {
		eng, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Backend: b, Corpora: corpora})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close(ctx)
		engines = append(engines, eng)
	}
	// A sync waits while another server holds the agent's lock.
	holder := openTest(t, b, "team")
	unlock, err := holder.LockSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = engines[0].Sync(short, nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a sync beside another server's held lock: %v, want it to wait (deadline exceeded)", err)
	}
	unlock()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, eng := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = eng.Sync(ctx, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d sync: %v", i, err)
		}
	}
	for i, eng := range engines {
		hits, err := eng.Search(ctx, "walrus", &cairn.SearchOptions{Limit: 100, Mode: cairn.ModeLexical})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 30 {
			t.Errorf("server %d finds %d notes, want each of 30 once", i, len(hits))
		}
	}
}
