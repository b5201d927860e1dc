package cluster

import (
	"cmp"
	"math"
	"slices"
)

// linkage is the single linkage dendrogram of n points: node i < n is
// point i, node n+k is the k-th merge (of left and right at dist).
type linkage struct {
	n                 int
	left, right, size []int
	dist              []float64
}

// singleLinkage merges the MST edges in order of weight (ties by their
// order in the tree) with union-find.
func singleLinkage(n int, mst []edge) linkage {
	es := slices.Clone(mst)
	slices.SortStableFunc(es, func(x, y edge) int { return cmp.Compare(x.w, y.w) })
	l := linkage{n: n, left: make([]int, n-1), right: make([]int, n-1), size: make([]int, n-1), dist: make([]float64, n-1)}
	parent := make([]int, 2*n-1)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for k, e := range es {
		a, b := find(e.a), find(e.b)
		node := n + k
		parent[a], parent[b] = node, node
		l.left[k], l.right[k], l.dist[k] = a, b, e.w
		l.size[k] = l.nodeSize(a) + l.nodeSize(b)
	}
	return l
}

func (l linkage) nodeSize(x int) int {
	if x < l.n {
		return 1
	}
	return l.size[x-l.n]
}

// leaves appends the points under node x.
func (l linkage) leaves(x int, out []int) []int {
	stack := []int{x}
	for len(stack) > 0 {
		x, stack = stack[len(stack)-1], stack[:len(stack)-1]
		if x < l.n {
			out = append(out, x)
			continue
		}
		stack = append(stack, l.right[x-l.n], l.left[x-l.n])
	}
	return out
}

// condensed is the condensed cluster tree: clusters numbered from 0 (the
// root) in the order they are born, so a child's number is above its
// parent's; points that fall out of a cluster are recorded with the λ
// (1/distance) at which they left.
type condensed struct {
	parent  []int     // cluster → parent cluster (root: -1)
	birth   []float64 // λ at which the cluster split off its parent (root: 0)
	size    []int
	pointOf []int     // point → the cluster it fell out of
	lambda  []float64 // point → λ at which it fell out
	kids    [][]int   // cluster → child clusters
}

// lambdaOf turns a merge distance into λ; distance 0 (coinciding points)
// gets a large finite λ instead of +Inf, so stabilities stay finite.
func lambdaOf(d float64) float64 { return 1 / max(d, 1e-12) }

// condense walks the dendrogram from its root: a split where both sides
// have at least minSize points makes two child clusters; a side below
// minSize falls out of the cluster as points; the cluster continues as the
// other side.
func condense(l linkage, minSize int) condensed {
	n := l.n
	c := condensed{parent: []int{-1}, birth: []float64{0}, size: []int{n},
		pointOf: make([]int, n), lambda: make([]float64, n), kids: [][]int{nil}}
	label := map[int]int{2*n - 2: 0}
	queue := []int{2*n - 2}
	var buf []int
	fallOut := func(node, cl int, lam float64) {
		buf = l.leaves(node, buf[:0])
		for _, p := range buf {
			c.pointOf[p], c.lambda[p] = cl, lam
		}
	}
	for len(queue) > 0 {
		node := queue[0]
		queue = queue[1:]
		cl := label[node]
		k := node - n
		lam := lambdaOf(l.dist[k])
		left, right := l.left[k], l.right[k]
		ls, rs := l.nodeSize(left), l.nodeSize(right)
		switch {
		case ls >= minSize && rs >= minSize:
			for _, side := range []int{left, right} {
				id := len(c.parent)
				c.parent = append(c.parent, cl)
				c.birth = append(c.birth, lam)
				c.size = append(c.size, l.nodeSize(side))
				c.kids = append(c.kids, nil)
				c.kids[cl] = append(c.kids[cl], id)
				label[side] = id
				queue = append(queue, side)
			}
		case ls < minSize && rs < minSize:
			fallOut(left, cl, lam)
			fallOut(right, cl, lam)
		default:
			small, big := left, right
			if ls >= minSize {
				small, big = right, left
			}
			fallOut(small, cl, lam)
			if big < n { // minSize 1 is not allowed, so a cluster side is a merge
				c.pointOf[big], c.lambda[big] = cl, lam
				continue
			}
			label[big] = cl
			queue = append(queue, big)
		}
	}
	return c
}

// stability of each cluster: Σ over what leaves it (points and child
// clusters) of (λ leaving − λ birth) × size.
func (c condensed) stability() []float64 {
	s := make([]float64, len(c.parent))
	for p, cl := range c.pointOf {
		s[cl] += c.lambda[p] - c.birth[cl]
	}
	for id := 1; id < len(c.parent); id++ {
		par := c.parent[id]
		s[par] += (c.birth[id] - c.birth[par]) * float64(c.size[id])
	}
	return s
}

