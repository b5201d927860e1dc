package cluster

import (
	"context"
	"math/rand/v2"
	"slices"
)

// knnGraph holds each point's k nearest other points by cosine distance
// (1 − dot product of unit vectors), nearest first; ties by index.
type knnGraph struct {
	k     int
	idx   []int32   // n·k
	dist  []float32 // n·k
	fresh []bool    // n·k: the entry came in since the last descent round
}

func (g *knnGraph) row(i int) ([]int32, []float32) {
	return g.idx[i*g.k : (i+1)*g.k], g.dist[i*g.k : (i+1)*g.k]
}

// offer puts j into i's list when it is nearer than the farthest there and
// not there yet. The list is kept sorted by (distance, index), so its
// final content does not depend on the order of offers.
func (g *knnGraph) offer(i int, j int32, d float32) bool {
	idx, dist := g.row(i)
	last := g.k - 1
	if d > dist[last] || (d == dist[last] && j >= idx[last]) {
		return false
	}
	if slices.Contains(idx, j) {
		return false
	}
	at := last
	for at > 0 && (dist[at-1] > d || (dist[at-1] == d && idx[at-1] > j)) {
		at--
	}
	fresh := g.fresh[i*g.k : (i+1)*g.k]
	copy(idx[at+1:], idx[at:last])
	copy(dist[at+1:], dist[at:last])
	copy(fresh[at+1:], fresh[at:last])
	idx[at], dist[at], fresh[at] = j, d, true
	return true
}

func newGraph(n, k int) *knnGraph {
	g := &knnGraph{k: k, idx: make([]int32, n*k), dist: make([]float32, n*k), fresh: make([]bool, n*k)}
	for i := range g.idx {
		g.idx[i], g.dist[i] = int32(n), 3 // empty slots: farther than any cosine distance
	}
	return g
}

// cosDist is 1 − a·b, with four partial sums (the compiler does not
// vectorize; this halves the time of the plain loop).
func cosDist(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return max(0, 1-(s0+s1+s2+s3))
}

// Approximate search: UMAP's own kNN is nearest-neighbour descent seeded
// by random projection trees, and so is this one, simplified: a small
// forest of angular RP trees (exact search inside each leaf) gives the
// starting lists, then rounds of a node-centred join (each point looks at
// its neighbours' and reverse neighbours' nearest neighbours) refine them until
// fewer than knnStop of the entries change. Every random choice comes from
// the seed, and each point's list is written only by the goroutine that
// owns the point, so the graph is the same for any worker count.
const (
	knnTrees    = 6
	knnLeafSize = 48
	knnRounds   = 8
	knnStop     = 0.002
	// knnJoinWidth is how many of a neighbour's nearest entries a join
	// looks at.
	knnJoinWidth = 15
)

// buildKNN builds the kNN graph; tick, when not nil, is told of each tree
// and descent round done (of knnTrees + knnRounds).
func buildKNN(ctx context.Context, p points, k int, seed uint64, workers int, tick func(done, total int)) (*knnGraph, error) {
	if tick == nil {
		tick = func(int, int) {}
	}
	const steps = knnTrees + knnRounds
	n := p.n()
	g := newGraph(n, k)
	rng := rand.New(rand.NewPCG(seed, 0x6b6e6e))
	if n <= 4*knnLeafSize { // small: exact
		leaf := make([]int, n)
		for i := range leaf {
			leaf[i] = i
		}
		joinLeaf(p, g, leaf)
		tick(steps, steps)
		return g, nil
	}
	for t := range knnTrees {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		leaves := rpTree(p, rng)
		parallelFor(workers, len(leaves), func(lo, hi int) {
			for _, leaf := range leaves[lo:hi] {
				joinLeaf(p, g, leaf)
			}
		})
		tick(t+1, steps)
	}
	for r := range knnRounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		changed := descend(p, g, workers)
		if float64(changed) < knnStop*float64(n*k) {
			break
		}
		tick(knnTrees+r+1, steps)
	}
	tick(steps, steps)
	return g, nil
}

