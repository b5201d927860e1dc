package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// longNote is a Markdown note of about n bytes in sections, distinct per id.
func longNote(id string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Note %s\n\n", id)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Part %d of %s\n\nword%d alpha beta gamma delta %s epsilon zeta eta theta iota kappa lambda.\n\n", i, id, i, id)
	}
	return b.String()
}

// A first sync of long documents starts writing after about a megabyte
// (batchBytes) has been read and chunked, not after 512 files, and each
// later batch may be twice as large: the progress reports, one per
// prepared batch, show the batches.
func TestSyncBatchesByBytes(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("n%d.md", i)] = longNote(fmt.Sprint(i), 400<<10)
	}
	f := newFixture(t, files, Options{})
	var done []int
	res, err := f.eng.Sync(context.Background(), &cairn.SyncOptions{Progress: func(ev cairn.ProgressEvent) {
		done = append(done, ev.Done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	// 400 KB files: two fit under a megabyte, five under two.
	if want := []int{0, 2, 7, 8}; fmt.Sprint(done) != fmt.Sprint(want) {
		t.Fatalf("progress after each batch = %v, want %v", done, want)
	}
	if r := res.Corpora[0]; r.Added != 8 || r.Failed != 0 {
		t.Fatalf("added %d, failed %d: want 8 and 0", r.Added, r.Failed)
	}
}

// The first batch is prepared on every worker (the writer waits for it),
// the others on one fewer (the writer is busy with the one before), and
// never on none.
func TestSyncPrepareWorkers(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("n%d.md", i)] = longNote(fmt.Sprint(i), 400<<10)
	}
	for _, tc := range []struct {
		workers int
		want    string
	}{{3, "[2:3 5:2 1:2]"}, {1, "[2:1 5:1 1:1]"}} {
		f := newFixture(t, files, Options{Workers: tc.workers})
		var got []string
		batchWorkersHook = func(n, w int) { got = append(got, fmt.Sprintf("%d:%d", n, w)) }
		f.sync()
		batchWorkersHook = nil
		if fmt.Sprint(got) != tc.want {
			t.Errorf("Workers %d: batches (files:workers) %v, want %s", tc.workers, got, tc.want)
		}
	}
}

// Files with the same content in different batches store it once, and the
// sync counts its chunks once: the later batch is prepared while the
// earlier one may not be committed yet.
func TestSyncSharedContentAcrossBatches(t *testing.T) {
	same := longNote("zebrafish", 700<<10)
	f := newFixture(t, map[string]string{"a.md": same, "b.md": longNote("b", 700<<10), "c.md": same}, Options{})
	r := f.sync()
	st, err := f.eng.IndexStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != 3 || r.Chunks != st.Chunks {
		t.Fatalf("added %d, counted %d chunks; index holds %d: want 3 added and the count equal", r.Added, r.Chunks, st.Chunks)
	}
	states, err := f.eng.store.DocStates(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	if a, c := states["a.md"], states["c.md"]; a.Hash == "" || a.Hash != c.Hash {
		t.Fatalf("a.md and c.md indexed as %q and %q: want one stored content", a.Hash, c.Hash)
	}
}

func TestBatchEnd(t *testing.T) {
	sizes := func(ns ...int64) []ingest.File {
		fs := make([]ingest.File, len(ns))
		for i, n := range ns {
			fs[i].Size = n
		}
		return fs
	}
	for _, tt := range []struct {
		sizes   []ingest.File
		i, n    int
		max     int64
		wantEnd int
	}{
		{sizes(10, 10, 10), 0, 512, 25, 2},
		{sizes(10, 10, 10), 2, 512, 25, 3},
		{sizes(100, 1, 1), 0, 512, 25, 1}, // a file over the budget goes alone
		{sizes(1, 1, 1, 1), 0, 2, 100, 2}, // the file count still bounds
		{sizes(1, 1, 1, 1), 1, 512, 100, 4},
	} {
		if got := batchEnd(tt.sizes, tt.i, tt.n, tt.max); got != tt.wantEnd {
			t.Errorf("batchEnd(%d files from %d, n %d, max %d) = %d, want %d", len(tt.sizes), tt.i, tt.n, tt.max, got, tt.wantEnd)
		}
	}
}
