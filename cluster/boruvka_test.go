package cluster

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPoints: n points in dim dimensions, gaussian around 8 centres;
// with grid set, coordinates are rounded to integers so that distances
// and core distances tie often.
func randomPoints(n, dim int, grid bool, seed uint64) points {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, 8)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for d := range dim {
			centres[c][d] = rng.NormFloat64() * 20
		}
	}
	p := points{dim: dim, data: make([]float32, 0, n*dim)}
	for i := range n {
		c := centres[i%len(centres)]
		for d := range dim {
			x := c[d] + rng.NormFloat64()*3
			if grid {
				x = float64(int(x))
			}
			p.data = append(p.data, float32(x))
		}
	}
	return p
}

func TestKDCoreDistancesExact(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n, dim int
		grid   bool
	}{{500, 2, true}, {700, 3, false}, {900, 25, false}, {600, 25, true}} {
		p := randomPoints(c.n, c.dim, c.grid, uint64(c.n))
		tree := newKDTree(p)
		for _, ms := range []int{1, 2, 5, 16} {
			want, _ := coreDistances(ctx, p, ms, 1)
			for _, workers := range []int{1, 3} {
				got, _, err := kdCoreDistances(ctx, tree, ms, workers)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("n %d dim %d grid %v minSamples %d workers %d: kd-tree core distances differ from the exact scan",
						c.n, c.dim, c.grid, ms, workers)
				}
			}
		}
	}
}

// TestBoruvkaMatchesPrim: every minimum spanning tree of a graph has the
// same sorted weights and the same components below every distance (the
// hierarchy), and off the integer grid the HDBSCAN labels built on the two
// trees agree but for at most one point in 1,000 (a reachability is often
// a core distance, so two edges of equal weight can tie even there, and a
// point that falls out at the tie may leave either cluster: 1 and 2 of
// 3,000 points in two dimensions, none at 25 dimensions); Borůvka's tree
// does not depend on the worker count.
func TestBoruvkaMatchesPrim(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n, dim int
		grid   bool
	}{{400, 2, true}, {3000, 2, false}, {800, 25, false}, {800, 25, true}, {2500, 10, true}} {
		p := randomPoints(c.n, c.dim, c.grid, uint64(c.n+c.dim))
		for _, ms := range []int{1, 5, 10} {
			core, _ := coreDistances(ctx, p, ms, 1)
			prim, _ := primMST(ctx, p, core, 1)
			tree := newKDTree(p)
			kcore, nbrs, _ := kdCoreDistances(ctx, tree, ms, 1)
			bor, err := boruvkaMST(ctx, tree, kcore, nbrs, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(weights(bor), weights(prim)) {
				t.Fatalf("n %d dim %d minSamples %d: Borůvka's tree weights differ from Prim's", c.n, c.dim, ms)
			}
			bor4, _ := boruvkaMST(ctx, newKDTree(p), kcore, nbrs, 4)
			if !slices.Equal(bor, bor4) {
				t.Fatalf("n %d dim %d minSamples %d: Borůvka's tree differs by worker count", c.n, c.dim, ms)
			}
			if !sameHierarchy(c.n, bor, prim) {
				t.Fatalf("n %d dim %d minSamples %d: the components below some distance differ between the trees", c.n, c.dim, ms)
			}
			if c.grid {
				continue // ties everywhere: a point equally near two clusters may join either
			}
			for _, mcs := range []int{5, 40} {
				a := condense(singleLinkage(c.n, prim), mcs)
				b := condense(singleLinkage(c.n, bor), mcs)
				la, _, _ := a.labels(a.selectClusters(SelectEOM, 0, false), 0)
				lb, _, _ := b.labels(b.selectClusters(SelectEOM, 0, false), 0)
				ca, cb := canon(la), canon(lb)
				diff := 0
				for i := range ca {
					if ca[i] != cb[i] {
						diff++
					}
				}
				if diff > c.n/1000 {
					t.Fatalf("n %d dim %d minSamples %d minClusterSize %d: %d labels on Borůvka's tree differ from Prim's, want at most %d",
						c.n, c.dim, ms, mcs, diff, c.n/1000)
				}
			}
		}
	}
}

func weights(es []edge) []float64 {
	w := make([]float64, len(es))
	for i, e := range es {
		w[i] = e.w
	}
	slices.Sort(w)
	return w
}

// sameHierarchy: at every weight of the trees, the components joined by
// the edges up to it are the same.
func sameHierarchy(n int, a, b []edge) bool {
	ws := slices.Compact(weights(a))
	ua, ub := newUnion(n), newUnion(n)
	ia, ib := sortedEdges(a), sortedEdges(b)
	for _, w := range ws {
		for len(ia) > 0 && ia[0].w <= w {
			ua.join(ia[0].a, ia[0].b)
			ia = ia[1:]
		}
		for len(ib) > 0 && ib[0].w <= w {
			ub.join(ib[0].a, ib[0].b)
			ib = ib[1:]
		}
		if !slices.Equal(ua.labels(), ub.labels()) {
			return false
		}
	}
	return true
}

func sortedEdges(es []edge) []edge {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(x, y edge) int {
		if x.w < y.w {
			return -1
		}
		if x.w > y.w {
			return 1
		}
		return 0
	})
	return es
}

type union []int

func newUnion(n int) union {
	u := make(union, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u union) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u union) join(a, b int) {
	ra, rb := u.find(a), u.find(b)
	u[max(ra, rb)] = min(ra, rb)
}

// labels: each point's smallest member of its component.
func (u union) labels() []int {
	out := make([]int, len(u))
	for i := range u {
		out[i] = u.find(i)
	}
	return out
}
