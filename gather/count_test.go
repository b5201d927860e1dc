package gather

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCountingRun counts the model calls and tokens of one full gather:
// 200 observations and 200 other memories (texts the length consolidation
// writes: observations of about 40 words, items with 150-word summaries,
// cut at 600 characters for the prompt), a dated search of 60 (40 of them
// new), and 6 further searches of 30 new candidates each. The fake counts
// a token per 4 characters. The numbers are in bench/RESULTS.md; the
// calls are asserted, the tokens logged (go test ./gather -run
// TestCountingRun -v).
func TestCountingRun(t *testing.T) {
	words := func(n int, w string) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
	mk := func(prefix, kind string, n, textWords int, top float64) []Candidate {
		cs := cands(prefix, kind, n, top)
		for i := range cs {
			cs[i].Text = words(textWords, "word")
			cs[i].Passage = words(20, "match")
			cs[i].EventDate = "2023-05-01"
		}
		return cs
	}
	st := &store{obs: mk("obs", "observation", 200, 40, 0.9), other: mk("item", "fact", 200, 150, 0.95)}
	st.extra = mk("june", "observation", 40, 40, 0.5)
	for i := range st.extra {
		st.extra[i].EventDate = "2023-06-03"
	}
	for s := range 6 {
		st.extra = append(st.extra, mk(fmt.Sprintf("more%d", s), "observation", 30, 40, 0.2)...)
	}
	m := newModel(t, func(titles []string) ([]int, []string, int) {
		var keep []int
		for i := range titles {
			if i%10 == 0 {
				keep = append(keep, i+1)
			}
		}
		return keep, []string{"more0", "more1", "more2", "more3", "more4", "more5"}, 0
	})
	dated := &datedStore{store: st}
	res, err := New(dated, m.client()).Gather(context.Background(), &Request{Question: "How many times did I go out in June 2023?"})
	if err != nil {
		t.Fatal(err)
	}
	// 40 dated + 400 wide = 440 → 11 parts; 180 further → 5 parts.
	if res.Stats.Candidates != 620 || res.Stats.Calls != 16 || res.Stats.Parts != 16 {
		t.Fatalf("stats %+v, want 620 candidates in 16 calls", res.Stats)
	}
	t.Logf("one question: %d candidates, %d model calls, %d tokens in, %d tokens out (the budget allowed %d out)",
		res.Stats.Candidates, res.Stats.Calls, res.Stats.TokensIn, res.Stats.TokensOut, 620*TokensPerCandidate+16*TokensPerPart)
	// Without a time named: 400 wide + 180 further.
	m.parts = nil
	res, err = New(st, m.client()).Gather(context.Background(), &Request{Question: "How many times did I go out?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Candidates != 580 || res.Stats.Calls != 15 {
		t.Fatalf("stats %+v, want 580 candidates in 15 calls", res.Stats)
	}
	t.Logf("no time named: %d candidates, %d model calls, %d tokens in, %d tokens out",
		res.Stats.Candidates, res.Stats.Calls, res.Stats.TokensIn, res.Stats.TokensOut)
}

// datedStore answers a dated search with the memories of June 2023: 20
// of the wide search's observations and the 40 "june" ones.
type datedStore struct{ *store }

func (d *datedStore) SearchMemories(ctx context.Context, q Search) ([]Candidate, error) {
	if q.From == "" {
		return d.store.SearchMemories(ctx, q)
	}
	out := slices.Concat(d.obs[:20], d.extra[:40])
	d.mu.Lock()
	d.searches = append(d.searches, q)
	d.mu.Unlock()
	return out[:min(len(out), q.Limit)], nil
}
