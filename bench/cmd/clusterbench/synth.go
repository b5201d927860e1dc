package main

import (
	"math"
	"math/rand/v2"
)

// synthDim is the dimension of the synthetic vectors (USE-lite's).
const synthDim = 512

// synthVectors embeds the generated chunks without a model, for timing
// and memory at sizes whose USE-lite embedding would take hours on this
// machine: each topic is a random unit centre, a topic chunk its centre
// plus Gaussian noise of norm about 1.5 (cosine to the centre about 0.55,
// to another chunk of its topic about 0.3), a near duplicate its
// original's vector nudged by noise of norm 0.3, an exact copy its
// original's vector, a noise chunk a random direction. Clustering quality
// on these is not comparable with the embedded corpora's; time and
// memory follow the size, the dimension and the graph, which match.
func synthVectors(chunks []chunk, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 0x73796e74))
	centres := make([][]float32, len(topics))
	for t := range centres {
		centres[t] = unitNoise(rng, nil, 1)
	}
	const sigma = 1.5 / 22.627 // norm 1.5 over 512 dimensions
	byText := map[string][]float32{}
	out := make([][]float32, len(chunks))
	for i, c := range chunks {
		switch {
		case c.kind == "exact":
			out[i] = byText[c.text]
		case c.kind == "noise" || c.label < 0:
			out[i] = unitNoise(rng, nil, 1)
		case c.kind == "near":
			out[i] = unitNoise(rng, centres[c.label], sigma)
			out[i] = unitNoise(rng, out[i], 0.3/22.627)
		default:
			out[i] = unitNoise(rng, centres[c.label], sigma)
		}
		if out[i] == nil { // an exact copy of a text made twice: embed it once
			out[i] = unitNoise(rng, centres[max(0, c.label)], sigma)
		}
		if _, ok := byText[c.text]; !ok {
			byText[c.text] = out[i]
		}
	}
	return out
}

// unitNoise returns base (nil: zero) plus Gaussian noise of standard
// deviation sd per dimension, normalized.
func unitNoise(rng *rand.Rand, base []float32, sd float64) []float32 {
	v := make([]float32, synthDim)
	var n float64
	for d := range v {
		x := rng.NormFloat64() * sd
		if base != nil {
			x += float64(base[d])
		}
		v[d] = float32(x)
		n += x * x
	}
	s := float32(1 / math.Sqrt(n))
	for d := range v {
		v[d] *= s
	}
	return v
}
