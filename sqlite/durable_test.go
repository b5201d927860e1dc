package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// oldLayout writes an index of schema 9 the way releases before the
// durable store did: memories, checkpoint and links in index.db.
func oldLayout(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
	for _, m := range migrations {
		exec(m)
	}
	exec(`INSERT INTO meta(key, value) VALUES('schema_version', ?), ('feature_version', 'f1')`, SchemaVersion)
	for i, m := range []cairn.Memory{testMemory("m-a", "fact", "a"), testMemory("m-b", "episode", "b")} {
		m.Status = cairn.StatusActive
		data, _ := json.Marshal(m)
		exec(`INSERT INTO main.memories(id, kind, corpus, thread, data, created_at, updated_at, window_id) VALUES(?,?,?,?,?,0,0,?)`,
			m.ID, m.Kind, "sessions", "t.md", string(data), i+1)
	}
	exec(`INSERT INTO main.consolidation_windows(id, corpus, thread, pass, records, memories, created_at) VALUES
		(1,'sessions','t.md','main',1,1,0), (2,'sessions','t.md','main',1,1,0)`)
	exec(`INSERT INTO main.consolidated_records(corpus, thread, pass, uid, window_id, hash) VALUES
		('sessions','t.md','main','a',1,'ha'), ('sessions','t.md','main','b',2,'hb')`)
	exec(`INSERT INTO main.memory_links(from_id, to_id, kind, created_at) VALUES('m-a','m-b','related',0), ('m-b','m-a','related',0)`)
	exec(`INSERT INTO main.sleep_pairs(a, b) VALUES('m-a','m-b')`)
}

// durableState is what a store holds of the durable tables, read through
// its methods.
func durableState(t *testing.T, s *Store) []string {
	t.Helper()
	ctx := context.Background()
	ms, err := s.Memories(ctx, cairn.MemoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, "memory "+m.ID)
	}
	cp, err := s.DoneRecords(ctx, "sessions", "t.md", "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"a", "b"} {
		out = append(out, "done "+uid+" "+cp[uid].Hash)
	}
	ls, err := s.MemoryLinks(ctx, "m-a")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		out = append(out, "link "+l.From+" "+l.Kind+" "+l.To)
	}
	pairs, err := s.JudgedPairs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for p := range pairs {
		out = append(out, "pair "+p[0]+" "+p[1])
	}
	return out
}

var wantDurable = []string{"memory m-a", "memory m-b", "done a ha", "done b hb",
	"link m-a related m-b", "link m-b related m-a", "pair m-a m-b"}

