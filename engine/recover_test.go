package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/google/go-cmp/cmp"
)

// indexCounts is what a recovered index is compared on: rows of every
// derived table and the full-text row count FTS5 keeps for BM25.
type indexCounts struct{ Documents, Contents, Chunks, FTSRows, Vectors int }

func countIndex(t *testing.T, eng *Engine) indexCounts {
	t.Helper()
	ctx := context.Background()
	st, err := eng.store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := eng.store.Span(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := indexCounts{Documents: st.Documents, Contents: st.Contents, Chunks: st.Chunks, FTSRows: int(sp.Rows)}
	if eng.opts.Embedder != nil {
		if c.Vectors, err = eng.store.CountVectors(ctx, eng.identity()); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestKilledBeforeGCRecovers (issue 13, item 8): a sync killed after it
// committed a removal and an update but before its garbage collection left
// content, chunks, full-text rows and vectors nobody references; the next
// sync used to find nothing changed and kept them forever. The commit the
// killed sync made is replayed here with Store.Apply, then the engine is
// dropped without a GC, as kill -9 would.
func TestKilledBeforeGCRecovers(t *testing.T) {
	ctx := context.Background()
	emb := &conceptEmbedder{model: "v1"}
	files := map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}
	f := newFixture(t, files, Options{Embedder: emb})
	f.sync()
	// On disk: c.md deleted, b.md rewritten.
	if err := os.Remove(filepath.Join(f.notes, "c.md")); err != nil {
		t.Fatal(err)
	}
	newB := "# Garden\n\nThe roses want shade in the afternoon.\n"
	f.write("b.md", newB)
	fi, _ := os.Stat(filepath.Join(f.notes, "b.md"))
	doc := cairn.Document{Path: "b.md", Hash: sha256Hex(newB), Text: newB, Title: chunk.Title(newB),
		Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Chunks: chunk.New().Chunk(newB)}
	if err := f.eng.store.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{doc}, Remove: []string{"c.md"}}); err != nil {
		t.Fatal(err)
	}
	f.eng.Close(ctx) // no GC: the process died here

	eng, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	got := countIndex(t, eng)

	clean := newFixture(t, map[string]string{"a.md": files["a.md"], "b.md": newB}, Options{Embedder: emb})
	clean.sync()
	if diff := cmp.Diff(countIndex(t, clean.eng), got); diff != "" {
		t.Errorf("recovered index differs from a clean sync (-clean +recovered):\n%s", diff)
	}
	if pending, err := eng.store.GCPending(ctx); err != nil || pending {
		t.Errorf("gc still pending after recovery: %v, %v", pending, err)
	}
	for _, q := range []string{"tomatoes compost", "quarterly budget"} {
		if hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeLexical}); err != nil || len(hits) != 0 {
			t.Errorf("deleted text %q still found: %v, %v", q, hits, err)
		}
	}
}

