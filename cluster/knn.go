package cluster

import (
	"context"
	"math/rand/v2"
	"slices"
)

// knnGraph holds each point's k nearest other points by cosine distance
// (1 − dot product of unit vectors), nearest first; ties by index.
type knnGraph struct {
	k    int
	idx  []int32   // n·k
	dist []float32 // n·k
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
	copy(idx[at+1:], idx[at:last])
	copy(dist[at+1:], dist[at:last])
	idx[at], dist[at] = j, d
	return true
}

func cosDist(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for k, x := range a {
		s += x * b[k]
	}
	return max(0, 1-s)
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

func buildKNN(ctx context.Context, p points, k int, seed uint64, workers int) (*knnGraph, error) {
	n := p.n()
	g := &knnGraph{k: k, idx: make([]int32, n*k), dist: make([]float32, n*k)}
	for i := range g.idx {
		g.idx[i], g.dist[i] = int32(n), 3 // empty slots: farther than any cosine distance
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b6e6e))
	if n <= 4*knnLeafSize { // small: exact
		leaf := make([]int, n)
		for i := range leaf {
			leaf[i] = i
		}
		joinLeaf(p, g, leaf)
		return g, nil
	}
	for range knnTrees {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		leaves := rpTree(p, rng)
		parallelFor(workers, len(leaves), func(lo, hi int) {
			for _, leaf := range leaves[lo:hi] {
				joinLeaf(p, g, leaf)
			}
		})
	}
	for range knnRounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		changed := descend(p, g, workers)
		if float64(changed) < knnStop*float64(n*k) {
			break
		}
	}
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
// changed.
func descend(p points, g *knnGraph, workers int) int {
	n, k := p.n(), g.k
	old := slices.Clone(g.idx)
	// reverse lists: up to k points that list i, in index order
	rev := make([][]int32, n)
	for i := range n {
		for _, j := range old[i*k : (i+1)*k] {
			if int(j) < n && len(rev[j]) < k {
				rev[j] = append(rev[j], int32(i))
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
				counts[part] += joinNode(p, g, old, rev, i, seen)
			}
		}
	})
	total := 0
	for _, c := range counts {
		total += c
	}
	return total
}

func joinNode(p points, g *knnGraph, old []int32, rev [][]int32, i int, seen []int32) int {
	n, k := p.n(), g.k
	changed := 0
	seen[i] = int32(i)
	for _, j := range old[i*k : (i+1)*k] {
		if int(j) < n {
			seen[j] = int32(i)
		}
	}
	visit := func(v int32) {
		if int(v) >= n {
			return
		}
		for _, c := range old[int(v)*k : int(v)*k+min(k, knnJoinWidth)] {
			if int(c) >= n || seen[c] == int32(i) {
				continue
			}
			seen[c] = int32(i)
			if g.offer(i, c, cosDist(p.row(i), p.row(int(c)))) {
				changed++
			}
		}
	}
	for _, j := range old[i*k : (i+1)*k] {
		visit(j)
	}
	for _, j := range rev[i] {
		visit(j)
	}
	return changed
}
