package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// onScan sets afterScanHook for the rest of the test.
func onScan(t *testing.T, fn func()) {
	t.Helper()
	afterScanHook = func(string) { fn() }
	t.Cleanup(func() { afterScanHook = nil })
}

// syncWithin runs one sync of eng and returns its result, calling
// onTimeout when it has not returned after d: a read that blocks (a named
// pipe) then fails the test instead of hanging it.
func syncWithin(t *testing.T, eng *Engine, d time.Duration, onTimeout func()) *cairn.SyncResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*d)
	defer cancel()
	type result struct {
		res *cairn.SyncResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := eng.Sync(ctx, nil)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("Sync: %v", r.err)
		}
		return r.res
	case <-time.After(d):
		onTimeout()
		t.Fatalf("Sync still running after %v: a read blocked", d)
		return nil
	}
}

// syncSoon is syncWithin for the notes fixture: on a timeout it unblocks
// the pipes so the test can clean up.
func (f *fixture) syncSoon() *cairn.SyncResult {
	f.t.Helper()
	return syncWithin(f.t, f.eng, 20*time.Second, f.unblockPipes)
}

// unblockPipes opens every named pipe in the notes for writing and closes
// it, so a read blocked on one ends and the test can clean up.
func (f *fixture) unblockPipes() {
	entries, _ := os.ReadDir(f.notes)
	for _, e := range entries {
		if e.Type()&os.ModeNamedPipe != 0 {
			if w, err := os.OpenFile(filepath.Join(f.notes, e.Name()), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	}
}

func reasons(r cairn.CorpusSyncResult) map[string]string {
	out := map[string]string{}
	for _, fl := range r.Failures {
		out[fl.Path] = fl.Reason
	}
	return out
}

func (f *fixture) status(path string) string {
	f.t.Helper()
	g, err := f.eng.Get(context.Background(), Scheme+"notes/"+path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return g.Status
}

// A symlink swapped to a file outside the corpus, before the sync or
// between its scan and its read, never gets that file indexed, and the
// document it named leaves the index instead of keeping its snapshot.
func TestSyncSymlinkSwap(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "shadow.md")
	if err := os.WriteFile(secret, []byte("# Shadow\n\nroot:narwhal:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string]string{"inside.md": "# Inside\n\nharmless capybara notes\n"}, Options{})
	link := filepath.Join(f.notes, "link.md")
	swap := func(target string) {
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	swap("inside.md")
	if r := f.syncSoon().Corpora[0]; r.Added != 2 || f.status("link.md") != cairn.StatusOK {
		t.Fatalf("first sync = %+v; want inside.md and link.md indexed", r)
	}

	// Swapped before the sync: the scan sees it and the snapshot goes.
	swap(secret)
	r := f.syncSoon().Corpora[0]
	if reasons(r)["link.md"] != ingest.ReasonSymlinkOutside || r.Removed != 1 {
		t.Errorf("sync after the swap = %+v; want link.md failed as outside and removed", r)
	}
	if f.status("link.md") != cairn.StatusNotFound || len(f.paths("capybara")) != 1 {
		t.Errorf("link.md still readable (%s) or searchable (capybara: %v)", f.status("link.md"), f.paths("capybara"))
	}

	// Swapped between the scan and the read.
	swap("inside.md")
	f.syncSoon()
	f.write("inside.md", "# Inside\n\nharmless capybara notes, edited\n") // so the link is read again
	onScan(t, func() { swap(secret) })
	r = f.syncSoon().Corpora[0]
	if reasons(r)["link.md"] != ingest.ReasonSymlinkOutside || r.Removed != 1 || r.Updated != 1 {
		t.Errorf("sync with a swap after the scan = %+v; want link.md refused and removed, inside.md updated", r)
	}
	if got := f.paths("narwhal"); len(got) != 0 {
		t.Errorf("search narwhal = %v: the file outside the corpus was indexed", got)
	}
	if f.status("link.md") != cairn.StatusNotFound {
		t.Errorf("link.md is %s, want not_found", f.status("link.md"))
	}
}

// Named pipes and devices are never read: one in the folder or linked
// from it is skipped, one swapped in after the scan is refused at once.
func TestSyncSkipsPipesAndDevices(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# A\n\nplain marmot note\n",
		"b.md": "# B\n\nwill become a pipe\n",
		"c.md": "# C\n\nwill become a device link\n",
	}, Options{})
	if err := syscall.Mkfifo(filepath.Join(f.notes, "pipe.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(f.notes, "zero.md")); err != nil {
		t.Fatal(err)
	}
	onScan(t, func() {
		for name, make := range map[string]func(string) error{
			"b.md": func(p string) error { return syscall.Mkfifo(p, 0o644) },
			"c.md": func(p string) error { return os.Symlink("/dev/zero", p) },
		} {
			p := filepath.Join(f.notes, name)
			os.Remove(p)
			if err := make(p); err != nil {
				t.Error(err)
			}
		}
	})
	r := f.syncSoon().Corpora[0]
	why := reasons(r)
	if r.Scanned != 3 || r.Added != 1 || !strings.HasPrefix(why["b.md"], ingest.ReasonNotRegular) || why["c.md"] != ingest.ReasonSymlinkOutside {
		t.Fatalf("sync = %+v; want 3 scanned (a, b, c), a added, b refused as a pipe, c as outside", r)
	}
	for _, p := range []string{"b.md", "c.md", "pipe.md", "zero.md"} {
		if f.status(p) != cairn.StatusNotFound {
			t.Errorf("%s is indexed", p)
		}
	}
}

// A sync whose write fails midway reports what was committed: the counts
// equal what the store holds afterwards, not what was read and planned.
func TestSyncFailedWriteReportsCommitted(t *testing.T) {
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("f%02d.md", i)] = fmt.Sprintf("# Note %d\n\nbody of note %d\n", i, i)
	}
	f := newFixture(t, files, Options{BatchSize: 2, Workers: 1})
	// A trigger fails the fourth batch (f06, f07) inside its transaction.
	db, err := sql.Open("sqlite3", filepath.Join(f.eng.opts.Dir, DBFile)+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER fail_f06 BEFORE INSERT ON documents WHEN NEW.path = 'f06.md'
		BEGIN SELECT RAISE(ABORT, 'planted write failure'); END`); err != nil {
		t.Fatal(err)
	}
	res, err := f.eng.Sync(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "planted write failure") {
		t.Fatalf("Sync error = %v; want the planted failure", err)
	}
	r := res.Corpora[0]
	states, err := f.eng.store.DocStates(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.eng.store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != len(states) || r.Added != 6 || r.Chunks != st.Chunks {
		t.Fatalf("failed sync reports added %d, chunks %d; the store holds %d documents, %d chunks (want 6)", r.Added, r.Chunks, len(states), st.Chunks)
	}
}
