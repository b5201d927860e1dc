package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestMemories checks cairn.MemoryStore: memories in and out whole,
// windows committed and replaced with their checkpoint (DoneRecords),
// listing with filters, KnownNames, and failed windows; and
// cairn.RecallStore: nearest-neighbour lists and the memories stamp.
func TestMemories(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"RoundTrip", testMemoryRoundTrip},
		{"CommitWindowReplaces", testCommitWindowReplaces},
		{"CommitIsIdempotent", testCommitIdempotent},
		{"HashesMustMatchRecords", testCommitHashCount},
		{"Filters", testMemoryFilters},
		{"KnownNames", testKnownNames},
		{"NestedThreadPaths", testNestedThreads},
		{"Failures", testFailures},
		{"Neighbours", testNeighbours},
		{"NeighboursReplaceAndDelete", testNeighboursReplace},
		{"MemoriesStamp", testMemoriesStamp},
	})
}

const thread = "t.md" // the projection path of the test session

// memory is a memory of the test thread read from records.
func memory(id, kind string, records ...string) cairn.Memory {
	m := cairn.Memory{ID: id, Kind: kind, Title: id, Summary: id, Thread: "sessions/" + thread, Cues: []string{}, Concepts: []string{}}
	for _, r := range records {
		m.Provenance = append(m.Provenance, cairn.Provenance{Record: r, Corpus: "sessions", Path: "cairn://sessions/" + thread})
	}
	return m
}

func ids(ms []cairn.Memory) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	slices.Sort(out)
	return out
}

// commit writes a window of the test thread ("main" pass unless set).
func commit(t *testing.T, s cairn.Storage, w cairn.WindowCommit) cairn.Committed {
	t.Helper()
	if w.Corpus == "" {
		w.Corpus, w.Thread = "sessions", thread
	}
	if w.Pass == "" {
		w.Pass = "main"
	}
	c, err := s.CommitWindow(context.Background(), w)
	if err != nil {
		t.Fatalf("commit window %v: %v", w.Records, err)
	}
	return c
}

func done(t *testing.T, s cairn.Storage, pass string) map[string]cairn.DoneRecord {
	t.Helper()
	cp, err := s.DoneRecords(context.Background(), "sessions", thread, pass)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func doneHashes(t *testing.T, s cairn.Storage, pass string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for uid, d := range done(t, s, pass) {
		out[uid] = d.Hash
	}
	return out
}

func listMemories(t *testing.T, s cairn.Storage, f cairn.MemoryFilter) []cairn.Memory {
	t.Helper()
	ms, err := s.Memories(context.Background(), f)
	if err != nil {
		t.Fatalf("memories %+v: %v", f, err)
	}
	return ms
}

func getMemory(t *testing.T, s cairn.Storage, id string) cairn.Memory {
	t.Helper()
	m, err := s.Memory(context.Background(), id)
	if err != nil {
		t.Fatalf("memory %s: %v", id, err)
	}
	return m
}

// ignoreCreated leaves out what the store sets on write.
var ignoreCreated = cmpopts.IgnoreFields(cairn.Memory{}, "CreatedAt")

func testMemoryRoundTrip(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	full := cairn.Memory{ID: "m-full", Kind: "decision", Title: "Use WAL — always", Summary: "Summary with ünïcode and \"quotes\"",
		Body: "line one\nline two", AppliesWhen: "opening a store", Scope: "project", Confidence: "verified", Importance: 4,
		Cues: []string{"wal", "sqlite"}, Concepts: []string{"durability"}, Thread: "sessions/" + thread, Source: cairn.SourceCodex,
		Provenance: []cairn.Provenance{{Record: "r1", Corpus: "sessions", Path: "cairn://sessions/t.md", StartLine: 3, EndLine: 9,
			SessionID: "s-1", Transcript: "/t/a.jsonl", ToldAt: "2026-03-04T05:06:07Z"}},
		ToldAt: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), EventDate: "2026-03", StartDate: "2026", EndDate: "2026-03-04",
		Status: cairn.StatusActive}
	obs := memory("m-obs", cairn.MemoryObservation, "r2")
	obs.About, obs.Phase, obs.Outcome = "Alice", "ongoing", ""
	ep := memory("m-ep", cairn.MemoryEpisode, "r1", "r2")
	ep.Outcome = "partial"
	commit(t, s, cairn.WindowCommit{Records: []string{"r1", "r2"}, Hashes: []string{"h1", "h2"}, Memories: []cairn.Memory{full, obs, ep},
		Summary: "the window's summary", TokensIn: 100, TokensOut: 20})
	got := getMemory(t, s, "m-full")
	if d := cmp.Diff(full, got, ignoreCreated); d != "" {
		t.Errorf("memory read back (-want +got):\n%s", d)
	}
	if got.CreatedAt.IsZero() {
		t.Error("a stored memory has no created time")
	}
	// A memory stored without a status reads back active.
	if got := getMemory(t, s, "m-obs"); got.Status != cairn.StatusActive || got.About != "Alice" || got.Phase != "ongoing" {
		t.Errorf("observation = %+v", got)
	}
	if _, err := s.Memory(ctx, "m-none"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("missing memory: %v, want ErrNotFound", err)
	}
	listed := listMemories(t, s, cairn.MemoryFilter{Kind: "decision"})
	if len(listed) != 1 || cmp.Diff(got, listed[0]) != "" {
		t.Errorf("Memories and Memory disagree: %+v and %+v", listed, got)
	}
}

