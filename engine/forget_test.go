package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
)

// TestForgetTold: a told memory forgotten is gone from the store, the
// memories folder and the index (search, get, explore, gather), the
// others stay; an unknown or empty id is a clear error, a read-only grant
// may not forget, and telling it again stores it again.
func TestForgetTold(t *testing.T) {
	f := rememberFixture(t, nil)
	ctx := context.Background()
	ids := rememberAll(t, f.eng,
		cairn.RememberRequest{Kind: "fact", Title: "Release signing", Summary: "Release artifacts are signed with cosign.", Concepts: []string{"cosign", "release"}},
		cairn.RememberRequest{Kind: "procedure", Title: "Rotate the cosign key", Summary: "Generate a new key pair and upload it to the vault.", Concepts: []string{"cosign", "keys"}},
		cairn.RememberRequest{Kind: "fact", Title: "Vault holds secrets", Summary: "The team vault stores the deploy keys.", Concepts: []string{"vault", "keys"}},
	)
	sign, rotate, vault := ids["Release artifacts are signed with cosign."], ids["Generate a new key pair and upload it to the vault."],
		ids["The team vault stores the deploy keys."]
	m, err := f.eng.Memory(ctx, rotate)
	if err != nil {
		t.Fatal(err)
	}
	path, hash := consolidate.DocumentPath(&m), sha256Hex(consolidate.Document(&m))
	if has, err := f.eng.store.HasContent(ctx, []string{hash}); err != nil || !has[hash] {
		t.Fatalf("before: the index holds the memory's text: %v, %v", has, err)
	}
	if got := memoryIDs(t, f.eng, "rotate key pair vault", "lexical"); !slices.Contains(got, rotate) {
		t.Fatalf("before: search found %v, want %s", got, rotate)
	}

	readOnly := WithScope(ctx, Scope{Grant: "viewer", Write: []string{}})
	if _, err := f.eng.Forget(readOnly, rotate); !errors.Is(err, cairn.ErrForbidden) {
		t.Fatalf("forget under a read-only grant: %v, want forbidden", err)
	}

	res, err := f.eng.Forget(ctx, " "+rotate+" ")
	if err != nil {
		t.Fatal(err)
	}
	if res.Memory.ID != rotate || res.Memory.Title != "Rotate the cosign key" || len(res.Restored)+len(res.Reduced) != 0 {
		t.Fatalf("result %+v", res)
	}
	if _, err := f.eng.Memory(ctx, rotate); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("memory after forget: %v, want not found", err)
	}
	all, err := f.eng.Memories(ctx, cairn.MemoryFilter{})
	if err != nil || len(all) != 2 || slices.ContainsFunc(all, func(m cairn.Memory) bool { return m.ID == rotate }) {
		t.Errorf("memories after forget: %d, %v", len(all), err)
	}
	if got := memoryIDs(t, f.eng, "rotate key pair vault", "lexical"); slices.Contains(got, rotate) || !slices.Contains(got, vault) {
		t.Errorf("search after forget found %v: want %s and not %s", got, vault, rotate)
	}
	if _, err := os.Stat(filepath.Join(f.eng.memoriesRoot(), filepath.FromSlash(path))); !os.IsNotExist(err) {
		t.Errorf("the memory's document is still there: %v", err)
	}
	states, err := f.eng.store.DocStates(ctx, cairn.MemoriesCorpus)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := states[path]; ok || len(states) != 2 {
		t.Errorf("index holds %d memory documents (%s among them: %v), want the 2 others", len(states), path, ok)
	}
	if has, err := f.eng.store.HasContent(ctx, []string{hash}); err != nil || has[hash] {
		t.Errorf("the index still holds the forgotten memory's text (content %s): %v", hash[:12], err)
	}
	if got, err := f.eng.Get(ctx, "cairn://"+cairn.MemoriesCorpus+"/"+path, nil); err != nil || got.Status != cairn.StatusNotFound {
		t.Errorf("get of the forgotten memory's document: %+v, %v; want not found", got, err)
	}
	ex, err := f.eng.Explore(ctx, "release signing", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ex.Related {
		if r.ID == rotate || r.ID == vault { // the vault fact was reached only through the rotation
			t.Errorf("explore reached %s after the forget: %+v", r.ID, ex.Related)
		}
	}
	if len(ex.Found) != 1 || ex.Found[0].ID != sign {
		t.Errorf("explore found %+v", ex.Found)
	}
	g, err := f.eng.Gather(ctx, "how do we rotate the cosign key pair?", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, gm := range g.Memories {
		if gm.ID == rotate {
			t.Errorf("gather returned the forgotten memory")
		}
	}

	_, err = f.eng.Forget(ctx, rotate)
	if !errors.Is(err, cairn.ErrNotFound) || !strings.Contains(err.Error(), rotate) {
		t.Errorf("forget again: %v, want not found naming %s", err, rotate)
	}
	if _, err := f.eng.Forget(ctx, "m-nosuchmemory"); !errors.Is(err, cairn.ErrNotFound) || !strings.Contains(err.Error(), `"m-nosuchmemory"`) {
		t.Errorf("forget an unknown id: %v", err)
	}
	if _, err := f.eng.Forget(ctx, " "); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("forget no id: %v, want invalid", err)
	}

	again := rememberAll(t, f.eng, cairn.RememberRequest{Kind: "procedure", Title: "Rotate the cosign key",
		Summary: "Generate a new key pair and upload it to the vault.", Concepts: []string{"cosign", "keys"}})
	if again["Generate a new key pair and upload it to the vault."] != rotate {
		t.Fatalf("told again: id %v, want %s", again, rotate)
	}
	if got := memoryIDs(t, f.eng, "rotate key pair vault", "lexical"); !slices.Contains(got, rotate) {
		t.Errorf("told again, search found %v", got)
	}
}

