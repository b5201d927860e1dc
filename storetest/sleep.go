package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSleep checks the sleep pass's part of cairn.SleepStore: ApplySleep
// per group, its refusals, links and judged pairs, and the undoing of
// decisions when consolidation writes a memory again or removes it.
func TestSleep(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"ApplyAndRelease", testApplySleepAndRelease},
		{"RefusesRewrittenMembers", testApplySleepRefusesRewritten},
		{"JudgedPairsAndLinks", testJudgedPairs},
	})
}

func links(t *testing.T, s cairn.Storage, id string) []string {
	t.Helper()
	ls, err := s.MemoryLinks(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range ls {
		out = append(out, l.From+" "+l.Kind+" "+l.To)
	}
	slices.Sort(out)
	return out
}

func judged(t *testing.T, s cairn.Storage) map[[2]string]bool {
	t.Helper()
	pairs, err := s.JudgedPairs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// testApplySleepAndRelease: sleep decisions apply per group, refuse a
// group whose member is no longer active, and are undone when
// consolidation writes a memory again or removes it.
func testApplySleepAndRelease(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a, b, c := memory("m-a", "fact", "a"), memory("m-b", "fact", "b"), memory("m-c", "fact", "c")
	a.Cues, b.Cues = []string{"cue a"}, []string{"cue b"}
	commit(t, s, cairn.WindowCommit{Records: []string{"a"}, Memories: []cairn.Memory{a}})
	commit(t, s, cairn.WindowCommit{Records: []string{"b"}, Memories: []cairn.Memory{b}})
	commit(t, s, cairn.WindowCommit{Records: []string{"c"}, Memories: []cairn.Memory{c}})

	// b absorbs a.
	kept, gone := b, a
	add := &cairn.MemoryAddition{Cues: []string{"cue a"}, Provenance: a.Provenance}
	kept.Cues = []string{"cue b", "cue a"}
	kept.Provenance = append(slices.Clone(b.Provenance), a.Provenance...)
	gone.Status, gone.SupersededBy = cairn.StatusSuperseded, "m-b"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-a", "m-b"}, Updates: []cairn.Memory{gone, kept},
		Links: []cairn.MemoryLink{{From: "m-b", To: "m-a", Kind: cairn.LinkMerged, Reason: "same fact", Added: add}}}); err != nil {
		t.Fatal(err)
	}
	if got := getMemory(t, s, "m-a"); got.Status != cairn.StatusSuperseded || got.SupersededBy != "m-b" {
		t.Errorf("m-a after the merge = %+v", got)
	}
	ls, err := s.MemoryLinks(ctx, "m-a")
	if err != nil || len(ls) != 1 || ls[0].Reason != "same fact" || cmp.Diff(add, ls[0].Added) != "" || ls[0].CreatedAt.IsZero() {
		t.Errorf("links of m-a = %+v, %v; want the merge with its reason, addition and time", ls, err)
	}
	// A group with a member merged meanwhile changes nothing.
	c2 := c
	c2.Status, c2.SupersededBy = cairn.StatusSuperseded, "m-a"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-a", "m-c"}, Updates: []cairn.Memory{c2},
		Links: []cairn.MemoryLink{{From: "m-a", To: "m-c", Kind: cairn.LinkSupersedes}}}); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("a stale group: %v, want ErrNotFound", err)
	}
	if got := getMemory(t, s, "m-c"); got.Status != cairn.StatusActive {
		t.Errorf("a stale group changed m-c: %+v", got)
	}
	if l := links(t, s, "m-c"); len(l) != 0 {
		t.Errorf("a stale group linked m-c: %v", l)
	}
	// A member that is gone: ErrNotFound as well.
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-c", "m-none"}}); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("a group with a missing member: %v, want ErrNotFound", err)
	}
	// c supersedes b.
	newer, old := c, getMemory(t, s, "m-b")
	newer.Body = "Before (m-b): m-b"
	old.Status, old.SupersededBy = cairn.StatusSuperseded, "m-c"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-b", "m-c"}, Updates: []cairn.Memory{old, newer},
		Links: []cairn.MemoryLink{{From: "m-c", To: "m-b", Kind: cairn.LinkSupersedes, Added: &cairn.MemoryAddition{Body: newer.Body}}}}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[[2]string]bool{{"m-a", "m-b"}: true, {"m-b", "m-c"}: true}, judged(t, s)); d != "" {
		t.Errorf("judged pairs (-want +got):\n%s", d)
	}

	// c is written again: b comes back, c's links and pairs go.
	got := commit(t, s, cairn.WindowCommit{Records: []string{"c"}, Memories: []cairn.Memory{c}})
	if !slices.Equal(got.Touched, []string{"m-b"}) || len(got.Removed) != 0 {
		t.Errorf("writing m-c again: %+v, want m-b touched", got)
	}
	if got := getMemory(t, s, "m-b"); got.Status != cairn.StatusActive || got.SupersededBy != "" || len(got.Cues) != 2 {
		t.Errorf("m-b after m-c was written again: %+v", got)
	}
	if d := cmp.Diff([]string{"m-b merged m-a"}, links(t, s, "m-b")); d != "" {
		t.Errorf("links of m-b (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[[2]string]bool{{"m-a", "m-b"}: true}, judged(t, s)); d != "" {
		t.Errorf("judged pairs after m-c was written again (-want +got):\n%s", d)
	}
	// a's record is read again and a is no longer written: b gives back
	// what a added.
	got = commit(t, s, cairn.WindowCommit{Records: []string{"a"}})
	if !slices.Equal(got.Touched, []string{"m-b"}) || !equal(ids(got.Removed), "m-a") {
		t.Errorf("removing m-a: %+v", got)
	}
	if d := cmp.Diff(b, getMemory(t, s, "m-b"), cmpopts.IgnoreFields(cairn.Memory{}, "CreatedAt", "Status")); d != "" {
		t.Errorf("m-b after m-a went (-want +got):\n%s", d)
	}
	if l := links(t, s, "m-b"); len(l) != 0 {
		t.Errorf("links left: %v", l)
	}
	if p := judged(t, s); len(p) != 0 {
		t.Errorf("judged pairs left: %v", p)
	}
}

