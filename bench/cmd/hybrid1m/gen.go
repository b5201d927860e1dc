package main

import (
	"math"
	"math/rand/v2"
)

// The generator gives every chunk of an index a vector without embedding
// them all: chunks are taken in id order, one in every `every` (the
// first, then each every-th) is embedded by the real model, and each
// other chunk gets a synthetic neighbour of the last real vector before
// it: that vector plus Gaussian noise of expected length noise,
// normalized. As hybridbench -synthetic's lane (noise 0.1), the
// synthetic vectors lie in the real distribution's neighbourhood, every
// real vector at the centre of a tight cloud of every-1 others; they
// are not the embeddings of their chunks' text.

// isReal says whether the chunk at ordinal (0-based, id order) is
// embedded by the model.
func isReal(ordinal, every int) bool {
	return every <= 1 || ordinal%every == 0
}

// neighbour writes into dst a unit vector near base: base plus, in every
// component, Gaussian noise of standard deviation noise/sqrt(dim) (the
// noise vector's expected length is noise), normalized. dst and base have
// the same length; base is not changed.
func neighbour(dst, base []float32, noise float64, rng *rand.Rand) {
	sd := noise / math.Sqrt(float64(len(base)))
	var sum float64
	for i, x := range base {
		v := float64(x) + rng.NormFloat64()*sd
		dst[i] = float32(v)
		sum += v * v
	}
	if sum == 0 {
		copy(dst, base)
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i := range dst {
		dst[i] = float32(float64(dst[i]) * inv)
	}
}

// plan is the generator's state over one pass of the chunks in id order.
type plan struct {
	every   int
	noise   float64
	rng     *rand.Rand
	ordinal int       // chunks seen so far
	base    []float32 // the last real vector
	real    int       // how many were real
}

func newPlan(every int, noise float64, seed uint64) *plan {
	return &plan{every: every, noise: noise, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// split says which of the next n chunks are embedded by the model: their
// positions in the batch, in order.
func (p *plan) split(n int) []int {
	var out []int
	for i := range n {
		if isReal(p.ordinal+i, p.every) {
			out = append(out, i)
		}
	}
	return out
}

// fill gives the next n chunks their vectors: real holds the model's
// vectors of the positions split returned, in order; the others get
// neighbours of the last real vector before them. It advances the plan.
func (p *plan) fill(n int, real [][]float32) [][]float32 {
	out := make([][]float32, n)
	j := 0
	for i := range n {
		if isReal(p.ordinal+i, p.every) {
			out[i] = real[j]
			p.base = real[j]
			j++
			p.real++
			continue
		}
		v := make([]float32, len(p.base))
		neighbour(v, p.base, p.noise, p.rng)
		out[i] = v
	}
	p.ordinal += n
	return out
}
