// Package hashembed is a stand-in embedder for timing storage, not
// quality: each word adds one to a dimension picked by its hash, and the
// vector is normalized. It costs microseconds a chunk, so a benchmark's
// sync time is the store's and the chunker's, not a model's. Benchmarks
// that use it say so beside their numbers.
package hashembed

import (
	"context"
	"hash/fnv"
	"math"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Dim is the vectors' dimension, the shared USE-lite encoder's.
const Dim = 384

// Embedder is the stand-in embedder; its zero value is ready.
type Embedder struct{}

var _ cairn.Embedder = Embedder{}

// Identity names the stand-in, so its vectors never mix with a model's.
func (Embedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "bench", Model: "hashed-words", Dimension: Dim, Normalized: true}
}

// Embed returns one normalized word-hash vector per text.
func (Embedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, Dim)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%Dim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n) + 1e-9)
		}
		out[i] = v
	}
	return out, nil
}
