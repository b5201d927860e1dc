package storetest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestDurability checks that what a store committed is there when it is
// opened again: after Close, and from a copy of its files taken while it
// was open, just after a commit (what a crash or a kill -9 leaves).
func TestDurability(t *testing.T, f Factory) {
	t.Run("ReopenAfterClose", func(t *testing.T) { testReopen(t, f) })
	t.Run("CrashCopyHoldsLastCommit", func(t *testing.T) { testCrashCopy(t, f) })
	t.Run("TwoHandlesOnOneFolder", func(t *testing.T) { testTwoHandles(t, f) })
}

// state is what a store holds, read through its interfaces.
type state struct {
	Docs        map[string]map[string]cairn.DocState
	Texts       map[string]string
	Hits        []cairn.Candidate
	Span        cairn.IndexSpan
	Sessions    []cairn.SessionRecord
	Transcripts map[string]cairn.TranscriptState
	Memories    []cairn.Memory
	Done        map[string]cairn.DoneRecord
	Failed      map[string]cairn.FailedRecord
	Links       []cairn.MemoryLink
	Pairs       map[[2]string]bool
	Vectors     map[int64][]float32
	VecVersion  int64
}

func readState(t *testing.T, s cairn.Storage) state {
	t.Helper()
	ctx := context.Background()
	st := state{Docs: map[string]map[string]cairn.DocState{}, Texts: map[string]string{}}
	for _, c := range []string{"notes", "sessions"} {
		st.Docs[c] = docStates(t, s, c)
		for p := range st.Docs[c] {
			st.Texts[c+"/"+p], _ = text(t, s, c, p)
		}
	}
	st.Hits = lexical(t, s, q(anyOf(term("walrus"), term("durable")))).Candidates
	var err error
	must := func(e error) {
		t.Helper()
		if e != nil {
			t.Fatal(e)
		}
	}
	st.Span, err = s.Span(ctx)
	must(err)
	st.Sessions, err = s.SessionsOf(ctx, "sessions", "")
	must(err)
	st.Transcripts, err = s.TranscriptStates(ctx, "sessions")
	must(err)
	st.Memories = listMemories(t, s, cairn.MemoryFilter{})
	st.Done = done(t, s, "main")
	st.Failed, err = s.FailedRecords(ctx, "sessions", thread, "main")
	must(err)
	st.Links, err = s.MemoryLinks(ctx, "m-kept")
	must(err)
	st.Pairs = judged(t, s)
	st.Vectors = vectorsOf(t, s, "id-1")
	st.VecVersion, err = s.VectorsVersion(ctx)
	must(err)
	return st
}

