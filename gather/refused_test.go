package gather

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
)

// refusing is a store whose search refuses a text of only common words,
// as the engine's memory search does.
type refusing struct{ *store }

func (r refusing) SearchMemories(ctx context.Context, q Search) ([]Candidate, error) {
	if q.Text == "when did the" {
		return nil, cairn.Invalidf("query %q has only common words", q.Text)
	}
	return r.store.SearchMemories(ctx, q)
}

// TestRefusedFurtherSearch: a further search the model proposed that the
// search refuses as invalid is skipped and counted; the gather goes on
// with the others. Before, the whole gather failed with the refusal.
func TestRefusedFurtherSearch(t *testing.T) {
	st := &store{obs: cands("obs", "observation", 3, 0.9), extra: cands("gallery", "observation", 2, 0.3)}
	m := newModel(t, func(titles []string) ([]int, []string, int) {
		return []int{1}, []string{"when did the", "gallery"}, 0
	})
	res, err := New(refusing{st}, m.client()).Gather(context.Background(), &Request{Question: "How many museums did Maya visit?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Refused != 1 || len(res.Searches) != 1 || res.Searches[0] != "gallery" || res.Stats.Candidates != 5 {
		t.Fatalf("searches %v stats %+v, want the refused one counted and the gallery one run", res.Searches, res.Stats)
	}
}
