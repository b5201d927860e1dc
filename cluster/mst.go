package cluster

import (
	"context"
	"math"
	"slices"
	"sync"
)

// points is n vectors of dim float32 values, row-major.
type points struct {
	data []float32
	dim  int
}

func (p points) n() int              { return len(p.data) / p.dim }
func (p points) row(i int) []float32 { return p.data[i*p.dim : (i+1)*p.dim] }
func (p points) sq(i, j int) float64 { return sqDist(p.row(i), p.row(j)) }
func sqDist(a, b []float32) float64 {
	var s0, s1, s2, s3 float32
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return float64(s0 + s1 + s2 + s3)
}

// edge is one minimum spanning tree edge in mutual reachability distance.
type edge struct {
	a, b int
	w    float64
}

// parallelFor runs f over [0, n) in contiguous blocks on workers
// goroutines and waits for all of them. f must only write state owned by
// its indices.
func parallelFor(workers, n int, f func(lo, hi int)) {
	if workers <= 1 || n < 256 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		hi := min(n, lo+step)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// coreDistances returns, squared, each point's distance to its
// minSamples-th nearest point, counting the point itself (so minSamples 1
// gives 0 and HDBSCAN becomes single linkage), by exact search.
func coreDistances(ctx context.Context, p points, minSamples, workers int) ([]float64, error) {
	n := p.n()
	core := make([]float64, n)
	if minSamples <= 1 {
		return core, nil
	}
	k := minSamples - 1 // other points
	parallelFor(workers, n, func(lo, hi int) {
		best := make([]float64, 0, k+1)
		for i := lo; i < hi; i++ {
			if i%512 == 0 && ctx.Err() != nil {
				return
			}
			best = best[:0]
			for j := range n {
				if j == i {
					continue
				}
				d := p.sq(i, j)
				if len(best) == k && d >= best[k-1] {
					continue
				}
				at, _ := slices.BinarySearch(best, d)
				if len(best) < k {
					best = slices.Insert(best, at, d)
				} else {
					copy(best[at+1:], best[at:k-1])
					best[at] = d
				}
			}
			core[i] = best[len(best)-1]
		}
	})
	return core, ctx.Err()
}

// primMST builds the minimum spanning tree of the complete graph under
// mutual reachability distance max(core(a), core(b), d(a, b)) with Prim's
// algorithm on the dense graph: O(n²) distances, O(n) memory, no index.
// Each step's scan is split across workers; ties go to the lower index, so
// the tree does not depend on the worker count. Weights are returned as
// distances (not squared).
func primMST(ctx context.Context, p points, core []float64, workers int) ([]edge, error) {
	n := p.n()
	inTree := make([]bool, n)
	dist := make([]float64, n) // squared reachability to the tree
	from := make([]int, n)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	edges := make([]edge, 0, n-1)
	type best struct {
		i int
		d float64
	}
	parts := max(1, workers)
	if n < 2048 {
		parts = 1
	}
	bests := make([]best, parts)
	cur := 0
	inTree[0] = true
	for len(edges) < n-1 {
		if len(edges)%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c := cur
		scan := func(part, lo, hi int) {
			b := best{-1, math.Inf(1)}
			cc := core[c]
			for j := lo; j < hi; j++ {
				if inTree[j] {
					continue
				}
				d := max(p.sq(c, j), cc, core[j])
				if d < dist[j] {
					dist[j], from[j] = d, c
				}
				if dist[j] < b.d {
					b = best{j, dist[j]}
				}
			}
			bests[part] = b
		}
		if parts == 1 {
			scan(0, 0, n)
		} else {
			var wg sync.WaitGroup
			step := (n + parts - 1) / parts
			for part := range parts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					scan(part, part*step, min(n, (part+1)*step))
				}()
			}
			wg.Wait()
		}
		b := best{-1, math.Inf(1)}
		for _, x := range bests {
			if x.i >= 0 && x.d < b.d {
				b = x
			}
		}
		if b.i < 0 { // only infinite distances left: cannot happen with finite input
			break
		}
		inTree[b.i] = true
		edges = append(edges, edge{from[b.i], b.i, math.Sqrt(b.d)})
		cur = b.i
	}
	return edges, nil
}