// maxLambda returns, per cluster, the largest λ of its direct children
// (points and clusters) and, with deep, of its whole subtree.
func (c condensed) maxLambda(deep bool) []float64 {
	m := make([]float64, len(c.parent))
	for p, cl := range c.pointOf {
		m[cl] = max(m[cl], c.lambda[p])
	}
	for id := len(c.parent) - 1; id >= 1; id-- {
		par := c.parent[id]
		m[par] = max(m[par], c.birth[id])
		if deep {
			m[par] = max(m[par], m[id])
		}
	}
	return m
}

// descendants appends every cluster below cl.
func (c condensed) descendants(cl int, out []int) []int {
	stack := slices.Clone(c.kids[cl])
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, x)
		stack = append(stack, c.kids[x]...)
	}
	return out
}

// selectClusters picks the flat clustering: excess of mass (a cluster is
// kept when its stability is at least the sum of its children's) or the
// leaves, then the epsilon merge. The root is a candidate only with
// allowSingle.
func (c condensed) selectClusters(method string, epsilon float64, allowSingle bool) []bool {
	nc := len(c.parent)
	sel := make([]bool, nc)
	if method == SelectLeaf {
		for id := range nc {
			sel[id] = len(c.kids[id]) == 0 && (id != 0 || allowSingle)
		}
	} else {
		stab := c.stability()
		for id := nc - 1; id >= 0; id-- {
			if id == 0 && !allowSingle {
				break
			}
			var sum float64
			for _, k := range c.kids[id] {
				sum += stab[k]
			}
			if len(c.kids[id]) > 0 && sum > stab[id] {
				stab[id] = sum
				continue
			}
			sel[id] = true
			for _, d := range c.descendants(id, nil) {
				sel[d] = false
			}
		}
	}
	if epsilon > 0 {
		sel = c.epsilonMerge(sel, epsilon, allowSingle)
	}
	return sel
}

// epsilonMerge replaces each selected cluster born below distance epsilon
// with its nearest ancestor born at or above it (not the root unless
// allowSingle), as hdbscan's cluster_selection_epsilon does.
func (c condensed) epsilonMerge(sel []bool, epsilon float64, allowSingle bool) []bool {
	out := make([]bool, len(sel))
	done := make([]bool, len(sel))
	for id, s := range sel {
		if !s || done[id] {
			continue
		}
		if id == 0 || 1/c.birth[id] >= epsilon {
			out[id] = true
			continue
		}
		up := id
		for {
			par := c.parent[up]
			if par == 0 {
				if allowSingle {
					up = 0
				}
				break
			}
			up = par
			if 1/c.birth[par] > epsilon {
				break
			}
		}
		out[up] = true
		for _, d := range c.descendants(up, nil) {
			done[d], out[d] = true, false
		}
	}
	return out
}

// labels gives each point its selected ancestor cluster's index in the
// selection order (noise −1), its membership probability (λ over the
// cluster's largest λ, clipped to 1) and its GLOSH outlier score.
func (c condensed) labels(sel []bool, epsilon float64) (lab []int, prob, outlier []float64) {
	nc := len(c.parent)
	flat := make([]int, nc)
	next := 0
	for id := range nc {
		flat[id] = -1
		if sel[id] {
			flat[id] = next
			next++
		}
	}
	owner := make([]int, nc) // cluster → selected ancestor-or-self, or -1
	for id := range nc {
		owner[id] = -1
		if sel[id] {
			owner[id] = id
		} else if id > 0 {
			owner[id] = owner[c.parent[id]]
		}
	}
	direct, deep := c.maxLambda(false), c.maxLambda(true)
	n := len(c.pointOf)
	lab, prob, outlier = make([]int, n), make([]float64, n), make([]float64, n)
	for p, cl := range c.pointOf {
		lam := c.lambda[p]
		if m := deep[cl]; m > 0 && !math.IsInf(lam, 0) {
			outlier[p] = (m - lam) / m
		}
		o := owner[cl]
		lab[p] = -1
		if o < 0 {
			continue
		}
		if o == 0 { // the single root cluster: keep only points that stayed to the end
			cut := direct[0]
			if epsilon > 0 {
				cut = 1 / epsilon
			}
			if lam < cut {
				continue
			}
		}
		lab[p] = flat[o]
		prob[p] = 1
		if m := direct[o]; m > 0 {
			prob[p] = min(lam, m) / m
		}
	}
	return lab, prob, outlier
}
