package storetest

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestBackendOps checks cairn.Backend beyond Open: a feature version
// change empties the index and keeps the memories; the memories open on
// their own; the index checks pass on a sound folder; a damaged index is
// told apart, moved aside and rebuilt while the memories stay.
func TestBackendOps(t *testing.T, f Factory) {
	t.Run("FeatureVersionChange", func(t *testing.T) { testFeatureChange(t, f) })
	t.Run("OpenMemoriesAlone", func(t *testing.T) { testOpenMemories(t, f) })
	t.Run("CheckSoundIndex", func(t *testing.T) { testCheckSound(t, f) })
	t.Run("MoveAsideKeepsMemories", func(t *testing.T) { testMoveAside(t, f) })
	t.Run("DamagedIndex", func(t *testing.T) { testDamaged(t, f) })
}

// durable writes memories, a checkpoint, a link and a judged pair, and
// returns what reads them back.
func durable(t *testing.T, s cairn.Storage) func(cairn.Storage) {
	t.Helper()
	commit(t, s, cairn.WindowCommit{Records: []string{"r1", "r2"}, Hashes: []string{"h1", "h2"},
		Memories: []cairn.Memory{memory("m-kept", "fact", "r1"), memory("m-other", "fact", "r2")}})
	if err := s.ApplySleep(context.Background(), cairn.SleepChange{Members: []string{"m-kept", "m-other"},
		Links: []cairn.MemoryLink{{From: "m-kept", To: "m-other", Kind: cairn.LinkRelated}}}); err != nil {
		t.Fatal(err)
	}
	want := struct {
		ms    []string
		done  int
		links []string
		pairs int
	}{ids(listMemories(t, s, cairn.MemoryFilter{})), len(done(t, s, "main")), links(t, s, "m-kept"), len(judged(t, s))}
	return func(s cairn.Storage) {
		t.Helper()
		if got := ids(listMemories(t, s, cairn.MemoryFilter{})); !equal(got, want.ms...) {
			t.Errorf("memories = %v, want %v", got, want.ms)
		}
		if got := len(done(t, s, "main")); got != want.done {
			t.Errorf("%d records done, want %d", got, want.done)
		}
		if got := links(t, s, "m-kept"); !equal(got, want.links...) {
			t.Errorf("links = %v, want %v", got, want.links)
		}
		if got := len(judged(t, s)); got != want.pairs {
			t.Errorf("%d judged pairs, want %d", got, want.pairs)
		}
	}
}

func testFeatureChange(t *testing.T, f Factory) {
	dir := t.TempDir()
	s := open(t, f, dir)
	if s.FeatureChanged() {
		t.Error("a new store reports a feature change")
	}
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "walrus\n")})
	chunks := chunkIDs(t, s, "notes", "a.md")
	if err := s.PutVectors(context.Background(), "id-1", chunks, [][]float32{{1}}); err != nil {
		t.Fatal(err)
	}
	check := durable(t, s)
	s.Close()

	s = open(t, f, dir)
	if s.FeatureChanged() {
		t.Error("the same feature version reports a change")
	}
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("reopened with the same feature version: %v", got)
	}
	s.Close()

	s = openWith(t, f, dir, cairn.StorageOptions{FeatureVersion: FeatureVersion + "-changed"})
	if !s.FeatureChanged() {
		t.Error("another feature version is not reported")
	}
	if st := docStates(t, s, "notes"); len(st) != 0 {
		t.Errorf("documents kept across a feature change: %v", keys(st))
	}
	if got := paths(t, s, q(term("walrus"))); len(got) != 0 {
		t.Errorf("hits kept across a feature change: %v", got)
	}
	if n := count(t, "vectors", s.CountVectors, "id-1"); n != 0 {
		t.Errorf("%d vectors kept across a feature change", n)
	}
	check(s)
}

