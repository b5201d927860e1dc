package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// An edit that keeps a file's size and mtime is not seen by a plain sync
// (the stat check, as make and rsync) and is seen by a forced one, which
// reads every file again; a forced sync of unchanged files re-chunks
// nothing (the content hash still skips them).
func TestForceRereadsSameSizeEdit(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# Alpha\n\nThe quokka likes tea.\n",
		"b.md": "# Beta\n\nNothing to see here.\n",
	}, Options{})
	ctx := context.Background()
	if _, err := f.eng.Sync(ctx, &cairn.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.notes, "a.md")
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	// Same length: "quokka" becomes "wombat".
	if err := os.WriteFile(p, []byte("# Alpha\n\nThe wombat likes tea.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		t.Helper()
		hits, err := f.eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeLexical})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	plain, err := f.eng.Sync(ctx, &cairn.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.Corpora[0].Updated; got != 0 {
		t.Fatalf("plain sync updated %d files, want 0 (size and mtime unchanged)", got)
	}
	if count("wombat") != 0 {
		t.Fatal("plain sync saw an edit that kept size and mtime")
	}
	forced, err := f.eng.Sync(ctx, &cairn.SyncOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := forced.Corpora[0].Updated; got != 1 {
		t.Fatalf("forced sync updated %d files, want 1", got)
	}
	if count("wombat") != 1 || count("quokka") != 0 {
		t.Fatalf("after a forced sync: wombat %d hits, quokka %d, want 1 and 0", count("wombat"), count("quokka"))
	}
	again, err := f.eng.Sync(ctx, &cairn.SyncOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := again.Corpora[0]; c.Updated != 0 || c.Added != 0 {
		t.Fatalf("a second forced sync changed files: %+v", c)
	}
}
