package vector

import (
	"math"
	"math/rand/v2"
	"sync"
)

// clustered generates n unit vectors of dimension dim around centroids
// random unit centroids: each is normalize(centroid + noise*g) with g a
// Gaussian of expected norm 1, so noise 1 puts an item at cosine about 0.7
// from its centroid. Real embeddings cluster by topic; uniform random
// vectors would make every neighbor equally far and flatter the test.
type clustered struct {
	dim       int
	noise     float64
	offset    []float32 // added to every vector before normalizing; may be nil
	centroids [][]float32
	rng       *rand.Rand
}

func newClustered(seed uint64, dim, centroids int, noise float64) *clustered {
	g := &clustered{dim: dim, noise: noise, rng: rand.New(rand.NewPCG(seed, 1))}
	for range centroids {
		g.centroids = append(g.centroids, g.gaussian(1))
	}
	return g
}

// gaussian returns a random vector with i.i.d. normal components scaled so
// its expected norm is scale.
func (g *clustered) gaussian(scale float64) []float32 {
	v := make([]float32, g.dim)
	sd := scale / math.Sqrt(float64(g.dim))
	for i := range v {
		v[i] = float32(g.rng.NormFloat64() * sd)
	}
	return v
}

// next returns a new unit vector near a random centroid.
func (g *clustered) next() []float32 {
	c := g.centroids[g.rng.IntN(len(g.centroids))]
	c = normalize(c)
	v := g.gaussian(g.noise)
	for i := range v {
		v[i] += c[i]
		if g.offset != nil {
			v[i] += g.offset[i]
		}
	}
	return normalize(v)
}

func normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}

// build returns an index of n vectors with keys 0..n-1 and the vectors.
func (g *clustered) build(n int) (*Index, [][]float32) {
	ix := New(g.dim)
	vs := make([][]float32, n)
	for i := range vs {
		vs[i] = g.next()
		if err := ix.Add(int64(i), vs[i]); err != nil {
			panic(err)
		}
	}
	return ix, vs
}

// recallAt returns the fraction of want's keys found in got.
func recallAt(got, want []Result) float64 {
	if len(want) == 0 {
		return 1
	}
	in := make(map[int64]bool, len(got))
	for _, r := range got {
		in[r.Key] = true
	}
	hit := 0
	for _, r := range want {
		if in[r.Key] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

// recallSet is the shared 20k x 384 fixture for the recall tests: 100
// clusters, noise 1, and 200 queries drawn the same way.
var recallSet = sync.OnceValues(func() (*Index, [][]float32) {
	g := newClustered(42, 384, 100, 1)
	ix, _ := g.build(20_000)
	qs := make([][]float32, 200)
	for i := range qs {
		qs[i] = g.next()
	}
	return ix, qs
})

// shiftedSet is 30k x 384 clustered vectors (1,000 clusters, noise 1.2)
// plus a shared offset of norm 2 before normalizing, and 200 queries: the
// mean direction real embeddings have (USE-lite's chunk vectors: a mean of
// norm 0.81). Hamming distance alone finds 0.968 of the top 10 here with
// 300 candidates, close to the 0.956 measured on real USE-lite vectors.
var shiftedSet = sync.OnceValues(func() (*Index, [][]float32) {
	g := newClustered(45, 384, 1000, 1.2)
	g.offset = g.gaussian(2)
	ix, _ := g.build(30_000)
	return ix, queries(g, 200)
})
