package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
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
	src, err := loadIndex(path)
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
	// The coarse lists the engine builds at this size (vector.ListsMin),
	// then searches with them and with the full scan, alternating.
	if n >= vector.ListsMin {
		t0 := time.Now()
		if err := ix.BuildLists(nil); err != nil {
			return err
		}
		fmt.Printf("synthetic lane: lists built in %.1f s\n", time.Since(t0).Seconds())
	}
	full := &vector.SearchOptions{Probe: -1}
	const k = 15           // the vector lane's candidates at the default limit of 10
	for _, q := range qs { // warm-up, as the modes above
		qv, err := emb.Embed(ctx, cairn.EmbedQuery, []string{q})
		if err != nil {
			return err
		}
		ix.Search(qv[0], k, nil)
		ix.Search(qv[0], k, full)
	}
	var rusage0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &rusage0)
	embed, search, both, scan, err := timeSynthetic(ctx, []cairn.Embedder{emb}, ix, qs, k, full)
	if err != nil {
		return err
	}
	var rusage1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &rusage1)
	cpu := func(r syscall.Rusage) float64 {
		return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
	}
	printLatency("s-embed", embed[0], 0)
	printLatency("s-search", search[0], 0)
	printLatency("s-full", scan, 0)
	printLatency("s-vector", both[0], 0)
	fmt.Printf("s-       process CPU %.1f s for %d queries (embedding, lists search and full scan each)\n", cpu(rusage1)-cpu(rusage0), len(qs))
	if abEmbs != nil {
		// FP32 and INT8 query embeddings alternating query by query, the
		// order flipped every query (the full scan left out).
		embed, search, both, _, err := timeSynthetic(ctx, abEmbs, ix, qs, k, nil)
		if err != nil {
			return err
		}
		for side, name := range []string{"fp32", "int8"} {
			printLatency("s-embed-"+name, embed[side], 0)
			printLatency("s-search-"+name, search[side], 0)
			printLatency("s-vector-"+name, both[side], 0)
		}
	}
	return syntheticRecall(ctx, emb, ix, qs[:min(len(qs), 100)], k)
}

// timeSynthetic embeds each query with every embedder in turn (the order
// flipped every query) and searches the lane with the vector; with full,
// the first embedder's vector is also searched by a full scan, before the
// lists search on every other query (outside the times: before 5d..., the
// scan that came first was counted in the embedding's and both's time). It returns, per embedder, the
// embedding, the lists search and both; nil after a failed embedding.
func timeSynthetic(ctx context.Context, embs []cairn.Embedder, ix *vector.Index, qs []string, k int, full *vector.SearchOptions) (embed, search, both [][]time.Duration, scan []time.Duration, err error) {
	embed, search, both = make([][]time.Duration, len(embs)), make([][]time.Duration, len(embs)), make([][]time.Duration, len(embs))
	for i, q := range qs {
		for j := range embs {
			side := j
			if i%2 == 1 {
				side = len(embs) - 1 - j
			}
			t0 := time.Now()
			qv, err := embs[side].Embed(ctx, cairn.EmbedQuery, []string{q})
			if err != nil {
				return nil, nil, nil, nil, err
			}
			te := time.Since(t0)
			if full != nil && side == 0 && i%2 == 1 { // the full scan first on every other query
				t := time.Now()
				ix.Search(qv[0], k, full)
				scan = append(scan, time.Since(t))
			}
			t1 := time.Now()
			ix.Search(qv[0], k, nil)
			ts := time.Since(t1)
			embed[side], search[side], both[side] = append(embed[side], te), append(search[side], ts), append(both[side], te+ts)
			if full != nil && side == 0 && i%2 == 0 {
				t := time.Now()
				ix.Search(qv[0], k, full)
				scan = append(scan, time.Since(t))
			}
		}
	}
	return embed, search, both, scan, nil
}

// syntheticRecall reports recall@10 against Exact of the lane's default
// search (lists at this size) and of the full scan, on real query
// embeddings.
func syntheticRecall(ctx context.Context, emb cairn.Embedder, ix *vector.Index, qs []string, k int) error {
	vs, err := emb.Embed(ctx, cairn.EmbedQuery, qs)
	if err != nil {
		return err
	}
	var lists, scan float64
	for _, v := range vs {
		want := map[int64]bool{}
		for _, r := range ix.Exact(v, 10, nil) {
			want[r.Key] = true
		}
		count := func(rs []vector.Result) float64 {
			hit := 0
			for _, r := range rs[:min(10, len(rs))] {
				if want[r.Key] {
					hit++
				}
			}
			return float64(hit) / float64(len(want))
		}
		lists += count(ix.Search(v, 10, nil))
		scan += count(ix.Search(v, 10, &vector.SearchOptions{Probe: -1}))
	}
	fmt.Printf("s-recall@10 over %d queries: default (lists: %v) %.4f, full scan %.4f\n",
		len(vs), ix.HasLists(), lists/float64(len(vs)), scan/float64(len(vs)))
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
