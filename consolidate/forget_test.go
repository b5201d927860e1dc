package consolidate_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/google/go-cmp/cmp"
)

// TestForgetConsolidated: a consolidated memory forgotten leaves its
// window's other memories as they were and is gone from the memories and
// from search; when a record of its window changes and the window is read
// again, the model's same memory is dropped (the tombstone), not stored
// again, while the window's other memories are replaced as usual.
func TestForgetConsolidated(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, backupSession(bk1, bk1r, bk2, bk2r, bk3, bk3r))
	srv := newWireServer(t, "openai", nil)
	srv.answer = echoAnswer
	now := at(12, 9, 0)
	if res := f.consolidateAt(srv.URL, now, 0, nil); res.Windows != 2 || res.Pending != 0 {
		t.Fatalf("first run: %+v", counts(res))
	}
	var fact cairn.Memory
	for _, m := range f.memories() {
		if m.Kind == "fact" && m.Title == bk2r.Text {
			fact = m
		}
	}
	if fact.ID == "" {
		t.Fatalf("no fact %q among %v", bk2r.Text, f.titles())
	}
	before := f.memories()

	res, err := f.eng.Forget(ctx, fact.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Memory.ID != fact.ID || len(res.Restored)+len(res.Reduced) != 0 {
		t.Fatalf("forget: %+v", res)
	}
	without := func(titles []string) []string {
		return slices.DeleteFunc(titles, func(s string) bool { return s == "fact: "+bk2r.Text })
	}
	if d := cmp.Diff(without(backupTitles(bk1r.Text, bk2r.Text, bk3r.Text)), f.titles()); d != "" {
		t.Errorf("memories after forget (-want +got):\n%s", d)
	}
	for _, m := range before { // the window's others, untouched
		if m.ID == fact.ID {
			continue
		}
		got, err := f.eng.Memory(ctx, m.ID)
		if err != nil || cairn.MemoryFingerprint(got) != cairn.MemoryFingerprint(m) {
			t.Errorf("memory %q changed by the forget: %v", m.Title, err)
		}
	}
	hits, err := f.eng.Search(ctx, "cron entry restic", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Mode: cairn.ModeLexical})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || slices.ContainsFunc(hits, func(h cairn.Hit) bool { return h.Memory != nil && h.Memory.ID == fact.ID }) {
		t.Errorf("search after forget: %d hits, the forgotten fact among them or none at all", len(hits))
	}
	if again := f.consolidateAt(srv.URL, now, 0, nil); again.Windows != 0 || again.Pending != 0 {
		t.Errorf("a run after the forget: %+v, want nothing to do (its records stay done)", counts(again))
	}

	// Record 1's reply is edited: the window of all three is read again.
	f.importSessions(backupSession(bk1, bk1edit, bk2, bk2r, bk3, bk3r))
	again := f.consolidateAt(srv.URL, now, 0, nil)
	if again.Windows != 2 || again.Dropped[consolidate.DropForgotten] != 1 || again.Items != 2 {
		t.Errorf("read again: %+v, want 2 windows, 2 items stored and the forgotten fact dropped", counts(again))
	}
	if d := cmp.Diff(without(backupTitles(bk1edit.Text, bk2r.Text, bk3r.Text)), f.titles()); d != "" {
		t.Errorf("memories after the window was read again (-want +got):\n%s", d)
	}
	if _, err := f.eng.Memory(ctx, fact.ID); err == nil {
		t.Errorf("the forgotten fact came back")
	}
	checkSources(t, f)
}

// TestForgetProfile: a forgotten profile is not built again by the next
// sleep pass while its observations are the same; a new observation (a
// profile of other observations) is built as usual.
func TestForgetProfile(t *testing.T) {
	f := newFixture(t)
	var ms []cairn.Memory
	for i, text := range carolineFacts[:5] {
		ms = append(ms, caroline(i, text))
	}
	f.storeMemories(ms)
	model := &profileModel{}
	f.sleepWith(model, nil)
	profs := activeProfiles(t, f)
	if len(profs) != 1 {
		t.Fatalf("%d profiles, want 1", len(profs))
	}
	if _, err := f.eng.Forget(context.Background(), profs[0].ID); err != nil {
		t.Fatal(err)
	}
	if res := f.sleepWith(model, nil); res.Profiles != 0 || len(model.profiles) != 1 || len(activeProfiles(t, f)) != 0 {
		t.Fatalf("after the forget: %d profiles written, %d asked in all, %d stored; want the forgotten one not built again",
			res.Profiles, len(model.profiles), len(activeProfiles(t, f)))
	}
	f.storeMore(caroline(5, carolineFacts[5]))
	if res := f.sleepWith(model, nil); res.Profiles != 1 || len(activeProfiles(t, f)) != 1 {
		t.Fatalf("a new observation: %d profiles written, want 1", res.Profiles)
	}
}

// TestForgetObservationProfiles: forgetting an observation forgets the
// profiles built from it, the active one and the one it replaced, since
// their text may say what it said; the next sleep pass builds the
// subject's profile again from the observations left, without it.
func TestForgetObservationProfiles(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var ms []cairn.Memory
	for i, text := range carolineFacts[:5] {
		ms = append(ms, caroline(i, text))
	}
	f.storeMemories(ms)
	model := &profileModel{}
	f.sleepWith(model, nil)
	f.storeMore(caroline(5, carolineFacts[5]))
	f.sleepWith(model, nil) // rebuilt from 6; the first profile superseded
	all, err := f.eng.Memories(ctx, cairn.MemoryFilter{Kind: cairn.MemoryProfile})
	if err != nil || len(all) != 2 || len(activeProfiles(t, f)) != 1 {
		t.Fatalf("profiles %d (%v), active %d; want 2 and 1", len(all), err, len(activeProfiles(t, f)))
	}
	res, err := f.eng.Forget(ctx, ms[3].ID) // "Caroline plans to study counseling."
	if err != nil {
		t.Fatal(err)
	}
	var gone []string
	for _, p := range res.Profiles {
		gone = append(gone, p.ID)
	}
	want := []string{all[0].ID, all[1].ID}
	slices.Sort(gone)
	slices.Sort(want)
	if !slices.Equal(gone, want) || len(res.Restored)+len(res.Reduced) != 0 {
		t.Fatalf("forgot profiles %v, want both %v; restored %d, reduced %d", gone, want, len(res.Restored), len(res.Reduced))
	}
	if left, _ := f.eng.Memories(ctx, cairn.MemoryFilter{Kind: cairn.MemoryProfile}); len(left) != 0 {
		t.Fatalf("%d profiles left", len(left))
	}
	if r := f.sleepWith(model, nil); r.Profiles != 1 {
		t.Fatalf("the next sleep wrote %d profiles, want 1", r.Profiles)
	}
	last := model.profiles[len(model.profiles)-1]
	if strings.Contains(last.Prompt, carolineFacts[3]) || !strings.Contains(last.Prompt, carolineFacts[5]) {
		t.Errorf("the rebuilt profile was asked from:\n%s", last.Prompt)
	}
}
