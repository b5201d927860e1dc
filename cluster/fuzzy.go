package cluster

import (
	"cmp"
	"math"
	"slices"
)

// graphEdge is one edge of the symmetric fuzzy graph.
type graphEdge struct {
	a, b int32
	w    float64
}

// fuzzyGraph is UMAP's fuzzy simplicial set for nNeighbors k (the point
// itself counted, as UMAP does: the first k−1 entries of each kNN list): per point, ρ (distance to the nearest neighbour) and σ
// (so that Σ exp(−(d−ρ)/σ) = log2 k) give directed memberships, and the
// union w = a + b − a·b makes them symmetric. Both directions of each edge
// are returned, sorted by (a, b), as UMAP's SGD walks them.
func fuzzyGraph(g *knnGraph, n, nNeighbors int) []graphEdge {
	k := nNeighbors - 1
	type key struct{ a, b int32 }
	dir := make(map[key]float64, n*k)
	var meanAll float64
	for i := range n {
		_, dist := g.row(i)
		for _, d := range dist[:k] {
			meanAll += float64(d)
		}
	}
	meanAll /= float64(n * k)
	for i := range n {
		idx, dist := g.row(i)
		idx, dist = idx[:k], dist[:k]
		rho, sigma := smoothDist(dist, nNeighbors, meanAll)
		for m, j := range idx {
			if int(j) >= n {
				continue
			}
			w := 1.0
			if d := float64(dist[m]) - rho; d > 0 {
				w = math.Exp(-d / sigma)
			}
			dir[key{int32(i), j}] = w
		}
	}
	edges := make([]graphEdge, 0, 2*len(dir))
	for e, w := range dir {
		u, back := dir[key{e.b, e.a}]
		if back && e.b < e.a {
			continue // counted from the other side
		}
		if back {
			w = w + u - w*u
		}
		edges = append(edges, graphEdge{e.a, e.b, w}, graphEdge{e.b, e.a, w})
	}
	slices.SortFunc(edges, func(x, y graphEdge) int {
		return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	return edges
}

// smoothDist finds ρ and σ for one point by bisection, with UMAP's floor
// on σ (1e-3 of the mean neighbour distance, local and global).
func smoothDist(dist []float32, nNeighbors int, meanAll float64) (rho, sigma float64) {
	target := math.Log2(float64(nNeighbors))
	var mean float64
	for _, d := range dist {
		mean += float64(d)
		if d > 0 && (rho == 0 || float64(d) < rho) {
			rho = float64(d)
		}
	}
	mean /= float64(len(dist))
	lo, hi, mid := 0.0, math.Inf(1), 1.0
	for range 64 {
		var s float64
		for _, d := range dist { // those within ρ have weight 1
			if x := float64(d) - rho; x > 0 {
				s += math.Exp(-x / mid)
			} else {
				s++
			}
		}
		if math.Abs(s-target) < 1e-5 {
			break
		}
		if s > target {
			hi = mid
			mid = (lo + hi) / 2
		} else {
			lo = mid
			if math.IsInf(hi, 1) {
				mid *= 2
			} else {
				mid = (lo + hi) / 2
			}
		}
	}
	floor := 1e-3 * mean
	if rho <= 0 {
		floor = 1e-3 * meanAll
	}
	return rho, max(mid, floor)
}

// curveAB fits UMAP's low-dimensional similarity 1/(1 + a·x^(2b)) to the
// target curve of minDist (1 up to minDist, then exp(−(x − minDist)) with
// spread 1) by Gauss–Newton with step halving on 300 points of [0, 3].
func curveAB(minDist float64) (a, b float64) {
	xs := make([]float64, 300)
	ys := make([]float64, 300)
	for i := range xs {
		x := 3 * float64(i) / 299
		xs[i] = x
		ys[i] = 1
		if x >= minDist {
			ys[i] = math.Exp(-(x - minDist))
		}
	}
	loss := func(a, b float64) float64 {
		var s float64
		for i, x := range xs {
			r := 1/(1+a*math.Pow(x, 2*b)) - ys[i]
			s += r * r
		}
		return s
	}
	a, b = 1.8, 0.8
	cur := loss(a, b)
	for range 200 {
		// normal equations of the 2-parameter least squares
		var jaa, jab, jbb, ga, gb float64
		for i, x := range xs {
			if x == 0 {
				continue
			}
			p := math.Pow(x, 2*b)
			f := 1 / (1 + a*p)
			r := f - ys[i]
			da := -p * f * f
			db := -a * p * 2 * math.Log(x) * f * f
			jaa += da * da
			jab += da * db
			jbb += db * db
			ga += da * r
			gb += db * r
		}
		det := jaa*jbb - jab*jab
		if det == 0 {
			break
		}
		sa := -(jbb*ga - jab*gb) / det
		sb := -(jaa*gb - jab*ga) / det
		step := 1.0
		for ; step > 1e-6; step /= 2 {
			na, nb := a+step*sa, b+step*sb
			if na > 0 && nb > 0 {
				if l := loss(na, nb); l < cur {
					a, b, cur = na, nb, l
					break
				}
			}
		}
		if step <= 1e-6 || math.Abs(sa)+math.Abs(sb) < 1e-10 {
			break
		}
	}
	return a, b
}
