package cairn

import "context"

// VectorProber is optional on a Storage: whether any vector made by an
// embedder identity (EmbedderIdentity.Key) is stored, by one index probe
// however many there are. It is how an embedder whose quantization is
// chosen by the machine ([embedder] quantize = "auto") learns which
// identity an existing index holds before any model is loaded, so that
// the choice never re-embeds it (cmd/cairn/embedder_auto.go); it runs on
// every one-shot hybrid search, where counting every vector would cost
// time in proportion to the index. sqlite.Store and postgres.Store
// implement it (vectorcount.go in each).
type VectorProber interface {
	HasVectors(ctx context.Context, identity string) (bool, error)
}