// TestSecondSyncWaits (item 10): two engines on one data directory (two
// opens of the lock file conflict as two processes would): the second
// sync says it waits, waits, and then does none of the first one's work.
func TestSecondSyncWaits(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for i := range 20 {
		files[strings.Repeat("n", i+1)+".md"] = "# Note\n\nSome words about topic " + strings.Repeat("x", i+1) + ".\n"
	}
	f := newFixture(t, files, Options{})
	waiting := make(chan string, 1)
	second, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora, Logf: func(format string, args ...any) {
		select {
		case waiting <- format:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close(ctx)

	started := make(chan struct{})
	var once sync.Once
	firstDone := make(chan *cairn.SyncResult, 1)
	go func() {
		res, err := f.eng.Sync(ctx, &cairn.SyncOptions{Progress: func(cairn.ProgressEvent) {
			once.Do(func() {
				close(started)
				// Hold the sync until the second one reports that it waits
				// (the guard only stops a broken lock from hanging the test).
				select {
				case msg := <-waiting:
					waiting <- msg
				case <-time.After(30 * time.Second):
				}
			})
		}})
		if err != nil {
			t.Error(err)
		}
		firstDone <- res
	}()
	<-started
	res, err := second.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := <-firstDone
	select {
	case msg := <-waiting:
		if !strings.Contains(msg, "waiting for another sync of") {
			t.Errorf("message %q", msg)
		}
	default:
		t.Error("the second sync never said it waits")
	}
	if a := first.Corpora[0].Added; a != 20 {
		t.Errorf("first sync added %d, want 20", a)
	}
	if r := res.Corpora[0]; r.Added != 0 || r.Chunks != 0 || r.Unchanged != 20 {
		t.Errorf("second sync did work again: %+v", r)
	}
}

// TestLockMessageNamesHolder: the waiting line names the directory and the
// process holding the lock; a cancelled wait gives up with the lock's path.
func TestLockMessageNamesHolder(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha\n"}, Options{})
	l, err := f.eng.lockDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.unlock()
	var lines []string
	other, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora,
		Logf: func(format string, args ...any) {
			linesMu.Lock()
			defer linesMu.Unlock()
			lines = append(lines, strings.TrimSpace(sprintf(format, args...)))
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { _, err := other.Sync(cctx, nil); done <- err }()
	for len(snapshot(&lines)) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	err = <-done
	want := "cairn: waiting for another sync of " + f.eng.opts.Dir + " (pid " + itoa(os.Getpid()) + ")"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("lines %q, want [%q]", lines, want)
	}
	if err == nil || !strings.Contains(err.Error(), filepath.Join(f.eng.opts.Dir, LockFile)) {
		t.Errorf("cancelled wait: %v", err)
	}
}

// TestStaleTempFilesRemoved (item 9): temporary files of atomic writes a
// killed sync left go at the next sync once they are older than
// StaleTempAge; fresh ones (a live writer's) and other files stay.
func TestStaleTempFilesRemoved(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha\n"}, Options{})
	dir := f.eng.opts.Dir
	old := time.Now().Add(-2 * StaleTempAge)
	mk := func(rel string, stale bool) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if stale {
			os.Chtimes(p, old, old)
		}
		return p
	}
	gone := []string{
		mk("sessions/claude-code/proj/.abc.md-123456", true),
		mk("memories/2026/.m1.md-42", true),
		mk(".session-sync-status.json-777", true),
		mk("vectors.bin.tmp9876", true),
		mk("vectors.bin.lists.tmp5432", true), // vector.Index.SaveLists
	}
	kept := []string{
		mk("sessions/claude-code/proj/.def.md-654321", false), // a live write
		mk("sessions/claude-code/proj/abc.md", true),          // a projection
		mk("sessions/claude-code/proj/.hidden.md", true),      // not a temp name
		mk("notes-123", true),
	}
	f.sync()
	for _, p := range gone {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("stale temp %s still there: %v", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
func itoa(n int) string                         { return strconv.Itoa(n) }

var linesMu sync.Mutex

func snapshot(lines *[]string) []string {
	linesMu.Lock()
	defer linesMu.Unlock()
	return append([]string(nil), *lines...)
}

// TestCorruptVectorFileRebuilt (item 12): a byte flipped in the body of
// vectors.bin used to reach the rerank as a score like -9.2e14 that ranked
// first. Now the file fails its checksum, the lane is read from SQLite,
// the scores are sane, a note says so, and the file is written again.
func TestCorruptVectorFileRebuilt(t *testing.T) {
	ctx := context.Background()
	emb := &conceptEmbedder{model: "v1"}
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
	}, Options{Embedder: emb})
	f.sync()
	path := filepath.Join(f.eng.opts.Dir, VectorFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The last vector's floats: a high exponent byte makes each a huge
	// finite value.
	for i := range 16 {
		b[len(b)-4*16+4*i+3] = 0x7e
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var notes []string
	eng, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora, Embedder: emb, OneShot: true,
		Logf: func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	hits, err := eng.Search(ctx, "tomatoes garden", &cairn.SearchOptions{Mode: cairn.ModeVector})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v, %v", hits, err)
	}
	for _, h := range hits {
		if math.IsNaN(h.Score) || h.Score < -1.01 || h.Score > 1.01 {
			t.Errorf("score %v for %s from a damaged file", h.Score, h.Path)
		}
	}
	if hits[0].Path != "cairn://notes/b.md" {
		t.Errorf("top hit %s, want b.md", hits[0].Path)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "is damaged") || !strings.Contains(notes[0], path) {
		t.Errorf("notes %q, want one naming the damaged file", notes)
	}
	if again, _ := os.ReadFile(path); len(again) != len(b) || string(again) == string(b) {
		t.Error("the damaged file was not rewritten")
	}
}

// TestLockHeldOnlyDuringSync: a long-lived engine (a server that syncs
// periodically) holds the lock around each sync only, so another process
// syncs between two of them without waiting.
func TestLockHeldOnlyDuringSync(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha\n"}, Options{})
	f.sync()
	var waited []string
	other, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora,
		Logf: func(format string, args ...any) { waited = append(waited, fmt.Sprintf(format, args...)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := other.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	f.sync()
	if len(waited) != 0 {
		t.Errorf("a sync between two of a long-lived engine's waited: %q", waited)
	}
	if data, _ := os.ReadFile(filepath.Join(f.eng.opts.Dir, LockFile)); len(data) != 0 {
		t.Errorf("lock file after a finished sync holds %q, want it empty", data)
	}
}