// testApplySleepRefusesRewritten: a member that a consolidation rewrote
// while the judge read the old copy makes the change fail, and the new
// content stays; read again, the same change applies.
func testApplySleepRefusesRewritten(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	old := memory("m1", "fact", "a")
	old.Summary = "old summary"
	other := memory("m2", "fact", "b")
	commit(t, s, cairn.WindowCommit{Records: []string{"a", "b"}, Memories: []cairn.Memory{old, other}})
	read := listMemories(t, s, cairn.MemoryFilter{Status: cairn.StatusActive})
	if len(read) != 2 {
		t.Fatalf("memories = %v", ids(read))
	}
	seen := map[string]string{}
	for _, m := range read {
		seen[m.ID] = cairn.MemoryFingerprint(m)
	}
	newer := memory("m1", "fact", "a")
	newer.Summary = "new summary"
	commit(t, s, cairn.WindowCommit{Records: []string{"a", "b"}, Memories: []cairn.Memory{newer, other}})
	stale := read[slices.IndexFunc(read, func(m cairn.Memory) bool { return m.ID == "m1" })]
	stale.Body = "merged by sleep"
	err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m1", "m2"}, Updates: []cairn.Memory{stale}, Seen: seen})
	if !errors.Is(err, cairn.ErrNotFound) {
		t.Fatalf("ApplySleep over a rewritten member = %v, want ErrNotFound", err)
	}
	if m := getMemory(t, s, "m1"); m.Summary != "new summary" || m.Body == "merged by sleep" {
		t.Errorf("m1 = %+v; want the rewritten content kept", m)
	}
	fresh := getMemory(t, s, "m1")
	seen["m1"] = cairn.MemoryFingerprint(fresh)
	fresh.Body = "merged by sleep"
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m1", "m2"}, Updates: []cairn.Memory{fresh}, Seen: seen}); err != nil {
		t.Fatalf("ApplySleep after a fresh read: %v", err)
	}
	if m := getMemory(t, s, "m1"); m.Body != "merged by sleep" {
		t.Errorf("m1 after the fresh change = %+v", m)
	}
}

// testJudgedPairs: every pair of a group's members is judged, smaller id
// first, whatever order they come in; related links go both ways as
// given, and a memory's links are those from or to it.
func testJudgedPairs(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	var ms []cairn.Memory
	for _, id := range []string{"m-z", "m-y", "m-x", "m-w"} {
		ms = append(ms, memory(id, "fact", id))
	}
	commit(t, s, cairn.WindowCommit{Records: []string{"m-z", "m-y", "m-x", "m-w"}, Memories: ms})
	if p := judged(t, s); len(p) != 0 {
		t.Errorf("judged pairs before any sleep = %v", p)
	}
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-z", "m-x", "m-y"}, Links: []cairn.MemoryLink{
		{From: "m-z", To: "m-x", Kind: cairn.LinkRelated, Reason: "both about x"},
		{From: "m-x", To: "m-z", Kind: cairn.LinkRelated, Reason: "both about x"},
	}}); err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]bool{{"m-x", "m-y"}: true, {"m-x", "m-z"}: true, {"m-y", "m-z"}: true}
	if d := cmp.Diff(want, judged(t, s)); d != "" {
		t.Errorf("judged pairs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"m-x related m-z", "m-z related m-x"}, links(t, s, "m-x")); d != "" {
		t.Errorf("links of m-x (-want +got):\n%s", d)
	}
	if l := links(t, s, "m-y"); len(l) != 0 {
		t.Errorf("links of m-y (judged, not linked) = %v", l)
	}
	if l := links(t, s, "m-none"); len(l) != 0 {
		t.Errorf("links of an unknown memory = %v", l)
	}
	// Judging an overlapping group again adds only the new pairs.
	if err := s.ApplySleep(ctx, cairn.SleepChange{Members: []string{"m-w", "m-x"}}); err != nil {
		t.Fatal(err)
	}
	want[[2]string{"m-w", "m-x"}] = true
	if d := cmp.Diff(want, judged(t, s)); d != "" {
		t.Errorf("judged pairs after a second group (-want +got):\n%s", d)
	}
	// Related memories stay active.
	for _, m := range listMemories(t, s, cairn.MemoryFilter{}) {
		if m.Status != cairn.StatusActive {
			t.Errorf("%s is %s after related links only", m.ID, m.Status)
		}
	}
}
