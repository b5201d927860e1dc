package gather_test

import (
	"context"
	"fmt"

	"github.com/cairnmemory/cairn/gather"
)

// memories is a Searcher over a fixed list: every search returns the
// memories of the kinds it asks for (and of its time, when it names one),
// in the order given.
type memories []gather.Candidate

func (ms memories) SearchMemories(_ context.Context, s gather.Search) ([]gather.Candidate, error) {
	var out []gather.Candidate
	for _, m := range ms {
		obs := m.Kind == "observation"
		dated := s.From == "" || (m.EventDate != "" && m.EventDate[:len(s.From)] == s.From)
		if dated && (s.Kinds == gather.KindsAll || obs == (s.Kinds == gather.KindsObservations)) {
			out = append(out, m)
		}
	}
	return out, nil
}

// Without a fast model the ranked list comes back unjudged: the memories
// of the time the question names first (the dated search), then the rest
// of the wide search, observations and other memories merged by score.
func ExampleGatherer_Gather() {
	ms := memories{
		{ID: "o1", Kind: "observation", Title: "Visited the Louvre", EventDate: "2023-06-10", Score: 0.8},
		{ID: "o2", Kind: "observation", Title: "Orsay visit cancelled", EventDate: "2023-06-17", Score: 0.6},
		{ID: "p1", Kind: "preference", Title: "Prefers small museums", Score: 0.7},
	}
	res, err := gather.New(ms, nil).Gather(context.Background(), &gather.Request{Question: "How many museums did I visit in 2023?"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("judged:", res.Judged, "-", res.Reason, "- time named:", res.From)
	for _, m := range res.Memories {
		fmt.Println(m.Rank, m.Title)
	}
	// Output:
	// judged: false - no fast model configured - time named: 2023
	// 1 Visited the Louvre
	// 2 Orsay visit cancelled
	// 3 Prefers small museums
}
