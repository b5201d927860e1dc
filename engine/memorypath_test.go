package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// TestSyncRefusesMemoryPathOutside: a stored memory whose id or kind
// would name a document outside the memories folder (a crafted import, a
// shared store someone else writes) is reported as a failure and never
// written; the other memories are. Before, sync wrote the memory over
// any *.md file the id's "../" reached.
func TestSyncRefusesMemoryPathOutside(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	victim := filepath.Join(base, "victim", "keep.md")
	if err := os.MkdirAll(filepath.Dir(victim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("victim content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, map[string]string{"a.md": "# Notes\n\nNothing here.\n"}, Options{Dir: filepath.Join(base, "data")})
	f.sync()
	mem := func(id, kind, title string) cairn.Memory {
		return cairn.Memory{ID: id, Kind: kind, Title: title, Summary: "attacker text " + title, Thread: "t.md",
			ToldAt: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC), Status: cairn.StatusActive}
	}
	ms := []cairn.Memory{
		mem("../../../victim/keep", "fact", "by id"),
		mem("m-kind", "../../../victim", "by kind"),
		mem("m-good", "fact", "good one"),
	}
	if _, err := f.eng.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main",
		Records: []string{"r1"}, Hashes: []string{""}, Memories: ms}); err != nil {
		t.Fatal(err)
	}
	opts := f.eng.opts
	f.eng.Close(ctx)
	eng, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	res, err := eng.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "victim content\n" {
		t.Fatalf("the file outside the memories folder was written: %q", b)
	}
	if _, err := os.Stat(filepath.Join(base, "victim", "m-kind.md")); err == nil {
		t.Fatal("a memory of kind ../../../victim was written outside the memories folder")
	}
	var mr *cairn.CorpusSyncResult
	for i := range res.Corpora {
		if res.Corpora[i].Name == cairn.MemoriesCorpus {
			mr = &res.Corpora[i]
		}
	}
	if mr == nil {
		t.Fatalf("no memories corpus in the sync: %+v", res.Corpora)
	}
	var failed []string
	for _, fl := range mr.Failures {
		failed = append(failed, fl.Path)
	}
	if mr.Failed != 2 || strings.Join(failed, " ") != "../../../victim/keep m-kind" {
		t.Fatalf("memories sync failures %d %v, want the two refused memories", mr.Failed, failed)
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, MemoriesDir, "fact", "m-good.md")); err != nil {
		t.Fatalf("the good memory's document: %v", err)
	}
}
