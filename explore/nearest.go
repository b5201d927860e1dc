package explore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// nearest adds the walk's own edges: each seed's k nearest memories (hop
// one), then each of those memories' k nearest (hop two), weighted by
// similarity. A pair found from both ends keeps the higher similarity.
// Neighbours the graph does not hold, or the filter keeps out, add no
// edge. The lookups of one hop run concurrently (Explorer.Parallel at a
// time); the edges are added in the order of the hop's memories, so the
// walk does not depend on which lookup finished first.
func (e *Explorer) nearest(ctx context.Context, w *walk, seeds []int32, k int, res *Result) error {
	g := w.g
	pairs := map[[2]int32]float32{}
	seen := map[int32]bool{}
	for _, u := range seeds {
		seen[u] = true
	}
	frontier := seeds
	for hop := 0; hop < 2 && len(frontier) > 0; hop++ {
		lists, err := e.lookup(ctx, g, frontier, k)
		if err != nil {
			return err
		}
		res.Stats.NeighbourCalls += len(frontier)
		var next []int32
		for i, list := range lists {
			u := frontier[i]
			for _, nb := range list {
				v, ok := g.index[nb.ID]
				if !ok || v == u || nb.Similarity <= 0 || !w.allowed(v) {
					continue
				}
				key := [2]int32{min(u, v), max(u, v)}
				pairs[key] = max(pairs[key], float32(min(nb.Similarity, 1)))
				if !seen[v] {
					seen[v] = true
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	for _, ue := range ownEdges(pairs) {
		w.setOwn(ue.u, ue.edges)
	}
	res.Stats.NeighbourEdges = len(pairs)
	return nil
}

// lookup asks for the nearest memories of each of us, Parallel at a time;
// lists[i] belongs to us[i]. Every goroutine is awaited before it returns.
func (e *Explorer) lookup(ctx context.Context, g *Graph, us []int32, k int) ([][]Neighbour, error) {
	lists := make([][]Neighbour, len(us))
	var mu sync.Mutex
	var first error // the failure that cancelled the others
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(cmp.Or(e.Parallel, DefaultParallel), 1))
	var wg sync.WaitGroup
	for i, u := range us {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			fail(fmt.Errorf("find nearest memories: %w", ctx.Err()))
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			list, err := e.Near.Nearest(ctx, g.ids[u], k)
			if err != nil {
				fail(fmt.Errorf("find nearest memories of %s: %w", g.ids[u], err))
				cancel()
				return
			}
			lists[i] = list
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return lists, nil
}

type nodeEdges struct {
	u     int32
	edges []edge
}

// ownEdges lays pairs out as each node's edges, ascending by node and
// neighbour.
func ownEdges(pairs map[[2]int32]float32) []nodeEdges {
	keys := make([][2]int32, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int32) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	out := make(map[int32][]edge, 2*len(keys))
	for _, k := range keys {
		w := pairs[k]
		out[k[0]] = append(out[k[0]], edge{to: k[1], w: w})
		out[k[1]] = append(out[k[1]], edge{to: k[0], w: w})
	}
	list := make([]nodeEdges, 0, len(out))
	for u, es := range out {
		slices.SortFunc(es, func(a, b edge) int { return cmp.Compare(a.to, b.to) })
		list = append(list, nodeEdges{u, es})
	}
	slices.SortFunc(list, func(a, b nodeEdges) int { return cmp.Compare(a.u, b.u) })
	return list
}
