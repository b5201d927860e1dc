package cluster

import (
	"context"
	"math"
	"math/rand/v2"
)

// umapParams are one UMAP embedding's settings.
type umapParams struct {
	nComponents, nNeighbors int
	minDist                 float64
	seed                    uint64
	epochs                  int // 0: 500 up to 5,000 points, else 200
	workers                 int
	tick                    func(done, total int) // after each epoch; nil: none
}

const (
	negativeRate = 5 // negative samples per positive one
	gradClip     = 4.0
	initScale    = 10.0 // the initial layout spans [−10, 10] per axis
)

// umapEmbed lays the points out in nComponents dimensions from the fuzzy
// graph of their kNN lists: PCA initial layout, then UMAP's SGD with
// negative sampling (200 epochs above 5,000 points, else 500, unless
// set). The SGD splits the points among up.workers goroutines and gives
// the same layout for a seed on every run and every worker count (sgd
// says how).
//
// Simplifications against umap-learn, written down: the initial layout
// is PCA of the input (umap-learn's default is a spectral layout of the
// graph; it offers "pca" as an option) and no small noise is added to it.
func umapEmbed(ctx context.Context, p points, g *knnGraph, pca *pcaBasis, up umapParams) (points, error) {
	n := p.n()
	edges := fuzzyGraph(g, n, up.nNeighbors)
	epochs := up.epochs
	if epochs == 0 {
		// umap-learn switches at 10,000 points; at 10,000 chunks of
		// clusterbench 500 epochs gave the same labels' ARI (0.926, and
		// 1.000 on topic chunks) at 72 CPU s against 40 with 200.
		epochs = 500
		if n > 5_000 {
			epochs = 200
		}
	}
	var maxW float64
	for _, e := range edges {
		maxW = max(maxW, e.w)
	}
	kept := edges[:0]
	for _, e := range edges { // as umap-learn: edges too weak to be sampled once are dropped
		if e.w >= maxW/float64(epochs) {
			kept = append(kept, e)
		}
	}
	edges = kept
	emb := pca.project(p, up.nComponents, up.seed)
	a, b := curveAB(up.minDist)
	if err := sgd(ctx, emb, edges, a, b, epochs, up.seed, up.workers, up.tick); err != nil {
		return points{}, err
	}
	return emb, nil
}