// testCommitWindowReplaces: a window that reads records done before
// replaces the windows that read them: their memories it does not write
// again go, and their other records become pending; Replaces retires
// windows whose records are gone. Passes are apart.
func testCommitWindowReplaces(t *testing.T, s cairn.Storage) {
	commit(t, s, cairn.WindowCommit{Records: []string{"a", "b"}, Hashes: []string{"ha", "hb"},
		Memories: []cairn.Memory{memory("m-a", "episode", "a"), memory("m-b", "fact", "b"), memory("m-ab", "fact", "a", "b")}})
	commit(t, s, cairn.WindowCommit{Pass: "observations", Records: []string{"a", "b"}, Hashes: []string{"ha", "hb"},
		Memories: []cairn.Memory{memory("m-oa", "observation", "a")}})
	commit(t, s, cairn.WindowCommit{Records: []string{"c"}, Hashes: []string{"hc"}, Memories: []cairn.Memory{memory("m-c", "fact", "c")}})
	cp := done(t, s, "main")
	if cp["a"].Window != cp["b"].Window || cp["a"].Window == cp["c"].Window || cp["a"].Window == 0 {
		t.Errorf("windows of a, b, c = %d %d %d; want a and b in one, c in another", cp["a"].Window, cp["b"].Window, cp["c"].Window)
	}
	obsWindow := done(t, s, "observations")["a"].Window
	if obsWindow == cp["a"].Window || obsWindow == cp["c"].Window {
		t.Errorf("the observations window %d shares an id with a main window (%d, %d)", obsWindow, cp["a"].Window, cp["c"].Window)
	}

	// b changed and is read alone: the first window's memories go (m-a is
	// written again), a becomes pending; the observations pass is apart.
	c := commit(t, s, cairn.WindowCommit{Records: []string{"b"}, Hashes: []string{"hb2"},
		Memories: []cairn.Memory{memory("m-a", "episode", "a"), memory("m-b2", "fact", "b")}})
	if got := ids(c.Removed); !equal(got, "m-ab", "m-b") {
		t.Errorf("removed %v, want m-ab and m-b", got)
	}
	if d := cmp.Diff(map[string]string{"b": "hb2", "c": "hc"}, doneHashes(t, s, "main")); d != "" {
		t.Errorf("main checkpoint (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"a": "ha", "b": "hb"}, doneHashes(t, s, "observations")); d != "" {
		t.Errorf("observations checkpoint (-want +got):\n%s", d)
	}
	// c is gone from the thread: a window without records retires its window.
	c = commit(t, s, cairn.WindowCommit{Replaces: []int64{cp["c"].Window}})
	if got := ids(c.Removed); !equal(got, "m-c") {
		t.Errorf("retiring c's window removed %v, want m-c", got)
	}
	if got := ids(listMemories(t, s, cairn.MemoryFilter{})); !equal(got, "m-a", "m-b2", "m-oa") {
		t.Errorf("memories = %v", got)
	}
	if _, ok := done(t, s, "main")["c"]; ok {
		t.Error("c is still done after its window was retired")
	}
	for _, id := range []string{"m-ab", "m-b", "m-c"} {
		if _, err := s.Memory(context.Background(), id); !errors.Is(err, cairn.ErrNotFound) {
			t.Errorf("removed memory %s: %v, want ErrNotFound", id, err)
		}
	}
}

func testCommitIdempotent(t *testing.T, s cairn.Storage) {
	w := cairn.WindowCommit{Records: []string{"a"}, Hashes: []string{"ha"}, Memories: []cairn.Memory{memory("m-a", "fact", "a")}}
	commit(t, s, w)
	first := getMemory(t, s, "m-a")
	w.Memories = []cairn.Memory{memory("m-a", "fact", "a")}
	if c := commit(t, s, w); len(c.Removed) != 0 || len(c.Touched) != 0 {
		t.Errorf("committing the same window again changed %+v", c)
	}
	if got := listMemories(t, s, cairn.MemoryFilter{}); len(got) != 1 {
		t.Errorf("memories after the same window twice = %v", ids(got))
	}
	if got := getMemory(t, s, "m-a"); !got.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("created time changed from %v to %v on a rewrite", first.CreatedAt, got.CreatedAt)
	}
}

