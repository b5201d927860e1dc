// Package gather collects every memory a question needs: the gather mode
// of recall (spec §7), for questions that count, list, add up or compare,
// where a top-k misses instances.
//
// The steps: (1) a wide search, up to 200 observations and 200 other
// memories merged by score; when the question names a time (NamedTime, or
// the caller's From and To), the memories of that time are searched too
// and ranked first, in addition to the open search. (2) The fast model
// reads the candidates in parts of 40, several parts at once, keeps each
// one the answer needs and proposes up to 6 further searches. (3) Those
// searches run (30 results each) and their new candidates are read the
// same way. The result: the kept set in rank order, then the rest by
// rank, nothing dropped. A part the model did not answer keeps all its
// candidates; with no model, or none reachable, the ranked list comes
// back marked unjudged. A part's output budget is 40 tokens per candidate
// plus 600, its timeout 120 s. The model's answer is checked against a
// JSON schema (llm/schema); prompts are in prompts/, pinned by a golden.
//
// Quick start:
//
//	g := gather.New(searcher, fastModel) // fastModel may be nil
//	res, err := g.Gather(ctx, &gather.Request{Question: "How many museums did I visit in 2023?"})
//	for _, m := range res.Memories { // kept first
//		fmt.Println(m.Kept, m.Rank, m.Title)
//	}
//
// A further search the search refuses as invalid (a proposal of only
// common words) is skipped and counted in Stats.Refused: the model's
// input, not the caller's, so the gather goes on without it.
//
// Further searches are run once: what their candidates' parts propose is
// counted (Stats.Proposed) but not searched again, so a gather costs at
// most ceil(400/40) + ceil(180/40) = 15 model calls (20 when the
// question names a time: the dated search adds up to 200 candidates).
package gather
