package engine

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
)

// Before the first memory (notes alone: the memories corpus is not live;
// notes and sessions: it is, and empty), gather and explore answer with
// nothing found and the NoMemories hint, not "unknown corpus: memories"
// (ux F18); once a memory is stored the hint is gone.
func TestGatherExploreBeforeFirstMemory(t *testing.T) {
	ctx := context.Background()
	notesOnly := newFixture(t, map[string]string{"a.md": "# Museums\n\nI visited three museums.\n"}, Options{})
	notesOnly.sync()
	for name, eng := range map[string]*Engine{"notes alone": notesOnly.eng, "notes and sessions": rememberFixture(t, nil).eng} {
		g, err := eng.Gather(ctx, "how many museums did I visit", nil)
		if err != nil {
			t.Fatalf("%s: gather: %v", name, err)
		}
		if len(g.Memories) != 0 || g.Hint != NoMemories || g.Stats.TokensIn != 0 {
			t.Errorf("%s: gather = %+v; want no memories, the hint and no model", name, g)
		}
		x, err := eng.Explore(ctx, "museums", &ExploreOptions{IDs: []string{"m-0123456789abcdef"}})
		if err != nil {
			t.Fatalf("%s: explore: %v", name, err)
		}
		if len(x.Found) != 0 || len(x.Related) != 0 || x.Hint != NoMemories || len(x.Missing) != 1 {
			t.Errorf("%s: explore = %+v; want nothing found, the id missing, the hint", name, x)
		}
	}
	if _, err := notesOnly.eng.Remember(ctx, &cairn.RememberRequest{Agent: "test", Kind: "fact", Title: "Museum count",
		Summary: "Dana visited the museums of Oslo."}); err != nil {
		t.Fatal(err)
	}
	g, err := notesOnly.eng.Gather(ctx, "how many museums did Dana visit", nil)
	if err != nil || len(g.Memories) != 1 || g.Hint != "" {
		t.Fatalf("gather after remember = %+v, %v; want the memory, no hint", g, err)
	}
	x, err := notesOnly.eng.Explore(ctx, "museums Oslo", nil)
	if err != nil || len(x.Found) != 1 || x.Hint != "" {
		t.Fatalf("explore after remember = %+v, %v; want the memory, no hint", x, err)
	}
}
