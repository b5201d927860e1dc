package cluster

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// Fast exact HDBSCAN for the low-dimensional space: core distances by
// kd-tree search and the minimum spanning tree of mutual reachability by
// Borůvka's algorithm over the same tree. Both are exact: the core
// distances equal the dense scan's bit for bit (the same sqDist on the
// same pairs), and the tree is a minimum spanning tree under the total
// order (weight, lower end, higher end). Where several trees share the
// minimum weight (ties are common: a reachability is often a core
// distance), Prim's and Borůvka's may pick different edges of equal
// weight; the hierarchy they give (the components below every distance)
// is the same.

// kdCoreDistances returns, squared, each point's distance to its
// minSamples-th nearest point counting itself, and the minSamples−1
// nearest other points of each (n·(minSamples−1), nearest first), which
// seed Borůvka's first searches.
func kdCoreDistances(ctx context.Context, t *kdTree, minSamples, workers int) ([]float64, []int32, error) {
	n := t.p.n()
	core := make([]float64, n)
	k := min(minSamples-1, n-1)
	if k <= 0 {
		return core, nil, nil
	}
	nbrs := make([]int32, n*k)
	parallelFor(workers, n, func(lo, hi int) {
		best := make([]neighbour, 0, k)
		for i := lo; i < hi; i++ {
			if i%512 == 0 && ctx.Err() != nil {
				return
			}
			best = t.nearest(i, k, best)
			core[i] = best[k-1].d
			for m, b := range best {
				nbrs[i*k+m] = b.j
			}
		}
	})
	return core, nbrs, ctx.Err()
}

// candidate is a component's lightest outgoing edge so far: a inside, b
// outside, w the squared mutual reachability.
type candidate struct {
	w    float64
	a, b int32
}

func (c candidate) key() (int32, int32) { return min(c.a, c.b), max(c.a, c.b) }

// better orders edges by (w, lower end, higher end), a total order, so
// each component's lightest edge is unique and Borůvka adds no cycle.
func (c candidate) better(o candidate) bool {
	if c.w != o.w {
		return c.w < o.w
	}
	ca, cb := c.key()
	oa, ob := o.key()
	return ca < oa || (ca == oa && cb < ob)
}

var noCandidate = candidate{math.Inf(1), -1, -1}

// boruvkaMST: each round every component finds its lightest edge to
// another component (each point searches the tree for its lightest edge
// out, pruning nodes inside its own component and nodes whose bound —
// the largest of its own core distance, the node's smallest core distance
// and the box distance — exceeds the component's best so far), and all of
// them are added. Workers search disjoint ranges of points with their own
// bests, merged by the total order, so the tree does not depend on their
// number. Weights are returned as distances (not squared), lightest first.
func boruvkaMST(ctx context.Context, t *kdTree, core []float64, nbrs []int32, workers int) ([]edge, error) {
	n := t.p.n()
	t.minCore = make([]float64, len(t.lo))
	t.comp = make([]int32, len(t.lo))
	t.fillMinCore(0, core)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	comp := make([]int32, n)
	k := 0
	if n > 0 {
		k = len(nbrs) / n
	}
	parts := max(1, workers)
	local := make([][]candidate, parts)
	edges := make([]edge, 0, max(0, n-1))
	for len(edges) < n-1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range comp {
			comp[i] = find(int32(i))
		}
		t.fillComp(0, comp)
		step := (n + parts - 1) / parts
		parallelFor(parts, parts, func(plo, phi int) {
			for part := plo; part < phi; part++ {
				best := local[part]
				if best == nil {
					best = make([]candidate, n)
					local[part] = best
				}
				for i := range best {
					best[i] = noCandidate
				}
				for _, i := range t.perm[min(n, part*step):min(n, (part+1)*step)] {
					t.searchOut(int(i), comp, core, nbrs, k, &best[comp[i]])
				}
			}
		})
		added := 0
		for c := range n {
			if comp[c] != int32(c) {
				continue
			}
			b := noCandidate
			for _, l := range local {
				if l != nil && l[c].better(b) {
					b = l[c]
				}
			}
			if b.a < 0 {
				continue
			}
			ra, rb := find(b.a), find(b.b)
			if ra == rb { // the same edge, chosen from both sides
				continue
			}
			parent[max(ra, rb)] = min(ra, rb)
			ea, eb := b.key()
			edges = append(edges, edge{int(ea), int(eb), math.Sqrt(b.w)})
			added++
		}
		if added == 0 { // only infinite distances left: cannot happen with finite input
			break
		}
	}
	slices.SortFunc(edges, func(x, y edge) int {
		return cmp.Or(cmp.Compare(x.w, y.w), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	return edges, nil
}

func (t *kdTree) fillMinCore(node int32, core []float64) float64 {
	m := math.Inf(1)
	if l := t.left[node]; l >= 0 {
		m = min(t.fillMinCore(l, core), t.fillMinCore(t.right[node], core))
	} else {
		for _, j := range t.perm[t.lo[node]:t.hi[node]] {
			m = min(m, core[j])
		}
	}
	t.minCore[node] = m
	return m
}

func (t *kdTree) fillComp(node int32, comp []int32) int32 {
	c := int32(-1)
	if l := t.left[node]; l >= 0 {
		a, b := t.fillComp(l, comp), t.fillComp(t.right[node], comp)
		if a == b {
			c = a
		}
	} else {
		c = comp[t.perm[t.lo[node]]]
		for _, j := range t.perm[t.lo[node]+1 : t.hi[node]] {
			if comp[j] != c {
				c = -1
				break
			}
		}
	}
	t.comp[node] = c
	return c
}

// searchOut lowers best to point i's lightest edge out of its component
// where that is lighter: first through its nearest neighbours (a cheap
// bound), then through the tree.
func (t *kdTree) searchOut(i int, comp []int32, core []float64, nbrs []int32, k int, best *candidate) {
	ci, c := core[i], comp[i]
	if ci > best.w {
		return
	}
	q := t.p.row(i)
	offer := func(j int32) {
		if comp[j] == c {
			return
		}
		cand := candidate{max(ci, core[j], sqDist(q, t.p.row(int(j)))), int32(i), j}
		if cand.better(*best) {
			*best = cand
		}
	}
	for _, j := range nbrs[i*k : (i+1)*k] {
		offer(j)
	}
	var visit func(node int32, lb float64)
	visit = func(node int32, lb float64) {
		if t.comp[node] == c || max(lb, ci, t.minCore[node]) > best.w {
			return
		}
		if l := t.left[node]; l >= 0 {
			r := t.right[node]
			ll, lr := t.boxLB(q, l), t.boxLB(q, r)
			if lr < ll {
				l, r, ll, lr = r, l, lr, ll
			}
			visit(l, ll)
			visit(r, lr)
			return
		}
		for _, j := range t.perm[t.lo[node]:t.hi[node]] {
			offer(j)
		}
	}
	visit(0, t.boxLB(q, 0))
}
