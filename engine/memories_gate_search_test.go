package engine

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestSearchAsksMemoriesOnce: Search of a notes-only engine asks the
// store about memories on its first lexical search only (searchCorpora,
// memories_gate.go), and still finds at once a memory another engine of
// the data directory remembers. (Before, every search asked: 5 of 5.)
func TestSearchAsksMemoriesOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"b.md": "# Bees\n\nThe hive needs a roof.\n"}, Options{})
	f.sync()
	st := &askCounter{Storage: f.eng.store}
	f.eng.store = st
	for range 5 {
		if _, err := f.eng.Search(ctx, "hive", &cairn.SearchOptions{Mode: cairn.ModeLexical}); err != nil {
			t.Fatal(err)
		}
	}
	if n := st.has.Load(); n != 1 {
		t.Fatalf("5 lexical searches asked HasMemories %d times, want 1", n)
	}
	res := rememberElsewhere(t, f)
	hits, err := f.eng.Search(ctx, "cedar roof", &cairn.SearchOptions{Mode: cairn.ModeLexical})
	if err != nil || len(hits) == 0 || hits[0].Memory == nil || hits[0].Memory.ID != res.Memory.ID {
		t.Fatalf("search after another engine remembered = %+v, %v; want memory %s", hits, err, res.Memory.ID)
	}
	if n := st.has.Load(); n != 1 {
		t.Errorf("HasMemories asked %d times in all, want 1", n)
	}
}
