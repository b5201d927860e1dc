package port

import (
	"fmt"
	"math"
	"strings"
)

// unitSlack is how far from 1 the squared length of a vector of a
// normalizing model may be: float32 rounding of a 1024-dimension unit
// vector is far under it, a vector scaled or damaged is far over it.
const unitSlack = 0.02

// checkVector refuses a vector the searches could not score: a NaN or an
// infinity in it (every score of a search it takes part in turns NaN, and
// JSON cannot carry NaN: MCP's memory_search failed), or, for a model
// that makes unit vectors (identity "provider|model|dim|true|..."), one
// far from unit length, which would outscore every other (ux U13: one
// NaN vector in an import broke every vector and hybrid search of the
// agent). Embedders' vectors are normalized as they are stored, so only a
// damaged export or another writer's bug makes one.
func checkVector(identity string, vec []float32) error {
	var sum float64
	for i, x := range vec {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("vectors.vector: value %d is %v; a vector must hold finite numbers", i, x)
		}
		sum += f * f
	}
	if normalized(identity) && math.Abs(sum-1) > unitSlack {
		return fmt.Errorf("vectors.vector: length %.4g, and the model's vectors are unit length", math.Sqrt(sum))
	}
	return nil
}

// normalized reads the Normalized field of an identity key
// (cairn.EmbedderIdentity.Key: provider, model, dimension, normalized,
// then the rest).
func normalized(identity string) bool {
	f := strings.SplitN(identity, "|", 5)
	return len(f) >= 4 && f[3] == "true"
}
