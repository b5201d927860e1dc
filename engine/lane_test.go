package engine

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// TestVectorLaneScores: the vector lane's candidates carry their cosine
// as a neutral score (higher is better, the same value the hits show as
// Signals.Cosine) and name their lane; the lexical lane's name theirs.
func TestVectorLaneScores(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cands, _, err := f.eng.vectorLane(ctx, "garden soil", []string{"notes"}, search.Scope{}, 10)
	if err != nil || len(cands) == 0 {
		t.Fatalf("vector lane = %d candidates, %v", len(cands), err)
	}
	if c := cands[0]; c.Path != "b.md" || !(c.Score > 0.5 && c.Score <= 1+1e-6) {
		t.Errorf("best = %s scored %g, want b.md with a cosine above 0.5", c.Path, c.Score)
	}
	for i, c := range cands {
		if c.Lane != cairn.LaneVector {
			t.Errorf("candidate %d (%s) lane %q, want %q", i, c.Path, c.Lane, cairn.LaneVector)
		}
		if i > 0 && c.Score > cands[i-1].Score {
			t.Errorf("candidate %d (%s, %g) above %d (%g): want best first", i, c.Path, c.Score, i-1, cands[i-1].Score)
		}
	}
	hits, err := f.eng.Search(ctx, "garden soil", &cairn.SearchOptions{Mode: cairn.ModeVector})
	if err != nil || len(hits) == 0 {
		t.Fatalf("vector search = %d hits, %v", len(hits), err)
	}
	if h := hits[0]; h.Path != "cairn://notes/b.md" || h.Signals == nil || h.Signals.Cosine != cands[0].Score {
		t.Errorf("first hit %s signals %+v, want b.md with cosine %g (the candidate's score)", h.Path, h.Signals, cands[0].Score)
	}
	res, err := f.eng.store.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("compost"), Limit: 5})
	if err != nil || len(res.Candidates) != 1 || res.Candidates[0].Lane != cairn.LaneLexical || !(res.Candidates[0].Score > 0) {
		t.Errorf("lexical compost = %+v, %v; want one candidate with a positive score from the lexical lane", res, err)
	}
}