// TestForgetMerged: forgetting a memory merged into another takes what it
// added out of the one kept; forgetting the one kept brings back the
// memory it had absorbed, and the result names it.
func TestForgetMerged(t *testing.T) {
	f := rememberFixture(t, nil)
	ctx := context.Background()
	ids := rememberAll(t, f.eng,
		cairn.RememberRequest{Kind: "fact", Title: "Staging database", Summary: "Staging runs Postgres 16.", Cues: []string{"which postgres on staging"}},
		cairn.RememberRequest{Kind: "fact", Title: "Staging Postgres", Summary: "The staging database is Postgres 16.", Cues: []string{"staging db password zx81"}},
		cairn.RememberRequest{Kind: "fact", Title: "Prod database", Summary: "Production runs Postgres 15.", Cues: []string{"which postgres on prod"}},
	)
	keptID, dupID, otherID := ids["Staging runs Postgres 16."], ids["The staging database is Postgres 16."], ids["Production runs Postgres 15."]
	merge := func() {
		t.Helper()
		kept, err := f.eng.store.Memory(ctx, keptID)
		if err != nil {
			t.Fatal(err)
		}
		dup, err := f.eng.store.Memory(ctx, dupID)
		if err != nil {
			t.Fatal(err)
		}
		add := &cairn.MemoryAddition{Cues: []string{"staging db password zx81"}}
		kept.Cues = append(kept.Cues, add.Cues...)
		dup.Status, dup.SupersededBy = cairn.StatusSuperseded, keptID
		if err := f.eng.store.ApplySleep(ctx, cairn.SleepChange{Members: []string{keptID, dupID}, Updates: []cairn.Memory{kept, dup},
			Links: []cairn.MemoryLink{{From: keptID, To: dupID, Kind: cairn.LinkMerged, Reason: "same", Added: add}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.eng.syncMemories(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	merge()
	if got := memoryIDs(t, f.eng, "zx81", "lexical"); !slices.Equal(got, []string{keptID}) {
		t.Fatalf("after the merge, zx81 finds %v, want the kept memory", got)
	}
	res, err := f.eng.Forget(ctx, dupID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reduced) != 1 || res.Reduced[0].ID != keptID || slices.Contains(res.Reduced[0].Cues, "staging db password zx81") || len(res.Restored) != 0 {
		t.Fatalf("forget the merged memory: reduced %+v, restored %+v; want the kept one without its cue", res.Reduced, res.Restored)
	}
	if got := memoryIDs(t, f.eng, "zx81", "lexical"); len(got) != 0 {
		t.Errorf("after forgetting the merged memory, zx81 finds %v", got)
	}

	// Told again and merged again; now the kept one is forgotten.
	rememberAll(t, f.eng, cairn.RememberRequest{Kind: "fact", Title: "Staging Postgres", Summary: "The staging database is Postgres 16.",
		Cues: []string{"staging db password zx81"}})
	merge()
	res, err = f.eng.Forget(ctx, keptID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restored) != 1 || res.Restored[0].ID != dupID || res.Restored[0].Status != cairn.StatusActive || len(res.Reduced) != 0 {
		t.Fatalf("forget the kept memory: restored %+v, reduced %+v; want the absorbed one active again", res.Restored, res.Reduced)
	}
	if got := memoryIDs(t, f.eng, "staging postgres", "lexical"); slices.Contains(got, keptID) || !slices.Contains(got, dupID) {
		t.Errorf("after forgetting the kept memory, staging finds %v, want %s and not %s", got, dupID, keptID)
	}
	if _, err := f.eng.Memory(ctx, otherID); err != nil {
		t.Errorf("the unrelated memory: %v", err)
	}
}
