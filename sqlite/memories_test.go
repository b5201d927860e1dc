package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
		c, err := s.CommitWindow(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		return ids(c.Removed)
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

// TestApplySleepAndRelease: sleep decisions apply per group, refuse a
// group whose member is no longer active, and are undone when
// consolidation writes a memory again or removes it.
func TestApplySleepAndRelease(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	commit := func(records []string, ms ...cairn.Memory) cairn.Committed {
		t.Helper()
		c, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: records, Memories: ms})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	get := func(id string) cairn.Memory {
		t.Helper()
		m, err := s.Memory(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	links := func(id string) []string {
		t.Helper()
		ls, err := s.MemoryLinks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range ls {
			out = append(out, l.From+" "+l.Kind+" "+l.To)
		}
		return out
	}
	a, b, c := testMemory("m-a", "fact", "a"), testMemory("m-b", "fact", "b"), testMemory("m-c", "fact", "c")
	a.Cues, b.Cues = []string{"cue a"}, []string{"cue b"}
	commit([]string{"a"}, a)
	commit([]string{"b"}, b)
	commit([]string{"c"}, c)

	// b absorbs a.
	kept, gone := b, a
	add := &cairn.MemoryAddition{Cues: []string{"cue a"}, Provenance: a.Provenance}
	kept.Cues = []string{"cue b", "cue a"}
	kept.Provenance = append(slices.Clone(b.Provenance), a.Provenance...)
	gone.Status, gone.SupersededBy = cairn.StatusSuperseded, "m-b"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-a", "m-b"}, Updates: []cairn.Memory{gone, kept},
		Links: []cairn.MemoryLink{{From: "m-b", To: "m-a", Kind: cairn.LinkMerged, Added: add}}}); err != nil {
		t.Fatal(err)
	}
	// A group with a member merged meanwhile changes nothing.
	c2 := c
	c2.Status, c2.SupersededBy = cairn.StatusSuperseded, "m-a"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-a", "m-c"}, Updates: []cairn.Memory{c2}}); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("a stale group: %v, want ErrNotFound", err)
	}
	if got := get("m-c"); got.Status != cairn.StatusActive {
		t.Errorf("a stale group changed m-c: %+v", got)
	}
	// c supersedes b.
	newer, old := c, get("m-b")
	newer.Body = "Before (m-b): m-b"
	old.Status, old.SupersededBy = cairn.StatusSuperseded, "m-c"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-b", "m-c"}, Updates: []cairn.Memory{old, newer},
		Links: []cairn.MemoryLink{{From: "m-c", To: "m-b", Kind: cairn.LinkSupersedes, Added: &cairn.MemoryAddition{Body: newer.Body}}}}); err != nil {
		t.Fatal(err)
	}
	pairs, err := s.JudgedPairs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[[2]string]bool{{"m-a", "m-b"}: true, {"m-b", "m-c"}: true}, pairs); d != "" {
		t.Errorf("judged pairs (-want +got):\n%s", d)
	}

	// c is written again: b comes back, c's links and pairs go.
	if got := commit([]string{"c"}, c); !slices.Equal(got.Touched, []string{"m-b"}) || len(got.Removed) != 0 {
		t.Errorf("writing m-c again: %+v, want m-b touched", got)
	}
	if got := get("m-b"); got.Status != cairn.StatusActive || got.SupersededBy != "" || len(got.Cues) != 2 {
		t.Errorf("m-b after m-c was written again: %+v", got)
	}
	if d := cmp.Diff([]string{"m-b merged m-a"}, links("m-b")); d != "" {
		t.Errorf("links of m-b (-want +got):\n%s", d)
	}
	// a's record is read again and a is no longer written: b gives back
	// what a added.
	if got := commit([]string{"a"}); !slices.Equal(got.Touched, []string{"m-b"}) || !slices.Equal(ids(got.Removed), []string{"m-a"}) {
		t.Errorf("removing m-a: %+v", got)
	}
	if d := cmp.Diff(b, get("m-b"), cmpopts.IgnoreFields(cairn.Memory{}, "CreatedAt", "Status")); d != "" {
		t.Errorf("m-b after m-a went (-want +got):\n%s", d)
	}
	if l := links("m-b"); len(l) != 0 {
		t.Errorf("links left: %v", l)
	}
}

// TestApplySleepRefusesRewrittenMembers: a member that a consolidation
// rewrote while the judge read the old copy makes the change fail, and
// the new content stays.
func TestApplySleepRefusesRewrittenMembers(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	old := testMemory("m1", "fact", "a")
	old.Summary = "old summary"
	other := testMemory("m2", "fact", "b")
	if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: []string{"a", "b"},
		Memories: []cairn.Memory{old, other}}); err != nil {
		t.Fatal(err)
	}
	read, err := s.Memories(ctx, cairn.MemoryFilter{Status: cairn.StatusActive})
	if err != nil || len(read) != 2 {
		t.Fatalf("memories = %v, %v", read, err)
	}
	seen := map[string]string{}
	for _, m := range read {
		seen[m.ID] = cairn.MemoryFingerprint(m)
	}
	// The window is read again and m1 rewritten.
	newer := testMemory("m1", "fact", "a")
	newer.Summary = "new summary"
	if _, err := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: []string{"a", "b"},
		Memories: []cairn.Memory{newer, other}}); err != nil {
		t.Fatal(err)
	}
	stale := read[0]
	if stale.ID != "m1" {
		stale = read[1]
	}
	stale.Body = "merged by sleep"
	err = s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m1", "m2"}, Updates: []cairn.Memory{stale}, Seen: seen})
	if !errors.Is(err, cairn.ErrNotFound) {
		t.Fatalf("ApplySleep over a rewritten member = %v, want ErrNotFound", err)
	}
	if m, err := s.Memory(ctx, "m1"); err != nil || m.Summary != "new summary" || m.Body == "merged by sleep" {
		t.Errorf("m1 = %+v, %v; want the rewritten content kept", m, err)
	}
	// Read again, the same change applies.
	fresh, _ := s.Memory(ctx, "m1")
	seen["m1"] = cairn.MemoryFingerprint(fresh)
	fresh.Body = "merged by sleep"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m1", "m2"}, Updates: []cairn.Memory{fresh}, Seen: seen}); err != nil {
		t.Fatalf("ApplySleep after a fresh read: %v", err)
	}
}
