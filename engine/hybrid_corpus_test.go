package engine

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestScoreOwnCorpus: a note's calibrated score is the same whether
// another corpus, whose notes hold every word of the query, is searched
// beside it or not (ux F19). Before search.CorpusSignals the query's best
// term share and the lexical ranks were taken over every hit: "token
// TTL" gave a docs chunk holding "token" 0.71 beside sessions holding
// both words and 0.32 with --corpus docs.
func TestScoreOwnCorpus(t *testing.T) {
	f := newFixture(t, nil, Options{})
	docs, log := filepath.Join(f.notes, "docs"), filepath.Join(f.notes, "log")
	for i := range 6 {
		f.write(fmt.Sprintf("docs/d%d.md", i), fmt.Sprintf("# Page %d\n\nThe server reads a token from the file named in its flags, page %d of the guide.\n", i, i))
		f.write(fmt.Sprintf("log/l%d.md", i), fmt.Sprintf("# Run %d\n\nThe token TTL is %d minutes in the tests and an hour in production.\n", i, i+1))
	}
	for i := range 20 {
		f.write(fmt.Sprintf("docs/x%d.md", i), fmt.Sprintf("# Other %d\n\nA page about gardens, soil and compost, number %d.\n", i, i))
	}
	ctx := context.Background()
	eng, err := Open(ctx, Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{
		{Name: "docs", Kind: cairn.KindFiles, Paths: []string{docs}, Glob: cairn.DefaultGlob},
		{Name: "log", Kind: cairn.KindFiles, Paths: []string{log}, Glob: cairn.DefaultGlob},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	search := func(corpora ...string) map[string]float64 {
		hits, err := eng.Search(ctx, "token TTL", &cairn.SearchOptions{Mode: cairn.ModeLexical, Limit: 20, Corpora: corpora})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range hits {
			if h.Corpus == "docs" {
				out[h.Path] = h.Score
			}
		}
		return out
	}
	both, alone := search(), search("docs")
	if len(alone) != 6 || len(both) != 6 {
		t.Fatalf("docs hits: %d beside log, %d alone; want the 6 notes holding token", len(both), len(alone))
	}
	for p, s := range alone {
		if b, ok := both[p]; !ok || math.Abs(b-s) > 1e-9 {
			t.Errorf("%s scores %.4f beside the log corpus, %.4f alone", p, b, s)
		}
	}
}