func indexTables(t *testing.T, s *Store) int {
	t.Helper()
	n, err := indexHoldsDurable(context.Background(), s.r)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMoveDurableOutOfIndex: opening an index that holds memories moves
// them, with the checkpoint, links and judged pairs, to memory.db and
// drops them from the index; deleting the index afterwards loses none.
func TestMoveDurableOutOfIndex(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	oldLayout(t, path)
	s := openStore(t, path, "f1")
	if d := cmp.Diff(wantDurable, durableState(t, s)); d != "" {
		t.Errorf("after the move (-want +got):\n%s", d)
	}
	if n := indexTables(t, s); n != 0 {
		t.Errorf("the index still holds %d durable tables", n)
	}
	s.Close()

	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	s = openStore(t, path, "f1")
	if d := cmp.Diff(wantDurable, durableState(t, s)); d != "" {
		t.Errorf("after deleting index.db (-want +got):\n%s", d)
	}
	if n := indexTables(t, s); n != 0 {
		t.Errorf("a new index holds %d durable tables", n)
	}
}

// TestMoveDurableKilledMidway: a move killed after its copy committed and
// before the index's tables were dropped finishes on the next open,
// copying nothing twice and keeping what was written in between.
func TestMoveDurableKilledMidway(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	oldLayout(t, path)
	s := New(path, "f1")
	if err := s.createDurable(); err != nil {
		t.Fatal(err)
	}
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.migrateDurable(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := s.copyDurable(ctx, w); err != nil { // the first transaction only
		t.Fatal(err)
	}
	// The durable copy gains a row the index's old tables lack.
	if _, err := w.ExecContext(ctx, `INSERT INTO durable.sleep_pairs(a, b) VALUES('m-x','m-y')`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openStore(t, path, "f1")
	want := append(wantDurable[:len(wantDurable):len(wantDurable)], "pair m-x m-y")
	got := durableState(t, s)
	if d := cmp.Diff(want, got, sortStrings); d != "" {
		t.Errorf("after the interrupted move (-want +got):\n%s", d)
	}
	if n := indexTables(t, s); n != 0 {
		t.Errorf("the index still holds %d durable tables", n)
	}
	var windows int
	if err := s.r.QueryRow(`SELECT count(*) FROM consolidation_windows`).Scan(&windows); err != nil || windows != 2 {
		t.Errorf("%d windows after the interrupted move (%v), want 2", windows, err)
	}
}

var sortStrings = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// TestFailures: a window's failures count per record and run, start again
// for a record whose text changed, and a commit of the window clears them.
func TestFailures(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	fail := func(hashes ...string) int {
		t.Helper()
		n, err := s.RecordFailure(ctx, cairn.FailureCommit{Corpus: "sessions", Thread: "t.md", Pass: "main",
			Records: []string{"a", "b"}, Hashes: hashes, Reason: "answer cut at the output limit"})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := []int{fail("ha", "hb"), fail("ha", "hb"), fail("ha", "hb2")}; !cmp.Equal(got, []int{1, 2, 3}) {
		t.Errorf("tries %v, want 1 2 3", got)
	}
	fs, err := s.FailedRecords(ctx, "sessions", "t.md", "main")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]cairn.FailedRecord{"a": {Hash: "ha", Tries: 3, Reason: "answer cut at the output limit"},
		"b": {Hash: "hb2", Tries: 1, Reason: "answer cut at the output limit"}}
	if d := cmp.Diff(want, fs); d != "" {
		t.Errorf("failures (-want +got):\n%s", d)
	}
	if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	fs, _ = s.FailedRecords(ctx, "sessions", "t.md", "main")
	if _, ok := fs["a"]; ok || len(fs) != 1 {
		t.Errorf("failures after committing a: %v, want only b's", fs)
	}
}

// TestDamagedDurableNamed: a memory.db that is not a database fails the
// open with its path and what to do, and is left as it is.
func TestDamagedDurableNamed(t *testing.T) {
	dir := t.TempDir()
	durable := filepath.Join(dir, DurableFile)
	garbage := []byte("this is not a database, and it is long enough to have a header of sorts....................")
	if err := os.WriteFile(durable, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(filepath.Join(dir, "index.db"), "f1")
	err := s.Open(context.Background())
	s.Close()
	var ce *cairn.Error
	if !errors.As(err, &ce) || ce.Path != durable || ce.Hint == "" {
		t.Fatalf("open with a damaged memory.db: %v, want an error naming %s with a hint", err, durable)
	}
	if got, _ := os.ReadFile(durable); string(got) != string(garbage) {
		t.Errorf("the damaged memory.db was changed")
	}
}

// TestOpenDurableAlone: memory.db opens on its own, read only, beside an
// index that is not a database; a missing one is ErrNotExist and is not
// created.
func TestOpenDurableAlone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	index := filepath.Join(dir, "index.db")
	if _, err := OpenDurableAlone(ctx, index); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no memory.db: %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DurableFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("memory.db created by a read: %v", err)
	}
	s := openStore(t, index, "f1")
	if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main",
		Records: []string{"a"}, Memories: []cairn.Memory{testMemory("m-1", cairn.MemoryEpisode, "a")}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.WriteFile(index, []byte("not sqlite, not sqlite, not sqlite, not sqlite"), 0o600)
	alone, err := OpenDurableAlone(ctx, index)
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	problems, n, err := alone.DurableAlone(ctx)
	if err != nil || len(problems) > 0 || n != (DurableCounts{Memories: 1, Windows: 1}) {
		t.Fatalf("check alone: %v %v %+v", problems, err, n)
	}
	if m, err := alone.Memory(ctx, "m-1"); err != nil || m.ID != "m-1" {
		t.Errorf("memory m-1 alone: %+v %v", m, err)
	}
}

// TestDurableInterruptNotDamage: an interrupt while memory.db is migrated
// (the open's context cancelled, as Ctrl-C does) says it was interrupted
// and nothing was changed, matches context.Canceled and carries no
// restore-from-backup hint; the store then opens as before. A memory.db
// that is not a database keeps that hint.
func TestDurableInterruptNotDamage(t *testing.T) {
	dir := t.TempDir()
	s := New(filepath.Join(dir, "index.db"), "f1")
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.writer()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = s.migrateDurable(ctx, w)
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted, nothing was changed") ||
		strings.Contains(err.Error(), "backup") || !strings.Contains(err.Error(), DurableFile) {
		t.Fatalf("cancelled durable migration: %v, want one naming %s that says it was interrupted and nothing was changed, without the backup hint", err, DurableFile)
	}
	if err := s.migrateDurable(context.Background(), w); err != nil {
		t.Fatalf("migrate after the interrupt: %v", err)
	}

	damaged := t.TempDir()
	if err := os.WriteFile(filepath.Join(damaged, DurableFile), []byte(strings.Repeat("not a database. ", 16)), 0o600); err != nil {
		t.Fatal(err)
	}
	d := New(filepath.Join(damaged, "index.db"), "f1")
	err = d.Open(context.Background())
	d.Close()
	if err == nil || !strings.Contains(err.Error(), "restore it from a backup") || strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("open with a damaged memory.db: %v, want the restore-from-backup hint", err)
	}
}
