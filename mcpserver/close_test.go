package mcpserver

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestCloseLeavesNoGoroutine: Close with a context that has already ended
// cancels the session sync and the watcher's flush it did not wait for,
// and still returns only when they have stopped (issue 15 item 4: before,
// it returned with them running). A sync asked for after Close does not
// start.
func TestCloseLeavesNoGoroutine(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true, noSync: true})
	if err := f.agent.StartBackground(BackgroundOptions{Watch: true, Debounce: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if out, err := f.agent.SyncSessions(ctx, SyncSessionsIn{}); err != nil || out.Status != "started" {
		t.Fatalf("sync sessions: %+v, %v", out, err)
	}
	write(t, filepath.Join(f.notes, "new.md"), "# New\n\nThe heliotrope migration finished.\n") // a watcher flush
	ended, cancel := context.WithCancel(ctx)
	cancel()
	f.agent.Close(ended) // an error: it did not wait for the syncs
	if running, _ := f.agent.sessions.state(); running {
		t.Fatal("Close returned while the session sync ran")
	}
	if left := goroutinesIn("cairn/mcpserver."); len(left) > 0 {
		t.Fatalf("goroutines left after Close:\n%s", strings.Join(left, "\n\n"))
	}
	if out, err := f.agent.SyncSessions(ctx, SyncSessionsIn{}); err != nil || out.Status == "started" {
		t.Fatalf("sync sessions after Close: %+v, %v", out, err)
	}
	if left := goroutinesIn("cairn/mcpserver."); len(left) > 0 {
		t.Fatalf("goroutines left after a sync asked for after Close:\n%s", strings.Join(left, "\n\n"))
	}
}

// goroutinesIn returns the stacks of the other goroutines with a frame
// whose function name contains one of the markers. A goroutine whose
// WaitGroup.Done has run may still be on its way out, so it looks again
// for up to 10 s before it reports one (a bound, not a measure: it returns
// as soon as none is left).
func goroutinesIn(markers ...string) []string {
	var out []string
	for range 1000 {
		if out = matchingGoroutines(markers); len(out) == 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return out
}

func matchingGoroutines(markers []string) []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 || strings.Contains(g, "testing.tRunner") { // this goroutine, the test runner
			continue
		}
		for _, m := range markers {
			if strings.Contains(g, m) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}