// joinLeaf offers every pair of a leaf to both lists.
func joinLeaf(p points, g *knnGraph, leaf []int) {
	for a, i := range leaf {
		for _, j := range leaf[a+1:] {
			d := cosDist(p.row(i), p.row(j))
			g.offer(i, int32(j), d)
			g.offer(j, int32(i), d)
		}
	}
}

// rpTree splits the points recursively by the hyperplane halfway between
// two random members until a part holds at most knnLeafSize points, and
// returns the leaves.
func rpTree(p points, rng *rand.Rand) [][]int {
	all := make([]int, p.n())
	for i := range all {
		all[i] = i
	}
	var leaves [][]int
	stack := [][]int{all}
	normal := make([]float32, p.dim)
	for len(stack) > 0 {
		part := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if len(part) <= knnLeafSize {
			leaves = append(leaves, part)
			continue
		}
		a, b := part[rng.IntN(len(part))], part[rng.IntN(len(part))]
		ra, rb := p.row(a), p.row(b)
		for d := range normal {
			normal[d] = ra[d] - rb[d]
		}
		var left, right []int
		for _, i := range part {
			var s float32
			for d, x := range p.row(i) {
				s += x * normal[d]
			}
			if s > 0 || (s == 0 && rng.IntN(2) == 0) {
				left = append(left, i)
			} else {
				right = append(right, i)
			}
		}
		if len(left) == 0 || len(right) == 0 { // degenerate split (same points): halve
			left, right = part[:len(part)/2], part[len(part)/2:]
		}
		stack = append(stack, left, right)
	}
	return leaves
}

// descend runs one node-centred join round and returns how many entries
// changed. As in NN-descent, a candidate reached through two entries that
// were both there in the previous round was already tried, so only paths
// with a fresh entry are joined.
func descend(p points, g *knnGraph, workers int) int {
	n, k := p.n(), g.k
	old := slices.Clone(g.idx)
	oldFresh := slices.Clone(g.fresh)
	clear(g.fresh)
	// reverse lists: up to k points that list i, in index order
	rev := make([][]revEntry, n)
	for i := range n {
		for m, j := range old[i*k : (i+1)*k] {
			if int(j) < n && len(rev[j]) < k {
				rev[j] = append(rev[j], revEntry{int32(i), oldFresh[i*k+m]})
			}
		}
	}
	counts := make([]int, max(1, workers))
	parts := len(counts)
	step := (n + parts - 1) / parts
	parallelFor(parts, parts, func(lo, hi int) {
		for part := lo; part < hi; part++ {
			seen := make([]int32, n)
			for i := range seen {
				seen[i] = -1
			}
			for i := part * step; i < min(n, (part+1)*step); i++ {
				counts[part] += joinNode(p, g, old, oldFresh, rev, i, seen)
			}
		}
	})
	total := 0
	for _, c := range counts {
		total += c
	}
	return total
}

type revEntry struct {
	i     int32
	fresh bool
}

func joinNode(p points, g *knnGraph, old []int32, oldFresh []bool, rev [][]revEntry, i int, seen []int32) int {
	n, k := p.n(), g.k
	changed := 0
	seen[i] = int32(i)
	for _, j := range old[i*k : (i+1)*k] {
		if int(j) < n {
			seen[j] = int32(i)
		}
	}
	visit := func(v int32, vFresh bool) {
		if int(v) >= n {
			return
		}
		w := min(k, knnJoinWidth)
		for m, c := range old[int(v)*k : int(v)*k+w] {
			if int(c) >= n || seen[c] == int32(i) || !(vFresh || oldFresh[int(v)*k+m]) {
				continue
			}
			seen[c] = int32(i)
			if g.offer(i, c, cosDist(p.row(i), p.row(int(c)))) {
				changed++
			}
		}
	}
	for m, j := range old[i*k : (i+1)*k] {
		visit(j, oldFresh[i*k+m])
	}
	for _, r := range rev[i] {
		visit(r.i, r.fresh)
	}
	return changed
}
