package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
)

// plainStorage hides what a store offers beyond cairn.Storage (here
// CorpusStats), as a store that lacks it would.
type plainStorage struct{ cairn.Storage }

// TestIndexStatsScoped: under a scope of some corpora, IndexStats (what
// memory_diagnostics reports) counts those corpora alone, the same counts
// an agent of those corpora alone has, with no size on disk; before, a
// token granted notes saw the counts of all four corpora. Unscoped it
// counts everything. A store without CorpusStats is counted through its
// documents: no chunk count, never another corpus's.
func TestIndexStatsScoped(t *testing.T) {
	f, _ := scopeFixture(t)
	bg := context.Background()
	all, err := f.eng.IndexStats(bg)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(f.eng.opts.Corpora, func(c cairn.Corpus) bool { return c.Name == "notes" })
	alone := newFixture(t, nil, Options{Corpora: []cairn.Corpus{f.eng.opts.Corpora[i]}}) // notes, the same folder
	if _, err := alone.eng.Sync(bg, nil); err != nil {
		t.Fatal(err)
	}
	want, err := alone.eng.IndexStats(bg)
	if err != nil {
		t.Fatal(err)
	}
	want.Bytes = 0
	if want.Documents == 0 || want.Chunks == 0 || all.Documents <= want.Documents || all.Chunks <= want.Chunks || all.Bytes == 0 {
		t.Fatalf("fixture: all corpora %+v, notes alone %+v; want notes to hold part of it", all, want)
	}
	notes := WithScope(bg, Scope{Grant: "docs", Read: []string{"Notes"}})
	got, err := f.eng.IndexStats(notes)
	if err != nil || got != want {
		t.Errorf("IndexStats under a scope of notes = %+v, %v; want %+v (notes alone, no size)", got, err, want)
	}
	none := WithScope(bg, Scope{Grant: "nothing", Read: []string{}})
	if got, err := f.eng.IndexStats(none); err != nil || got != (cairn.IndexStats{}) {
		t.Errorf("IndexStats under a scope of no corpus = %+v, %v; want zeros", got, err)
	}
	every := WithScope(bg, Scope{Grant: "all"})
	if got, err := f.eng.IndexStats(every); err != nil || got != all {
		t.Errorf("IndexStats under a scope of every corpus = %+v, %v; want %+v", got, err, all)
	}
	f.eng.store = plainStorage{f.eng.store}
	got, err = f.eng.IndexStats(notes)
	if want.Chunks = 0; err != nil || got != want {
		t.Errorf("IndexStats of a store without CorpusStats = %+v, %v; want %+v", got, err, want)
	}
}
