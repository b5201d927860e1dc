package explore

import (
	"container/heap"
	"math"
)

// paths finds, for each target, the most likely path a walker took to it
// from a seed: the path whose product of transition probabilities
// (edge weight over the weighted degree of the node it leaves) is
// highest, by Dijkstra over -ln of those probabilities. Only nodes the
// walk pushed are left from (the others never spread their walkers), so a
// path follows the walk. The search stops once every target is settled.
// Ties go to the path settled first: nodes leave the heap by distance,
// then by number, and edges are tried in the walk's order.
func (w *walk) paths(seeds, targets []int32) map[int32][]Step {
	left := 0
	for _, t := range targets {
		if s := w.at(t); s.flags&flagTarget == 0 {
			s.flags |= flagTarget
			left++
		}
	}
	h := &nodeHeap{}
	for _, u := range seeds {
		s := w.at(u)
		s.dist, s.pred, s.flags = 0, -1, s.flags|flagReached
		heap.Push(h, item{u, 0})
	}
	for h.Len() > 0 && left > 0 {
		it := heap.Pop(h).(item)
		u := it.node
		s := &w.st[u]
		if s.flags&flagSettled != 0 || it.dist > s.dist {
			continue
		}
		s.flags |= flagSettled
		if s.flags&flagTarget != 0 {
			left--
		}
		if s.flags&flagPushed == 0 || s.deg == 0 {
			continue
		}
		w.edges(u, func(v int32, weight float32, own bool) {
			sv := w.at(v)
			if sv.flags&(flagPushed|flagTarget) == 0 {
				return // a node the walk never left is a dead end, unless a path is asked for it
			}
			d := it.dist - math.Log(float64(weight)/s.deg)
			if sv.flags&flagReached == 0 || d < sv.dist {
				sv.dist, sv.pred = d, u
				sv.flags |= flagReached
				sv.flags &^= flagEnteredOwn
				if own {
					sv.flags |= flagEnteredOwn
				}
				heap.Push(h, item{v, d})
			}
		})
	}
	out := make(map[int32][]Step, len(targets))
	for _, t := range targets {
		if w.st[t].flags&flagSettled == 0 {
			continue
		}
		var nodes []int32
		var own []bool
		for u := t; u >= 0; u = w.st[u].pred {
			nodes = append(nodes, u)
			own = append(own, w.st[u].flags&flagEnteredOwn != 0)
		}
		out[t] = w.steps(nodes, own)
	}
	return out
}

// steps turns a path read backwards (target first; own[i] says whether
// nodes[i] was entered by the walk's own edge) into steps between
// memories, a concept between two memories being one step.
func (w *walk) steps(nodes []int32, own []bool) []Step {
	g := w.g
	var out []Step
	for i := len(nodes) - 1; i > 0; {
		from := nodes[i]
		next := nodes[i-1]
		if g.isConcept(next) && i >= 2 {
			out = append(out, Step{Via: ViaConcept, Concept: g.conceptName(next), From: g.ids[from], To: g.ids[nodes[i-2]]})
			i -= 2
			continue
		}
		via := ViaRelated
		if own[i-1] {
			via = ViaNeighbour
		}
		out = append(out, Step{Via: via, From: g.ids[from], To: g.ids[next]})
		i--
	}
	return out
}

type item struct {
	node int32
	dist float64
}

// nodeHeap orders by distance, then by node number.
type nodeHeap []item

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	if h[i].dist != h[j].dist {
		return h[i].dist < h[j].dist
	}
	return h[i].node < h[j].node
}
func (h nodeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)   { *h = append(*h, x.(item)) }
func (h *nodeHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