// fill writes something of every kind.
func fill(t *testing.T, s cairn.Storage) {
	t.Helper()
	ctx := context.Background()
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "walrus one\nwalrus two\n"), doc("notes", "b.md", "durable b\n")})
	apply(t, s, "sessions", []cairn.Document{doc("sessions", "t.md", "## user\nwalrus talk\n")})
	putSession(t, s, session("sessions", "t.md", "/t/a.jsonl", t0))
	if err := s.PutTranscriptState(ctx, cairn.TranscriptState{Corpus: "sessions", Source: cairn.SourceCodex, Path: "/t/a.jsonl",
		Size: 10, ModTime: 20, Hash: "h", ProjectorVersion: 4, CheckedAt: 30, Stats: "{}"}); err != nil {
		t.Fatal(err)
	}
	ids := chunkIDs(t, s, "notes", "a.md")
	if err := s.PutVectors(ctx, "id-1", ids, [][]float32{{0.1, 0.2}, {0.3, 0.4}}); err != nil {
		t.Fatal(err)
	}
	commit(t, s, cairn.WindowCommit{Records: []string{"r1", "r2"}, Hashes: []string{"h1", "h2"},
		Memories: []cairn.Memory{memory("m-kept", "fact", "r1"), memory("m-dup", "fact", "r2")}})
	dup := getMemory(t, s, "m-dup")
	dup.Status, dup.SupersededBy = cairn.StatusSuperseded, "m-kept"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-kept", "m-dup"}, Updates: []cairn.Memory{dup},
		Links: []cairn.MemoryLink{{From: "m-kept", To: "m-dup", Kind: cairn.LinkMerged, Reason: "same"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordFailure(ctx, cairn.FailureCommit{Corpus: "sessions", Thread: thread, Pass: "main",
		Records: []string{"r3"}, Hashes: []string{"h3"}, Reason: "not JSON"}); err != nil {
		t.Fatal(err)
	}
	// A removal, so the reopened store must also remember what is gone.
	apply(t, s, "notes", []cairn.Document{doc("notes", "c.md", "durable walrus c\n")}, "b.md")
}

func testReopen(t *testing.T, f Factory) {
	dir := t.TempDir()
	s := open(t, f, dir)
	fill(t, s)
	before := readState(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	// Opened for a one-shot command (a CLI search) and for a long-lived
	// process alike.
	oneShot := openWith(t, f, dir, cairn.StorageOptions{FeatureVersion: FeatureVersion, OneShot: true})
	if d := cmp.Diff(before, readState(t, oneShot)); d != "" {
		t.Errorf("after reopening one-shot (-before +after):\n%s", d)
	}
	oneShot.Close()
	s = open(t, f, dir)
	if d := cmp.Diff(before, readState(t, s)); d != "" {
		t.Errorf("after reopening (-before +after):\n%s", d)
	}
	// The reopened store goes on where the first left off.
	apply(t, s, "notes", []cairn.Document{doc("notes", "d.md", "walrus after reopen\n")})
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md", "notes/a.md", "notes/c.md", "notes/d.md", "sessions/t.md") {
		t.Errorf("after a write on the reopened store: %v", got)
	}
	if n := gc(t, s); n != 1 {
		t.Errorf("gc on the reopened store collected %d, want 1 (b.md's content)", n)
	}
}

// testCrashCopy: the store's files copied while it is open, right after a
// commit, open to a store holding that commit and everything before.
func testCrashCopy(t *testing.T, f Factory) {
	if f.Snapshot == nil {
		t.Skip("the backend gives no Snapshot: a crash copy of its files cannot be made")
	}
	ctx := context.Background()
	src, dst := t.TempDir(), t.TempDir()
	s := open(t, f, src)
	fill(t, s)
	// The last commit of each kind just before the copy.
	apply(t, s, "notes", []cairn.Document{doc("notes", "last.md", "durable walrus last\n")})
	commit(t, s, cairn.WindowCommit{Records: []string{"r9"}, Hashes: []string{"h9"}, Memories: []cairn.Memory{memory("m-last", "fact", "r9")}})
	want := readState(t, s)
	if err := f.Snapshot(src, dst); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	entries, _ := os.ReadDir(dst)
	if len(entries) == 0 {
		t.Fatal("the snapshot copied no file")
	}
	c := open(t, f, dst)
	if d := cmp.Diff(want, readState(t, c)); d != "" {
		t.Errorf("the crash copy (-at copy time +copy):\n%s", d)
	}
	if _, err := c.Memory(ctx, "m-last"); err != nil {
		t.Errorf("the last committed window is not in the copy: %v", err)
	}
	// Both go on apart.
	apply(t, c, "notes", []cairn.Document{doc("notes", "copy-only.md", "walrus in the copy\n")})
	apply(t, s, "notes", []cairn.Document{doc("notes", "source-only.md", "walrus in the source\n")})
	if got := docStates(t, s, "notes"); len(got) != 4 || got["copy-only.md"].Hash != "" {
		t.Errorf("the source sees %v", keys(got))
	}
	if got := docStates(t, c, "notes"); len(got) != 4 || got["source-only.md"].Hash != "" {
		t.Errorf("the copy sees %v", keys(got))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// testTwoHandlesOnOneFolder: a second storage open on the same folder (a
// CLI command beside a running server) sees each commit of the first once
// it returned, and its own writes interleave with the first's.
func testTwoHandles(t *testing.T, f Factory) {
	dir := t.TempDir()
	server := open(t, f, dir)
	apply(t, server, "notes", []cairn.Document{doc("notes", "a.md", "walrus first\n")})
	cli := openWith(t, f, dir, cairn.StorageOptions{FeatureVersion: FeatureVersion, OneShot: true})
	if got := paths(t, cli, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("the second handle sees %v", got)
	}
	for i := range 5 {
		apply(t, server, "notes", []cairn.Document{doc("notes", fmt.Sprintf("s%d.md", i), fmt.Sprintf("walrus from the server %d\n", i))})
		commit(t, cli, cairn.WindowCommit{Records: []string{fmt.Sprintf("r%d", i)}, Memories: []cairn.Memory{memory(fmt.Sprintf("m-%d", i), "fact", fmt.Sprintf("r%d", i))}})
		if st := docStates(t, cli, "notes"); len(st) != i+2 {
			t.Errorf("after server write %d the second handle sees %d documents, want %d", i, len(st), i+2)
		}
		if ms := listMemories(t, server, cairn.MemoryFilter{}); len(ms) != i+1 {
			t.Errorf("after cli commit %d the server sees %d memories, want %d", i, len(ms), i+1)
		}
	}
	if got := paths(t, cli, q(term("server"))); len(got) != 5 {
		t.Errorf("the second handle finds %v", got)
	}
}
