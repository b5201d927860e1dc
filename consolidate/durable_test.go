package consolidate_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
	"github.com/google/go-cmp/cmp"
)

// TestMemoriesSurviveIndexRebuild: deleting index.db (the remedy for a
// damaged index) loses no memory, link, judged pair or checkpoint: they
// live in memory.db. After a reopen and a sync the memories are
// searchable again, and neither consolidation nor sleep calls a model.
func TestMemoriesSurviveIndexRebuild(t *testing.T) {
	ctx := context.Background()
	sessions := []cairn.Session{shopSession(), longSession()}
	f := newFixture(t, sessions...)
	f.run(&scripted{}, nil)
	f.storeMemories(sleepMemories())
	srv := newWireServer(t, "openai", nil)
	srv.answer = sleepAnswer
	if res := f.sleep(srv.URL, nil); res.Groups == 0 {
		t.Fatalf("sleep judged no group")
	}
	memories, links := f.memories(), f.links()
	pairs, err := f.eng.Store().JudgedPairs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) == 0 || len(pairs) == 0 {
		t.Fatalf("no links (%d) or judged pairs (%d) to keep", len(links), len(pairs))
	}

	if err := f.eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(f.dir, engine.DBFile)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(index + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, sqlite.DurableFile)); err != nil {
		t.Fatalf("no durable store beside the index: %v", err)
	}
	f.open()
	if _, err := f.eng.ImportSessions(ctx, "sessions", "fixture", sessions); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}

	if d := cmp.Diff(memories, f.memories()); d != "" {
		t.Errorf("memories after the index was rebuilt (-want +got):\n%s", d)
	}
	if d := cmp.Diff(links, f.links()); d != "" {
		t.Errorf("links after the index was rebuilt (-want +got):\n%s", d)
	}
	got, err := f.eng.Store().JudgedPairs(ctx)
	if err != nil || !cmp.Equal(pairs, got) {
		t.Errorf("judged pairs after the index was rebuilt: %v (%v), want %v", got, err, pairs)
	}
	checkSearch(t, f)
	docs, err := f.eng.Store().DocStates(ctx, cairn.MemoriesCorpus)
	if err != nil {
		t.Fatal(err)
	}
	active := 0
	for _, m := range memories {
		if m.Status == cairn.StatusActive {
			active++
		}
	}
	if len(docs) != active {
		t.Errorf("%d memory documents indexed, want the %d active memories", len(docs), active)
	}

	model := &scripted{}
	res := f.run(model, nil)
	if len(model.reqs) != 0 || res.Windows != 0 || res.Pending != 0 {
		t.Errorf("consolidation after the rebuild: %d model calls, %+v, want nothing to do", len(model.reqs), counts(res))
	}
	before := len(srv.requests())
	if res := f.sleep(srv.URL, nil); res.Groups != 0 || len(srv.requests()) != before {
		t.Errorf("sleep after the rebuild judged %d groups with %d calls, want none", res.Groups, len(srv.requests())-before)
	}
}
