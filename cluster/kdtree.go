package cluster

import (
	"cmp"
	"slices"
)

// kdTree indexes points (euclidean) for HDBSCAN in the low-dimensional
// UMAP space: each node owns a contiguous range of perm and the bounding
// box of its points; leaves hold at most kdLeaf points. gonum's kdtree is
// not a dependency here and its queries cannot skip the nodes that lie
// inside one component, which Borůvka's search needs, so this is a small
// one of its own.
type kdTree struct {
	p       points
	perm    []int32   // point indices; node k owns perm[lo[k]:hi[k]]
	lo, hi  []int32   // per node
	left    []int32   // per node: first child, −1 for a leaf
	right   []int32   // per node: second child
	box     []float32 // per node: dim minima, then dim maxima
	minCore []float64 // per node: the smallest core distance below it (Borůvka)
	comp    []int32   // per node: the one component of its points, else −1 (per Borůvka round)
}

const (
	kdLeaf = 16
	// kdMaxDim: above it a box prunes too little and HDBSCAN keeps the
	// exact dense search (method none on 512-dimensional vectors).
	kdMaxDim = 32
	// kdSlack shrinks box lower bounds by a relative 1e-4 before they
	// prune: sqDist sums in float32 and may round below the float64 bound
	// of its box, so a point at the pruning distance is never lost.
	kdSlack = 1 - 1e-4
)

// newKDTree splits on the widest axis at the median (ties by index), so
// the tree depends on the points only.
func newKDTree(p points) *kdTree {
	n := p.n()
	t := &kdTree{p: p, perm: make([]int32, n)}
	for i := range t.perm {
		t.perm[i] = int32(i)
	}
	t.build(0, n)
	return t
}

func (t *kdTree) build(lo, hi int) int32 {
	id := int32(len(t.lo))
	dim := t.p.dim
	t.lo, t.hi = append(t.lo, int32(lo)), append(t.hi, int32(hi))
	t.left, t.right = append(t.left, -1), append(t.right, -1)
	at := len(t.box)
	t.box = append(t.box, t.p.row(int(t.perm[lo]))...)
	t.box = append(t.box, t.p.row(int(t.perm[lo]))...)
	bmin, bmax := t.box[at:at+dim], t.box[at+dim:at+2*dim]
	for _, i := range t.perm[lo+1 : hi] {
		for d, x := range t.p.row(int(i)) {
			bmin[d], bmax[d] = min(bmin[d], x), max(bmax[d], x)
		}
	}
	axis, spread := 0, float32(0)
	for d := range dim {
		if s := bmax[d] - bmin[d]; s > spread {
			axis, spread = d, s
		}
	}
	if hi-lo <= kdLeaf || spread == 0 {
		return id
	}
	slices.SortFunc(t.perm[lo:hi], func(a, b int32) int {
		return cmp.Or(cmp.Compare(t.p.row(int(a))[axis], t.p.row(int(b))[axis]), cmp.Compare(a, b))
	})
	mid := (lo + hi) / 2
	l := t.build(lo, mid)
	r := t.build(mid, hi)
	t.left[id], t.right[id] = l, r
	return id
}

// boxLB is the squared distance from q to node k's box, shrunk by kdSlack.
func (t *kdTree) boxLB(q []float32, k int32) float64 {
	dim := t.p.dim
	b := t.box[int(k)*2*dim : (int(k)+1)*2*dim]
	var s float64
	for d, x := range q {
		if lo := b[d]; x < lo {
			s += float64(lo-x) * float64(lo-x)
		} else if hi := b[dim+d]; x > hi {
			s += float64(x-hi) * float64(x-hi)
		}
	}
	return s * kdSlack
}

// neighbour is a point and its squared distance, ordered by (d, j).
type neighbour struct {
	d float64
	j int32
}

func nbLess(a, b neighbour) bool { return a.d < b.d || (a.d == b.d && a.j < b.j) }

// nearest fills best (capacity k) with the k nearest other points of
// point i by squared distance, nearest first: exact, as a scan of every
// point would find them.
func (t *kdTree) nearest(i int, k int, best []neighbour) []neighbour {
	best = best[:0]
	q := t.p.row(i)
	var visit func(node int32, lb float64)
	visit = func(node int32, lb float64) {
		if len(best) == k && lb > best[k-1].d {
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
			if int(j) == i {
				continue
			}
			c := neighbour{sqDist(q, t.p.row(int(j))), j}
			if len(best) == k && !nbLess(c, best[k-1]) {
				continue
			}
			if len(best) < k {
				best = append(best, c)
			} else {
				best[k-1] = c
			}
			for at := len(best) - 1; at > 0 && nbLess(best[at], best[at-1]); at-- {
				best[at], best[at-1] = best[at-1], best[at]
			}
		}
	}
	visit(0, t.boxLB(q, 0))
	return best
}