func testCommitHashCount(t *testing.T, s cairn.Storage) {
	_, err := s.CommitWindow(context.Background(), cairn.WindowCommit{Corpus: "sessions", Thread: thread, Pass: "main",
		Records: []string{"x"}, Hashes: []string{"1", "2"}, Memories: []cairn.Memory{memory("m-x", "fact", "x")}})
	if err == nil {
		t.Fatal("a commit with more hashes than records was accepted")
	}
	if got := listMemories(t, s, cairn.MemoryFilter{}); len(got) != 0 {
		t.Errorf("a refused commit stored %v", ids(got))
	}
	if cp := done(t, s, "main"); len(cp) != 0 {
		t.Errorf("a refused commit marked %v done", cp)
	}
}

func testMemoryFilters(t *testing.T, s cairn.Storage) {
	at := func(m cairn.Memory, day int) cairn.Memory {
		m.ToldAt = time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC)
		return m
	}
	other := at(memory("m-other", "fact", "z"), 5)
	other.Thread = "sessions/other.md"
	commit(t, s, cairn.WindowCommit{Records: []string{"a", "b", "c", "d"}, Memories: []cairn.Memory{
		at(memory("m-1", "fact", "a"), 1), at(memory("m-3", "fact", "c"), 3), at(memory("m-2", "episode", "b"), 2),
		at(memory("m-4", "observation", "d"), 4),
	}})
	commit(t, s, cairn.WindowCommit{Corpus: "sessions", Thread: "other.md", Pass: "main", Records: []string{"z"}, Memories: []cairn.Memory{other}})
	sup := getMemory(t, s, "m-3")
	sup.Status, sup.SupersededBy = cairn.StatusSuperseded, "m-1"
	if err := s.ApplySleep(context.Background(), cairn.SleepChange{Members: []string{"m-1", "m-3"}, Updates: []cairn.Memory{sup}}); err != nil {
		t.Fatal(err)
	}
	order := func(ms []cairn.Memory) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    cairn.MemoryFilter
		want []string
	}{
		{"all, newest told first", cairn.MemoryFilter{}, []string{"m-other", "m-4", "m-3", "m-2", "m-1"}},
		{"kind", cairn.MemoryFilter{Kind: "fact"}, []string{"m-other", "m-3", "m-1"}},
		{"thread", cairn.MemoryFilter{Thread: "sessions/" + thread}, []string{"m-4", "m-3", "m-2", "m-1"}},
		{"active", cairn.MemoryFilter{Status: cairn.StatusActive}, []string{"m-other", "m-4", "m-2", "m-1"}},
		{"superseded", cairn.MemoryFilter{Status: cairn.StatusSuperseded}, []string{"m-3"}},
		{"limit", cairn.MemoryFilter{Limit: 2}, []string{"m-other", "m-4"}},
		{"kind, thread, status, limit", cairn.MemoryFilter{Kind: "fact", Thread: "sessions/" + thread, Status: cairn.StatusActive, Limit: 5}, []string{"m-1"}},
		{"no match", cairn.MemoryFilter{Kind: "pitfall"}, nil},
	} {
		ms := listMemories(t, s, tc.f)
		if d := cmp.Diff(tc.want, order(ms)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
		// MemoryRefs: the same memories in the same order, id and kind.
		refs, err := s.MemoryRefs(context.Background(), tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var want []cairn.MemoryRef
		for _, m := range ms {
			want = append(want, cairn.MemoryRef{ID: m.ID, Kind: m.Kind})
		}
		if d := cmp.Diff(want, refs, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: MemoryRefs (-want +got):\n%s", tc.name, d)
		}
	}
	byID, err := s.MemoriesByID(context.Background(), []string{"m-1", "m-3", "m-none", "m-1"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]cairn.Memory{"m-1": getMemory(t, s, "m-1"), "m-3": sup}, byID, ignoreUpdated); d != "" {
		t.Errorf("MemoriesByID (-want +got):\n%s", d)
	}
	if got, err := s.MemoriesByID(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("MemoriesByID of no ids = %v, %v", got, err)
	}
}

// ignoreUpdated leaves out what a sleep decision's write may set.
var ignoreUpdated = cmpopts.IgnoreFields(cairn.Memory{}, "CreatedAt")

func testKnownNames(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	obs := func(id, thread, about string) cairn.Memory {
		m := memory(id, cairn.MemoryObservation, id)
		m.Thread, m.About = "sessions/"+thread, about
		return m
	}
	for _, w := range []struct {
		thread string
		ms     []cairn.Memory
	}{
		{"one.md", []cairn.Memory{obs("o1", "one.md", "Alice"), obs("o2", "one.md", "Bob"), obs("o3", "one.md", "Alice")}},
		{"two.md", []cairn.Memory{obs("o4", "two.md", "Alice"), obs("o5", "two.md", "Carol"), obs("o6", "two.md", "")}},
		{"three.md", []cairn.Memory{obs("o7", "three.md", "Dave")}},
	} {
		var records []string
		for _, m := range w.ms {
			records = append(records, m.ID)
		}
		fact := memory("f-"+w.thread, "fact", "x")
		fact.Thread, fact.About = "sessions/"+w.thread, "Zed" // not an observation: not a name
		commit(t, s, cairn.WindowCommit{Corpus: "sessions", Thread: w.thread, Pass: "observations", Records: records, Memories: append(w.ms, fact)})
	}
	names := func(exclude string, n int) []string {
		t.Helper()
		got, err := s.KnownNames(ctx, exclude, n)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := names("sessions/three.md", 10); !equal(got[:1], "Alice") || !slices.Equal(sorted(got[1:]), []string{"Bob", "Carol"}) {
		t.Errorf("names outside three.md = %v, want Alice (3) first, then Bob and Carol", got)
	}
	if got := names("sessions/one.md", 10); !slices.Equal(sorted(got), []string{"Alice", "Carol", "Dave"}) {
		t.Errorf("names outside one.md = %v", got)
	}
	if got := names("sessions/three.md", 1); !equal(got, "Alice") {
		t.Errorf("limit 1 = %v, want the most frequent", got)
	}
	if got := names("", 10); len(got) != 4 || got[0] != "Alice" {
		t.Errorf("no thread excluded = %v, want the four names, Alice first", got)
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// testFailures: a window's failures count per record and run, start again
// for a record whose text changed, and a commit of the window clears them.
func testFailures(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	fail := func(hashes ...string) int {
		t.Helper()
		n, err := s.RecordFailure(ctx, cairn.FailureCommit{Corpus: "sessions", Thread: thread, Pass: "main",
			Records: []string{"a", "b"}, Hashes: hashes, Reason: "answer cut at the output limit"})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	failed := func(pass string) map[string]cairn.FailedRecord {
		t.Helper()
		fs, err := s.FailedRecords(ctx, "sessions", thread, pass)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	if got := []int{fail("ha", "hb"), fail("ha", "hb"), fail("ha", "hb2")}; !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("tries %v, want 1 2 3", got)
	}
	want := map[string]cairn.FailedRecord{"a": {Hash: "ha", Tries: 3, Reason: "answer cut at the output limit"},
		"b": {Hash: "hb2", Tries: 1, Reason: "answer cut at the output limit"}}
	if d := cmp.Diff(want, failed("main")); d != "" {
		t.Errorf("failures (-want +got):\n%s", d)
	}
	if got := failed("observations"); len(got) != 0 {
		t.Errorf("another pass's failures = %v", got)
	}
	commit(t, s, cairn.WindowCommit{Records: []string{"a"}})
	if fs := failed("main"); len(fs) != 1 || fs["b"].Tries != 1 {
		t.Errorf("failures after committing a: %v, want only b's", fs)
	}
	if _, err := s.RecordFailure(ctx, cairn.FailureCommit{Corpus: "sessions", Thread: thread, Pass: "main",
		Records: []string{"a"}, Hashes: []string{"1", "2"}}); err == nil {
		t.Error("a failure with more hashes than records was accepted")
	}
}

// testNestedThreads: projection paths hold folders ("claude-code/p/a.md"),
// so a memory's Thread ("sessions/claude-code/p/a.md") is the corpus and
// a path with slashes; filters and exclusions take it whole.
func testNestedThreads(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	threads := []string{"claude-code/p/a.md", "claude-code/p/b.md", "claude-code/q/a.md"}
	for i, th := range threads {
		m := memory(fmt.Sprintf("m-%d", i), cairn.MemoryObservation, "r")
		m.Thread, m.About = "sessions/"+th, fmt.Sprintf("Person %d", i)
		commit(t, s, cairn.WindowCommit{Corpus: "sessions", Thread: th, Pass: "observations", Records: []string{"r"}, Memories: []cairn.Memory{m}})
	}
	for i, th := range threads {
		ms := listMemories(t, s, cairn.MemoryFilter{Thread: "sessions/" + th})
		if len(ms) != 1 || ms[0].ID != fmt.Sprintf("m-%d", i) {
			t.Errorf("memories of %s = %v, want m-%d only", th, ids(ms), i)
		}
		cp, err := s.DoneRecords(ctx, "sessions", th, "observations")
		if err != nil || len(cp) != 1 {
			t.Errorf("checkpoint of %s = %v, %v", th, cp, err)
		}
	}
	names, err := s.KnownNames(ctx, "sessions/"+threads[0], 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := sorted(names); !slices.Equal(got, []string{"Person 1", "Person 2"}) {
		t.Errorf("names outside %s = %v, want those of the other two threads", threads[0], got)
	}
	if ms := listMemories(t, s, cairn.MemoryFilter{Thread: "sessions/claude-code/p"}); len(ms) != 0 {
		t.Errorf("a folder of threads as a thread filter = %v, want nothing", ids(ms))
	}
}

func neighbours(t *testing.T, s cairn.Storage, identity string, ids ...string) map[string]cairn.NeighbourList {
	t.Helper()
	got, err := s.Neighbours(context.Background(), identity, ids)
	if err != nil {
		t.Fatalf("neighbours of %v: %v", ids, err)
	}
	return got
}

// testNeighbours: lists come back as put (hash, order, similarities to
// float64 precision), by identity; a list with no neighbours is stored
// (computed, nothing near) and told apart from no list.
func testNeighbours(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := cairn.NeighbourList{ID: "m-a", Hash: "ha", Near: []cairn.MemoryNeighbour{{ID: "m-c", Similarity: 0.9375}, {ID: "m-b", Similarity: 0.5}, {ID: "m-ü", Similarity: 0.125}}}
	b := cairn.NeighbourList{ID: "m-b", Hash: "hb", Near: []cairn.MemoryNeighbour{}}
	other := cairn.NeighbourList{ID: "m-a", Hash: "ha2", Near: []cairn.MemoryNeighbour{{ID: "m-b", Similarity: 0.25}}}
	if err := s.PutNeighbours(ctx, "model-1", []cairn.NeighbourList{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutNeighbours(ctx, "model-2", []cairn.NeighbourList{other}); err != nil {
		t.Fatal(err)
	}
	want := map[string]cairn.NeighbourList{"m-a": a, "m-b": b}
	if d := cmp.Diff(want, neighbours(t, s, "model-1", "m-a", "m-b", "m-none"), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("lists of model-1 (-want +got):\n%s", d)
	}
	if got := neighbours(t, s, "model-1", "m-b"); len(got) != 1 || got["m-b"].ID != "m-b" || got["m-b"].Hash != "hb" {
		t.Errorf("an empty list = %+v, want it stored with its hash", got)
	}
	if d := cmp.Diff(map[string]cairn.NeighbourList{"m-a": other}, neighbours(t, s, "model-2", "m-a", "m-b")); d != "" {
		t.Errorf("lists of model-2 (-want +got):\n%s", d)
	}
	if got := neighbours(t, s, "model-3", "m-a"); len(got) != 0 {
		t.Errorf("lists of an identity with none = %+v", got)
	}
	if got := neighbours(t, s, "model-1"); len(got) != 0 {
		t.Errorf("lists of no ids = %+v", got)
	}
	for id, n := range map[string]int{"model-1": 2, "model-2": 1, "model-3": 0} {
		if got, err := s.CountNeighbours(ctx, id); err != nil || got != n {
			t.Errorf("CountNeighbours(%s) = %d, %v; want %d", id, got, err, n)
		}
	}
}

// testNeighboursReplace: a put replaces the memory's list of that identity
// only; DeleteNeighbours removes a memory's lists of every identity and
// leaves lists naming it alone.
func testNeighboursReplace(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	put := func(identity string, ls ...cairn.NeighbourList) {
		t.Helper()
		if err := s.PutNeighbours(ctx, identity, ls); err != nil {
			t.Fatal(err)
		}
	}
	near := func(id string, sim float64) []cairn.MemoryNeighbour {
		return []cairn.MemoryNeighbour{{ID: id, Similarity: sim}}
	}
	put("model-1", cairn.NeighbourList{ID: "m-a", Hash: "h1", Near: near("m-b", 0.5)}, cairn.NeighbourList{ID: "m-b", Hash: "hb", Near: near("m-a", 0.5)})
	put("model-2", cairn.NeighbourList{ID: "m-a", Hash: "h1", Near: near("m-c", 0.75)})
	put("model-1", cairn.NeighbourList{ID: "m-a", Hash: "h2", Near: near("m-c", 0.625)})
	got := neighbours(t, s, "model-1", "m-a", "m-b")
	if d := cmp.Diff(cairn.NeighbourList{ID: "m-a", Hash: "h2", Near: near("m-c", 0.625)}, got["m-a"]); d != "" {
		t.Errorf("replaced list (-want +got):\n%s", d)
	}
	if got := neighbours(t, s, "model-2", "m-a")["m-a"]; got.Hash != "h1" {
		t.Errorf("a put of model-1 changed model-2's list: %+v", got)
	}
	if err := s.DeleteNeighbours(ctx, []string{"m-a", "m-none"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNeighbours(ctx, nil); err != nil {
		t.Fatalf("deleting no lists: %v", err)
	}
	if got := neighbours(t, s, "model-1", "m-a", "m-b"); len(got) != 1 || len(got["m-b"].Near) != 1 || got["m-b"].Near[0].ID != "m-a" {
		t.Errorf("after deleting m-a's lists, model-1 holds %+v; want m-b's list, naming m-a, alone", got)
	}
	if got := neighbours(t, s, "model-2", "m-a"); len(got) != 0 {
		t.Errorf("after deleting m-a's lists, model-2 holds %+v", got)
	}
}

// testMemoriesStamp: the stamp changes with every write of memories and
// links (a commit, a commit that removes, a sleep decision), not with
// reads or neighbour lists, and it survives a reopen.
func testMemoriesStamp(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	stamp := func() int64 {
		t.Helper()
		v, err := s.MemoriesStamp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	last := stamp()
	changed := func(what string) {
		t.Helper()
		if v := stamp(); v == last {
			t.Errorf("the stamp stayed %d after %s", v, what)
		} else {
			last = v
		}
	}
	commit(t, s, cairn.WindowCommit{Records: []string{"a"}, Memories: []cairn.Memory{memory("m-a", "fact", "a")}})
	changed("a commit")
	commit(t, s, cairn.WindowCommit{Records: []string{"b"}, Memories: []cairn.Memory{memory("m-b", "fact", "b")}})
	changed("a second commit")
	listMemories(t, s, cairn.MemoryFilter{})
	if err := s.PutNeighbours(ctx, "model-1", []cairn.NeighbourList{{ID: "m-a", Hash: "h", Near: []cairn.MemoryNeighbour{}}}); err != nil {
		t.Fatal(err)
	}
	if v := stamp(); v != last {
		t.Errorf("reads and neighbour lists moved the stamp from %d to %d", last, v)
	}
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-a", "m-b"},
		Links: []cairn.MemoryLink{{From: "m-a", To: "m-b", Kind: cairn.LinkRelated, Reason: "same topic"}}}); err != nil {
		t.Fatal(err)
	}
	changed("a related link")
	// b read again writes nothing: m-b goes.
	commit(t, s, cairn.WindowCommit{Records: []string{"b"}, Hashes: []string{"hb2"}})
	changed("a commit that removed a memory")
}
