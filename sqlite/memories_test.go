package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

func testMemory(id, kind string, records ...string) cairn.Memory {
	m := cairn.Memory{ID: id, Kind: kind, Title: id, Summary: id, Thread: "sessions/t.md", Cues: []string{}, Concepts: []string{}}
	for _, r := range records {
		m.Provenance = append(m.Provenance, cairn.Provenance{Record: r, Corpus: "sessions", Path: "cairn://sessions/t.md"})
	}
	return m
}

func ids(ms []cairn.Memory) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	slices.Sort(out)
	return out
}

// TestCommitWindowReplaces: a window that reads records done before
// replaces the windows that read them: their memories it does not write
// again go, and their other records become pending; Replaces retires
// windows whose records are gone.
func TestCommitWindowReplaces(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	commit := func(w cairn.WindowCommit) []string {
		t.Helper()
		w.Corpus, w.Thread = "sessions", "t.md"
		if w.Pass == "" {
			w.Pass = "main"
		}
		removed, err := s.CommitWindow(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		return ids(removed)
	}
	done := func(pass string) map[string]string {
		t.Helper()
		cp, err := s.DoneRecords(ctx, "sessions", "t.md", pass)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for uid, d := range cp {
			out[uid] = d.Hash
		}
		return out
	}
	all := func() []string {
		ms, err := s.Memories(ctx, cairn.MemoryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return ids(ms)
	}
	commit(cairn.WindowCommit{Records: []string{"a", "b"}, Hashes: []string{"ha", "hb"},
		Memories: []cairn.Memory{testMemory("m-a", "episode", "a"), testMemory("m-b", "fact", "b"), testMemory("m-ab", "fact", "a", "b")}})
	commit(cairn.WindowCommit{Pass: "observations", Records: []string{"a", "b"}, Hashes: []string{"ha", "hb"},
		Memories: []cairn.Memory{testMemory("m-oa", "observation", "a")}})
	commit(cairn.WindowCommit{Records: []string{"c"}, Hashes: []string{"hc"}, Memories: []cairn.Memory{testMemory("m-c", "fact", "c")}})

	// b changed and is read alone: the first window's memories go (m-a is
	// written again), a becomes pending; the observations pass is apart.
	if got := commit(cairn.WindowCommit{Records: []string{"b"}, Hashes: []string{"hb2"},
		Memories: []cairn.Memory{testMemory("m-a", "episode", "a"), testMemory("m-b2", "fact", "b")}}); !slices.Equal(got, []string{"m-ab", "m-b"}) {
		t.Errorf("removed %v, want m-ab and m-b", got)
	}
	if d := cmp.Diff(map[string]string{"b": "hb2", "c": "hc"}, done("main")); d != "" {
		t.Errorf("main checkpoint (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"a": "ha", "b": "hb"}, done("observations")); d != "" {
		t.Errorf("observations checkpoint (-want +got):\n%s", d)
	}
	// c is gone from the thread: a window without records retires its window.
	if got := commit(cairn.WindowCommit{Replaces: []int64{3}}); !slices.Equal(got, []string{"m-c"}) {
		t.Errorf("retiring window 3 removed %v, want m-c", got)
	}
	if d := cmp.Diff([]string{"m-a", "m-b2", "m-oa"}, all()); d != "" {
		t.Errorf("memories (-want +got):\n%s", d)
	}
	if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: []string{"x"}, Hashes: []string{"1", "2"}}); err == nil {
		t.Errorf("a commit with more hashes than records was accepted")
	}
}

// TestMigrateRecordHashes: a store of schema 4 keeps its checkpoint (no
// hashes: read as unknown) and learns which window wrote each memory.
func TestMigrateRecordHashes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := sql.Open(driverName, path)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
	for _, m := range migrations[:4] {
		exec(m)
	}
	exec(`INSERT INTO meta(key, value) VALUES('schema_version', '4')`)
	exec(`INSERT INTO consolidated_records(corpus, thread, pass, uid, window_id) VALUES
		('sessions','t.md','main','a',7), ('sessions','t.md','observations','a',8), ('sessions','t.md','main','b',9)`)
	for _, m := range []cairn.Memory{testMemory("m-ep", "episode", "a"), testMemory("m-obs", "observation", "a"),
		testMemory("m-item", "fact", "b", "a"), testMemory("m-lost", "fact", "z")} {
		data, _ := json.Marshal(m)
		exec(`INSERT INTO memories(id, kind, corpus, thread, data, created_at, updated_at) VALUES(?,?,?,?,?,0,0)`,
			m.ID, m.Kind, "sessions", "t.md", string(data))
	}
	db.Close()

	s := openStore(t, path, "f1")
	got := map[string]int64{}
	rows, err := s.r.QueryContext(ctx, `SELECT id, window_id FROM memories`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var win int64
		rows.Scan(&id, &win)
		got[id] = win
	}
	rows.Close()
	if d := cmp.Diff(map[string]int64{"m-ep": 7, "m-obs": 8, "m-item": 9, "m-lost": 0}, got); d != "" {
		t.Errorf("window of each memory after the migration (-want +got):\n%s", d)
	}
	cp, err := s.DoneRecords(ctx, "sessions", "t.md", "main")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]cairn.DoneRecord{"a": {Window: 7}, "b": {Window: 9}}, cp); d != "" {
		t.Errorf("checkpoint after the migration (-want +got):\n%s", d)
	}
}
