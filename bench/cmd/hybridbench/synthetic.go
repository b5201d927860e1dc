package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/vector"
)

// measureSynthetic times what the vector half of a hybrid query costs at
// n vectors: the real query embedding, then a search of a lane that holds
// the index's real vectors plus synthetic ones. Embedding a million real
// chunks would take hours here, so each synthetic vector is a real one
// with Gaussian noise (a tenth of its length), normalized: neighbours of
// the real distribution, not new text. The lexical half of hybrid at that
// size is not measured here.
func measureSynthetic(ctx context.Context, emb cairn.Embedder, path string, qs []string, n int) error {
	st, err := vector.FileStamp(path)
	if err != nil {
		return err
	}
	src, err := vector.Load(path, st, true)
	if err != nil {
		return err
	}
	reals := realVectors(src)
	if len(reals) == 0 {
		return fmt.Errorf("no vectors in %s", path)
	}
	dim := len(reals[0])
	start := time.Now()
	ix := vector.New(dim)
	ix.Grow(max(n, len(reals)))
	rng := rand.New(rand.NewPCG(7, 11))
	v := make([]float32, dim)
	for i := range max(n, len(reals)) {
		base := reals[i%len(reals)]
		if i < len(reals) {
			copy(v, base)
		} else {
			var sum float64
			for j, x := range base {
				v[j] = x + float32(rng.NormFloat64()*0.1/math.Sqrt(float64(dim)))
				sum += float64(v[j]) * float64(v[j])
			}
			inv := float32(1 / math.Sqrt(sum))
			for j := range v {
				v[j] *= inv
			}
		}
		if err := ix.Add(int64(i+1), v); err != nil {
			return err
		}
	}
	fmt.Printf("synthetic lane: %d vectors (%d real, %d synthetic neighbours), built in %.1f s\n",
		ix.Len(), len(reals), ix.Len()-len(reals), time.Since(start).Seconds())
	const k = 15           // the vector lane's candidates at the default limit of 10
	for _, q := range qs { // warm-up, as the modes above
		qv, err := emb.Embed(ctx, cairn.EmbedQuery, []string{q})
		if err != nil {
			return err
		}
		ix.Search(qv[0], k, nil)
	}
	var embed, search, both []time.Duration
	for _, q := range qs {
		t0 := time.Now()
		qv, err := emb.Embed(ctx, cairn.EmbedQuery, []string{q})
		if err != nil {
			return err
		}
		t1 := time.Now()
		ix.Search(qv[0], k, nil)
		t2 := time.Now()
		embed, search, both = append(embed, t1.Sub(t0)), append(search, t2.Sub(t1)), append(both, t2.Sub(t0))
	}
	printLatency("s-embed", embed, 0)
	printLatency("s-search", search, 0)
	printLatency("s-vector", both, 0)
	return nil
}

// realVectors reads every vector of a loaded index. Keys are chunk ids,
// dense from 1 in a bench index; the scan stops once all are found or
// far past the count.
func realVectors(ix *vector.Index) [][]float32 {
	var out [][]float32
	for k := int64(1); len(out) < ix.Len() && k < int64(10*ix.Len()+1000); k++ {
		if v, ok := ix.Vector(k); ok {
			out = append(out, v)
		}
	}
	return out
}