func testOpenMemories(t *testing.T, f Factory) {
	ctx := context.Background()
	if _, err := f.Backend.OpenMemories(ctx, t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("memories of an empty folder: %v, want ErrNotExist", err)
	}
	dir := t.TempDir()
	s := open(t, f, dir)
	durable(t, s)
	want := getMemory(t, s, "m-kept")
	s.Close()
	r, err := f.Backend.OpenMemories(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if m, err := r.Memory(ctx, "m-kept"); err != nil || cairn.MemoryFingerprint(m) != cairn.MemoryFingerprint(want) {
		t.Errorf("memory read alone = %+v, %v; want %+v", m, err, want)
	}
	if ms, err := r.Memories(ctx, cairn.MemoryFilter{}); err != nil || len(ms) != 2 {
		t.Errorf("memories read alone = %v, %v", ids(ms), err)
	}
	if ls, err := r.MemoryLinks(ctx, "m-kept"); err != nil || len(ls) != 1 {
		t.Errorf("links read alone = %v, %v", ls, err)
	}
	if _, err := r.Memory(ctx, "m-none"); !errors.Is(err, cairn.ErrNotFound) {
		t.Errorf("a missing memory read alone: %v, want ErrNotFound", err)
	}
}

func testCheckSound(t *testing.T, f Factory) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, f, dir)
	fill(t, s)
	s.Close()
	checked, h, err := f.Backend.CheckIndex(ctx, dir, cairn.StorageOptions{FeatureVersion: FeatureVersion})
	if err != nil || h.Damaged || checked == nil {
		t.Fatalf("CheckIndex of a sound index = %v, %+v, %v", checked, h, err)
	}
	c := closeWhenDone(t, checked)
	if got := paths(t, c, q(term("durable"))); len(got) == 0 {
		t.Error("the store CheckIndex returned finds nothing")
	}
	if fd := f.Backend.CheckMemoriesAlone(ctx, dir); fd.Problem {
		t.Errorf("CheckMemoriesAlone of sound memories: %+v", fd)
	}
}

func testMoveAside(t *testing.T, f Factory) {
	dir := t.TempDir()
	s := open(t, f, dir)
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "walrus\n")})
	check := durable(t, s)
	s.Close()
	moved, err := f.Backend.MoveAside(dir)
	if err != nil || moved == "" {
		t.Fatalf("MoveAside = %q, %v", moved, err)
	}
	s = open(t, f, dir)
	if st := docStates(t, s, "notes"); len(st) != 0 {
		t.Errorf("the index moved aside still answers: %v", keys(st))
	}
	check(s)
}

func testDamaged(t *testing.T, f Factory) {
	if f.Damage == nil {
		t.Skip("the backend gives no Damage: a damaged index cannot be made")
	}
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, f, dir)
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "walrus\n")})
	check := durable(t, s)
	s.Close()
	if err := f.Damage(dir); err != nil {
		t.Fatalf("damage: %v", err)
	}
	checked, h, err := f.Backend.CheckIndex(ctx, dir, cairn.StorageOptions{FeatureVersion: FeatureVersion})
	if err != nil || !h.Damaged || checked != nil || h.Detail == "" {
		t.Errorf("CheckIndex of a damaged index = %v, %+v, %v; want Damaged with a detail, no storage", checked, h, err)
	}
	if checked != nil {
		checked.Close()
	}
	if fd := f.Backend.CheckMemoriesAlone(ctx, dir); fd.Problem {
		t.Errorf("CheckMemoriesAlone beside a damaged index: %+v", fd)
	}
	r, err := f.Backend.OpenMemories(ctx, dir)
	if err != nil {
		t.Fatalf("memories beside a damaged index: %v", err)
	}
	if ms, err := r.Memories(ctx, cairn.MemoryFilter{}); err != nil || len(ms) != 2 {
		t.Errorf("memories beside a damaged index = %v, %v", ids(ms), err)
	}
	r.Close()
	if _, err := f.Backend.MoveAside(dir); err != nil {
		t.Fatal(err)
	}
	s = open(t, f, dir)
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "walrus\n")})
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("the rebuilt index = %v", got)
	}
	check(s)
}
