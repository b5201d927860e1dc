// Package explore is the concept graph of the memories and the walk over
// it that answers "what else is there about this?" (the explore mode of
// recall, spec §7). It calls no model.
//
// The graph has a node per memory and per concept. A memory and each
// concept it names are joined by an edge of weight 1/ln(2 + the number of
// memories naming the concept), so a concept everything mentions carries
// little; two memories joined by a "related" link (consolidation and
// sleep write them) by an edge of weight 1. Each exploration adds its own
// edges from its seeds' nearest memories by key vector, two hops out,
// weighted by similarity. From the seeds (a topic's search hits and/or
// given memory ids) a Personalized PageRank walk with restart probability
// 0.5 scores every node it reaches. The result: found (the seeds),
// related (memories reached only through the graph, best first, each with
// the most likely path a walker took to it: via concept X, via a related
// link, via a nearest neighbour) and the concepts the walk spent most
// time on, which are where to look next.
//
// A Graph is built once from a snapshot of the memories and shared by
// concurrent explorations; rebuild it when memories change. The inputs
// are plain values and two small interfaces the caller implements:
// Searcher (a topic's hits) and Neighbours (nearest memories by vector).
//
// Quick start:
//
//	g := explore.Build(memories, links) // []cairn.Memory, []cairn.MemoryLink
//	x := explore.New(g, searcher, neighbours) // either may be nil
//	res, err := x.Explore(ctx, &explore.Request{
//		Topic:  "release signing",
//		Filter: func(id string) bool { return active[id] },
//	})
//	for _, r := range res.Related {
//		fmt.Println(r.ID, r.Score, r.Path[len(r.Path)-1]) // "via concept cosign"
//	}
package explore