// sgd is UMAP's optimize_layout_euclidean, made parallel and still
// deterministic: each edge is sampled every maxW/w epochs, pulls its head
// toward its tail and pushes the head away from negativeRate random
// points; the learning rate falls linearly from 1.
//
// Each epoch reads every other point from a copy taken at the epoch's
// start and moves only the heads: a point's edges (contiguous, the edges
// being sorted by head) are applied to it in order, from the copy and its
// own moves, with negative samples from a generator seeded by (seed,
// epoch, point). A point's epoch therefore depends on nothing another
// goroutine does, and the workers, their number and their order change
// the speed only. Against umap-learn, which moves both ends of a sample
// (move_other) and walks both directions of each edge, a head here moves
// twice as far per sample, so each end moves as far per epoch.
func sgd(ctx context.Context, emb points, edges []graphEdge, a, b float64, epochs int, seed uint64, workers int, tick func(done, total int)) error {
	n, dim := emb.n(), emb.dim
	var maxW float64
	for _, e := range edges {
		maxW = max(maxW, e.w)
	}
	per := make([]float64, len(edges))
	next := make([]float64, len(edges))
	perNeg := make([]float64, len(edges))
	nextNeg := make([]float64, len(edges))
	for i, e := range edges {
		per[i] = maxW / e.w
		next[i] = per[i]
		perNeg[i] = per[i] / negativeRate
		nextNeg[i] = perNeg[i]
	}
	start := make([]int, n+1) // edges of head i: start[i]…start[i+1]−1
	for _, e := range edges {
		start[e.a+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	snap := points{data: make([]float32, len(emb.data)), dim: dim}
	for ep := range epochs {
		if err := ctx.Err(); err != nil {
			return err
		}
		copy(snap.data, emb.data)
		alpha := float32(1 - float64(ep)/float64(epochs))
		fe := float64(ep)
		parallelFor(workers, n, func(lo, hi int) {
			for h := lo; h < hi; h++ {
				rng := splitMix(seed ^ uint64(ep)<<32 ^ uint64(h)*0x9e3779b97f4a7c15)
				cur := emb.row(h)
				for i := start[h]; i < start[h+1]; i++ {
					if next[i] > fe {
						continue
					}
					oth := snap.row(int(edges[i].b))
					if d2 := sqDist(cur, oth); d2 > 0 {
						pb := powPos(d2, b)
						move(cur, oth, float32(-2*a*b*(pb/d2)/(a*pb+1)), 2*alpha, d2)
					}
					next[i] += per[i]
					negs := int((fe - nextNeg[i]) / perNeg[i])
					for range negs {
						k := rng.intN(n)
						if k == h {
							continue
						}
						oth := snap.row(k)
						if d2 := sqDist(cur, oth); d2 > 0 {
							move(cur, oth, float32(2*b/((0.001+d2)*(a*powPos(d2, b)+1))), alpha, d2)
						} else {
							for d := range dim { // on top of each other: push by the clip
								cur[d] += gradClip * alpha
							}
						}
					}
					nextNeg[i] += float64(negs) * perNeg[i]
				}
			}
		})
		if tick != nil {
			tick(ep+1, epochs)
		}
	}
	return nil
}

// splitMix is SplitMix64: a small generator for one point's negative
// samples in one epoch, seeded from (seed, epoch, point).
type splitMix uint64

func (s *splitMix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intN is a number in [0, n) by multiply-shift (a bias below 2^-32 for n
// up to 2^31, immaterial here).
func (s *splitMix) intN(n int) int { return int((s.next() >> 32) * uint64(n) >> 32) }

// pcaBasis is the mean and the leading principal axes of the points
// (subspace iteration on the covariance of at most 4,000 sampled points),
// shared by the space and the layout.
type pcaBasis struct {
	mean []float64
	axes [][]float64
}

func newPCA(p points, m int, seed uint64) *pcaBasis {
	n, d := p.n(), p.dim
	rng := rand.New(rand.NewPCG(seed, 0x706361))
	mean := make([]float64, d)
	for i := range n {
		for j, x := range p.row(i) {
			mean[j] += float64(x)
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	cov := make([]float64, d*d)
	row := make([]float64, d)
	for _, i := range rng.Perm(n)[:min(n, 4000)] {
		for j, x := range p.row(i) {
			row[j] = float64(x) - mean[j]
		}
		for r := range d { // the upper triangle; mirrored below
			if row[r] == 0 {
				continue
			}
			cr := cov[r*d : (r+1)*d]
			for c := r; c < d; c++ {
				cr[c] += row[r] * row[c]
			}
		}
	}
	for r := range d {
		for c := r + 1; c < d; c++ {
			cov[c*d+r] = cov[r*d+c]
		}
	}
	return &pcaBasis{mean: mean, axes: topEigen(cov, d, min(m, d), rng)}
}

// project lays the points on the first dim axes, scaled to span
// [−initScale, initScale]; components beyond the axes are seeded random.
func (b *pcaBasis) project(p points, dim int, seed uint64) points {
	n, d := p.n(), p.dim
	rng := rand.New(rand.NewPCG(seed, uint64(dim)))
	axes := b.axes[:min(dim, len(b.axes))]
	out := points{data: make([]float32, n*dim), dim: dim}
	row := make([]float64, d)
	var maxAbs float64
	for i := range n {
		for j, x := range p.row(i) {
			row[j] = float64(x) - b.mean[j]
		}
		for c, ax := range axes {
			var s float64
			for j := range d {
				s += row[j] * ax[j]
			}
			out.data[i*dim+c] = float32(s)
			maxAbs = max(maxAbs, math.Abs(s))
		}
	}
	if maxAbs == 0 {
		maxAbs = 1
	}
	for i := range out.data {
		if i%dim < len(axes) {
			out.data[i] = float32(float64(out.data[i]) * initScale / maxAbs)
		} else {
			out.data[i] = float32(rng.Float64()*2-1) * initScale
		}
	}
	return out
}

// topEigen returns the m leading eigenvectors of the symmetric d×d matrix
// by subspace iteration with Gram–Schmidt.
func topEigen(mat []float64, d, m int, rng *rand.Rand) [][]float64 {
	vs := make([][]float64, m)
	for i := range vs {
		vs[i] = make([]float64, d)
		for j := range vs[i] {
			vs[i][j] = rng.NormFloat64()
		}
	}
	orth(vs)
	tmp := make([]float64, d)
	for range 60 {
		for _, v := range vs {
			for r := range d {
				var s float64
				mr := mat[r*d : (r+1)*d]
				for c, x := range v {
					s += mr[c] * x
				}
				tmp[r] = s
			}
			copy(v, tmp)
		}
		orth(vs)
	}
	return vs
}

func orth(vs [][]float64) {
	for i, v := range vs {
		for _, u := range vs[:i] {
			var dot float64
			for j := range v {
				dot += v[j] * u[j]
			}
			for j := range v {
				v[j] -= dot * u[j]
			}
		}
		var norm float64
		for _, x := range v {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			continue
		}
		for j := range v {
			v[j] /= norm
		}
	}
}

// move adds the clipped gradient coef·(cur−oth), times alpha, to the head
// cur (toward oth for a negative coef, away for a positive one); d2 is
// their squared distance. Where |coef|·√d2 stays under the clip no
// component can reach it, and the loop skips the clip (most negative
// samples are far: a fifth of the SGD's time went to clipping).
func move(cur, oth []float32, coef, alpha float32, d2 float64) {
	oth = oth[:len(cur)]
	if math.Abs(float64(coef))*math.Sqrt(d2) < 0.999*gradClip {
		for d, c := range cur {
			cur[d] = c + coef*(c-oth[d])*alpha
		}
		return
	}
	for d, c := range cur {
		cur[d] = c + clip(coef*(c-oth[d]))*alpha
	}
}

func clip(x float32) float32 {
	if x > gradClip {
		return gradClip
	}
	if x < -gradClip {
		return -gradClip
	}
	return x
}
