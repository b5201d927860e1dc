package mcpserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// eventually polls cond until it holds or the test's deadline nears. It
// waits for background work; it asserts nothing about how long that takes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute)
	}
	for !cond() {
		if time.Until(deadline) < 5*time.Second {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWatcherSyncsChangedNotes(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	if err := f.agent.StartBackground(BackgroundOptions{Watch: true, Debounce: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	found := func(q, path string) func() bool {
		return func() bool {
			out, err := f.agent.Search(ctx, SearchIn{Query: q, MinScore: ptr(0.0)})
			return err == nil && len(out.Results) > 0 && out.Results[0].Path == path
		}
	}
	write(t, filepath.Join(f.notes, "new.md"), "# New\n\nThe heliotrope migration finished on Tuesday.\n")
	eventually(t, "the watcher indexes a new note", found("heliotrope migration", "cairn://notes/new.md"))
	// A new folder is watched too.
	write(t, filepath.Join(f.notes, "fresh", "deep.md"), "# Deep\n\nThe obsidian lantern sits in the attic.\n")
	eventually(t, "the watcher indexes a note in a new folder", found("obsidian lantern", "cairn://notes/fresh/deep.md"))
	st, err := f.agent.SyncStatus(ctx, Empty{})
	if err != nil {
		t.Fatal(err)
	}
	w := st.Background.Watcher
	if w == nil || !w.Enabled || w.Syncs == 0 || w.Directories < 3 || w.DebounceMs != 20 || w.LastError != "" {
		t.Errorf("watcher status: %+v", w)
	}
	d, _ := f.agent.Diagnostics(ctx, Empty{})
	if d.Background == nil || d.Background.Watcher == nil || d.Background.Watcher.Syncs == 0 {
		t.Errorf("diagnostics background: %+v", d.Background)
	}
	if err := f.agent.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPeriodicSessionSync(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true, noSync: true})
	if err := f.agent.StartBackground(BackgroundOptions{SyncInterval: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eventually(t, "a periodic session sync completes", func() bool {
		st, err := f.agent.SyncStatus(ctx, Empty{})
		return err == nil && st.Status == "completed"
	})
	st, _ := f.agent.SyncStatus(ctx, Empty{})
	if p := st.Background.Periodic; p == nil || p.Runs == 0 || p.LastAt == "" || p.NextAt == "" {
		t.Errorf("periodic status: %+v", p)
	}
	// Close waits for a running sync and stops the timer.
	if err := f.agent.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if running, _ := f.agent.sessions.state(); running {
		t.Errorf("a session sync still runs after Close")
	}
}

func TestNoPeriodicWithoutSessions(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	if err := f.agent.StartBackground(BackgroundOptions{SyncInterval: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if b := f.agent.background(); b != nil {
		t.Errorf("background without sessions or watcher: %+v", b)
	}
}

// TestWatcherSingleFileCorpus: a corpus of one file watches its folder,
// not the tree under it, and its changes sync it.
func TestWatcherSingleFileCorpus(t *testing.T) {
	f := newFixture(t, fixtureOpts{todo: "sub/TODO.md"})
	for _, d := range []string{"sub/a", "sub/b", "sub/a/c"} {
		write(t, filepath.Join(f.notes, d, "x.md"), "# x\n")
	}
	write(t, filepath.Join(f.notes, "sub", "TODO.md"), "# Todo\n\nBuy saffron.\n")
	a := f.agent
	if err := a.StartBackground(BackgroundOptions{Watch: true, Debounce: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := a.SyncStatus(ctx, Empty{})
	if err != nil {
		t.Fatal(err)
	}
	// The notes tree (notes, sub, sub/a, sub/b, sub/a/c) plus the todo
	// folder once more, not its subtree twice.
	if w := st.Background.Watcher; w == nil || w.Directories != 6 {
		t.Errorf("watcher status %+v: want 6 folders (5 for notes, 1 for the todo file)", w)
	}
	write(t, filepath.Join(f.notes, "sub", "TODO.md"), "# Todo\n\nBuy saffron and cardamom pods.\n")
	eventually(t, "the watcher syncs the changed todo file", func() bool {
		out, err := a.Search(ctx, SearchIn{Query: "cardamom pods", Corpora: []string{"todo"}, MinScore: ptr(0.0)})
		return err == nil && len(out.Results) > 0
	})
}

func TestWatchRootCovers(t *testing.T) {
	sep := string(filepath.Separator)
	deep := watchRoot{dir: sep + "n", deep: true}
	flat := watchRoot{dir: sep + "n"}
	tests := []struct {
		r    watchRoot
		path string
		want bool
	}{
		{deep, sep + "n" + sep + "a.md", true},
		{deep, sep + "n" + sep + "x" + sep + "a.md", true},
		{deep, sep + "nn" + sep + "a.md", false},
		{flat, sep + "n" + sep + "a.md", true},
		{flat, sep + "n" + sep + "x" + sep + "a.md", false},
		{flat, sep + "n", true},
	}
	for _, tt := range tests {
		if got := tt.r.covers(tt.path); got != tt.want {
			t.Errorf("%+v covers %s = %v, want %v", tt.r, tt.path, got, tt.want)
		}
	}
}
