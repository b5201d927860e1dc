package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/sqlite"
)

// pendingLog is the SQLite store with its listings of chunks to embed
// recorded: from where each one started and what it returned.
type pendingLog struct {
	*sqlite.Store
	calls []pendingCall
}

type pendingCall struct {
	after int64 // -1: PendingChunks, a scan from the oldest chunk
	ids   []int64
}

func (p *pendingLog) record(after int64, ps []cairn.PendingChunk) {
	c := pendingCall{after: after}
	for _, x := range ps {
		c.ids = append(c.ids, x.ID)
	}
	p.calls = append(p.calls, c)
}

func (p *pendingLog) PendingChunks(ctx context.Context, identity string, limit int) ([]cairn.PendingChunk, error) {
	ps, err := p.Store.PendingChunks(ctx, identity, limit)
	p.record(-1, ps)
	return ps, err
}

func (p *pendingLog) PendingChunksAfter(ctx context.Context, identity string, after int64, limit int) ([]cairn.PendingChunk, error) {
	ps, err := p.Store.PendingChunksAfter(ctx, identity, after, limit)
	p.record(after, ps)
	return ps, err
}

// pendingBackend opens the SQLite backend and hands the engine its store
// wrapped in log.
type pendingBackend struct {
	sqlite.Backend
	log *pendingLog
}

func (b pendingBackend) Open(ctx context.Context, dir string, o cairn.StorageOptions) (cairn.Storage, error) {
	st, err := b.Backend.Open(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	b.log.Store = st.(*sqlite.Store)
	return b.log, nil
}

// TestEmbedResumesAfterLastBatch: sync's embedding loop asks the store for
// each batch after the last chunk of the batch before, never again from
// the oldest chunk, so each chunk is listed once however long the backlog
// (the loop of PendingChunks calls passed every chunk embedded so far on
// each call: quadratic, 3,500 vectors a minute into a 1M-chunk index).
func TestEmbedResumesAfterLastBatch(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nThe heron %d waded past reed %d.\n", i, i, i*7)
	}
	log := &pendingLog{}
	f := newFixture(t, files, Options{Embedder: hashEmbedder{}, Backend: pendingBackend{log: log}})
	ctx := context.Background()
	res, err := f.eng.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded < 4*embedBatch || res.PendingEmbeddings != 0 {
		t.Fatalf("embedded %d, pending %d: want more than %d chunks, all embedded", res.Embedded, res.PendingEmbeddings, 4*embedBatch)
	}
	seen := map[int64]bool{}
	last := int64(0)
	for i, c := range log.calls {
		if c.after != last {
			t.Fatalf("listing %d started after chunk %d, want %d (the last chunk of the batch before)", i, c.after, last)
		}
		for _, id := range c.ids {
			if seen[id] {
				t.Fatalf("chunk %d listed twice", id)
			}
			seen[id] = true
		}
		if len(c.ids) > 0 {
			last = c.ids[len(c.ids)-1]
		}
	}
	if len(seen) != res.Embedded {
		t.Errorf("%d chunks listed, %d embedded", len(seen), res.Embedded)
	}
	if n, err := f.eng.PendingEmbeddings(ctx); err != nil || n != 0 {
		t.Errorf("PendingEmbeddings = %d, %v after the sync, want 0", n, err)
	}
}
