package main

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/procstat"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
)

// vectorStore is what prepare uses of the SQLite store: the listing and
// the write sync's embedding loop uses (engine/vectors.go embedPending).
type vectorStore interface {
	PendingChunksAfter(ctx context.Context, identity string, after int64, limit int) ([]cairn.PendingChunk, error)
	PutVectors(ctx context.Context, identity string, ids []int64, vecs [][]float32) error
	CountPending(ctx context.Context, identity string) (int, error)
}

// prepareBatch is how many chunks are listed and written a round (sync's
// loop takes 64; the rows written are the same; tests lower it).
var prepareBatch = 512

// prepare gives every chunk of the index in dir that has no vector of
// emb's identity one, through the store's own listing and write
// (PendingChunksAfter, PutVectors): one in every `every` embedded by emb
// as a document, the others synthetic neighbours (gen.go). The store is
// opened as the engine opens it (its feature version), so it is not
// emptied. vectors.bin is left to the engine's first search, which reads
// the vectors from SQLite, builds the coarse lists and writes both files
// as after a real sync.
func prepare(ctx context.Context, dir string, emb cairn.Embedder, every int, noise float64, seed uint64) error {
	st, err := sqlite.Backend{}.Open(ctx, dir, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, Ident: search.IdentText})
	if err != nil {
		return err
	}
	defer st.Close()
	if m, ok := st.(interface{ FeatureChanged() bool }); ok && m.FeatureChanged() {
		return fmt.Errorf("%s: the index's feature version was not %s: it was emptied; copy it again", dir, engine.FeatureVersion)
	}
	vs, ok := st.(vectorStore)
	if !ok {
		return fmt.Errorf("the SQLite store lacks PendingChunksAfter/PutVectors")
	}
	id := emb.Identity().Key()
	total, err := vs.CountPending(ctx, id)
	if err != nil {
		return err
	}
	fmt.Printf("prepare: %d chunks without a vector of %s, one in %d embedded, noise %.2f, load %.2f\n", total, id, every, noise, procstat.Load1())
	p := newPlan(every, noise, seed)
	start, c0 := time.Now(), processCPU()
	var embedT time.Duration
	after := int64(0)
	next := time.Now().Add(30 * time.Second)
	for {
		batch, err := vs.PendingChunksAfter(ctx, id, after, prepareBatch)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			break
		}
		after = batch[len(batch)-1].ID
		pos := p.split(len(batch))
		texts := make([]string, len(pos))
		for i, at := range pos {
			texts[i] = batch[at].Text
		}
		var real [][]float32
		if len(texts) > 0 {
			t := time.Now()
			if real, err = emb.Embed(ctx, cairn.EmbedDocument, texts); err != nil {
				return fmt.Errorf("embed %d chunks: %w", len(texts), err)
			}
			embedT += time.Since(t)
		}
		vecs := p.fill(len(batch), real)
		ids := make([]int64, len(batch))
		for i, c := range batch {
			ids[i] = c.ID
		}
		if err := vs.PutVectors(ctx, id, ids, vecs); err != nil {
			return err
		}
		if time.Now().After(next) {
			fmt.Printf("prepare: %d of %d (%d real), %.0f s, load %.2f\n", p.ordinal, total, p.real, time.Since(start).Seconds(), procstat.Load1())
			next = time.Now().Add(30 * time.Second)
		}
	}
	left, err := vs.CountPending(ctx, id)
	if err != nil {
		return err
	}
	fmt.Printf("prepare: wrote %d vectors (%d real, %d synthetic) in %.0f s wall (embedding %.0f s), CPU %.0f s; %d chunks left without one; load %.2f\n",
		p.ordinal, p.real, p.ordinal-p.real, time.Since(start).Seconds(), embedT.Seconds(), (processCPU() - c0).Seconds(), left, procstat.Load1())
	if left != 0 {
		return fmt.Errorf("%d chunks still without a vector: hybrid would answer lexical only", left)
	}
	return nil
}
