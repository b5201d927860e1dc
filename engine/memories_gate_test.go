package engine

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// askCounter counts the store's HasMemories and DocStates calls.
type askCounter struct {
	cairn.Storage
	has, docs atomic.Int32
}

func (s *askCounter) HasMemories(ctx context.Context) (bool, error) {
	s.has.Add(1)
	return s.Storage.HasMemories(ctx)
}

func (s *askCounter) DocStates(ctx context.Context, corpus string) (map[string]cairn.DocState, error) {
	s.docs.Add(1)
	return s.Storage.DocStates(ctx, corpus)
}

func corpusNames(cs []cairn.Corpus) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// TestSearchCorporaAsks: how often searchCorpora asks the store, over
// five searches of a notes-only engine, and what it selects from. A
// lexical search of every corpus asks once (HasMemories and DocStates)
// and then takes the memories corpus in without a question; one naming
// corpora without the memories corpus asks nothing; one naming the
// memories corpus, hybrid mode, and an index holding memories documents
// without memories ask on every search (liveCorpora), and then leave the
// memories corpus out.
func TestSearchCorporaAsks(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		names        []string
		mode         string
		embedder     bool
		ghost        bool // a memories document indexed without its memory
		has, docs    int32
		withMemories bool
	}{
		{name: "every corpus, lexical", mode: cairn.ModeLexical, has: 1, docs: 1, withMemories: true},
		{name: "all, default mode without an embedder", names: []string{"all"}, has: 1, docs: 1, withMemories: true},
		{name: "named notes", names: []string{"notes"}, mode: cairn.ModeLexical},
		{name: "named memories", names: []string{"Memories"}, mode: cairn.ModeLexical, has: 5},
		{name: "every corpus, hybrid", mode: cairn.ModeHybrid, embedder: true, has: 5},
		{name: "every corpus, default mode with an embedder", embedder: true, has: 5},
		{name: "memories documents without memories", mode: cairn.ModeLexical, ghost: true, has: 5, docs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Options
			if tc.embedder {
				o.Embedder = &conceptEmbedder{model: "v1"}
			}
			f := newFixture(t, map[string]string{"a.md": "# Garden\n\nThe tomatoes need compost.\n"}, o)
			f.sync()
			if tc.ghost {
				b := &cairn.Batch{Corpus: cairn.MemoriesCorpus, Upserts: []cairn.Document{{Corpus: cairn.MemoriesCorpus,
					Path: "fact/m-gone.md", Hash: sha256Hex("gone"), Text: "gone", Chunks: []cairn.Chunk{}}}}
				if err := f.eng.store.Apply(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			st := &askCounter{Storage: f.eng.store}
			f.eng.store = st
			var g memoryGate
			for range 5 {
				sel, err := f.eng.searchCorpora(ctx, &g, tc.names, tc.mode)
				if err != nil {
					t.Fatal(err)
				}
				if got := slices.Contains(corpusNames(sel), cairn.MemoriesCorpus); got != tc.withMemories {
					t.Fatalf("selects from %v: memories corpus %v, want %v", corpusNames(sel), got, tc.withMemories)
				}
			}
			if st.has.Load() != tc.has || st.docs.Load() != tc.docs {
				t.Errorf("5 searches asked HasMemories %d and DocStates %d times, want %d and %d", st.has.Load(), st.docs.Load(), tc.has, tc.docs)
			}
			if f.eng.recall.live.Load() {
				t.Error("the memories corpus went live without a memory")
			}
		})
	}
}

// TestSearchCorporaSeesOthers: after the gate's first look, a memory
// that another engine of the data directory remembers is found by the
// first engine's next search over the corpora searchCorpora selects,
// without a question to the store, and the memories corpus is live from
// that search on. An engine of no corpus but the memories one asks, and
// still answers that no corpus is configured.
func TestSearchCorporaSeesOthers(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"b.md": "# Bees\n\nThe hive needs a roof.\n"}, Options{})
	f.sync()
	var g memoryGate
	if _, err := f.eng.searchCorpora(ctx, &g, nil, cairn.ModeLexical); err != nil {
		t.Fatal(err)
	}
	res := rememberElsewhere(t, f)
	st := &askCounter{Storage: f.eng.store}
	f.eng.store = st
	sel, err := f.eng.searchCorpora(ctx, &g, nil, cairn.ModeLexical)
	if err != nil {
		t.Fatal(err)
	}
	if st.has.Load() != 0 {
		t.Fatalf("searchCorpora asked HasMemories %d times after its first look", st.has.Load())
	}
	// What Search does with the selection in lexical mode (engine.go).
	o := cairn.SearchOptions{Corpora: corpusNames(sel), Mode: cairn.ModeLexical}
	o.SetDefaults()
	hits, err := f.eng.lexicalSearch(ctx, "cedar roof", &o, search.Scope{})
	if err == nil {
		err = f.eng.annotateMemoryHits(ctx, hits)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Memory == nil || hits[0].Memory.ID != res.Memory.ID {
		t.Fatalf("hits = %+v, want memory %s first", hits, res.Memory.ID)
	}
	if st.has.Load() != 0 || !f.eng.recall.live.Load() {
		t.Errorf("after the search found the memory: %d questions, live %v; want 0, live", st.has.Load(), f.eng.recall.live.Load())
	}

	empty := newFixture(t, nil, Options{Corpora: []cairn.Corpus{}})
	ec := &askCounter{Storage: empty.eng.store}
	empty.eng.store = ec
	var eg memoryGate
	sel, err = empty.eng.searchCorpora(ctx, &eg, nil, cairn.ModeLexical)
	if err != nil || ec.has.Load() != 1 || len(sel) != 0 {
		t.Fatalf("no corpus configured: %v, %v after %d questions; want none selected after 1", corpusNames(sel), err, ec.has.Load())
	}
	if _, err := cairn.SelectCorpora(sel, nil); err == nil {
		t.Error("selecting from no corpus is not an error")
	}
}

// rememberElsewhere has a second engine over f's data directory (another
// process, as far as f's engine can tell) remember "The hive roof is
// cedar." and returns what it stored.
func rememberElsewhere(t *testing.T, f *fixture) *cairn.RememberResult {
	t.Helper()
	ctx := context.Background()
	other, err := Open(ctx, f.eng.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	res, err := other.Remember(ctx, &cairn.RememberRequest{Agent: "cli", Kind: "fact", Title: "Hive roof", Summary: "The hive roof is cedar."})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
