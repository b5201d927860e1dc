package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
)

// Remember stores a memory an agent or a person tells directly: redacted
// and validated like a consolidated item (consolidate.Told; a bad field is
// an error matching cairn.ErrInvalid that names it and the allowed
// values), with provenance "told by <agent> at <now, UTC>". It is written
// to the durable store through the same commit a consolidated window uses
// (a window of its own, pass consolidate.ToldPass, no records) and indexed
// in the memories corpus before the call returns, so a lexical search
// finds it at once; with an embedder its chunks are embedded in the same
// call. An embedder that fails leaves the memory stored and found
// lexically: the result says so (Pending, EmbedError) and the next sync
// embeds it. The sleep pass groups it with consolidated memories like any
// other.
func (e *Engine) Remember(ctx context.Context, req *cairn.RememberRequest) (*cairn.RememberResult, error) {
	if err := CanWrite(ctx, cairn.MemoriesCorpus); err != nil { // scope.go
		return nil, err
	}
	now := time.Now()
	m, err := consolidate.Told(cleanRemember(req), now) // remember_clean.go: no control bytes, before redaction
	if err != nil {
		return nil, err
	}
	res := &cairn.RememberResult{Provenance: m.Provenance[0].Record}
	_, err = e.store.Memory(ctx, m.ID)
	switch {
	case errors.Is(err, cairn.ErrNotFound):
		res.Created = true
	case err != nil:
		return nil, err
	}
	corpus, thread := consolidate.ToldSource, m.Thread
	committed, err := e.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: corpus, Thread: thread, Pass: consolidate.ToldPass,
		Memories: []cairn.Memory{m}})
	if err != nil {
		return nil, fmt.Errorf("remember %s: %w", m.ID, err)
	}
	if err := e.indexMemories(ctx, []cairn.Memory{m}, committed); err != nil {
		return nil, fmt.Errorf("index remembered memory %s: %w", m.ID, err)
	}
	if res.Memory, err = e.store.Memory(ctx, m.ID); err != nil {
		return nil, err
	}
	if e.opts.Embedder != nil {
		res.Embedded, res.Pending, err = e.embedMemory(ctx, &res.Memory)
		if err != nil {
			res.EmbedError = err.Error()
		} else {
			// Explore's neighbour lists (recall_near.go). This loads the
			// vector lane when it is stale, as the next search would.
			e.refreshNeighbours(ctx, []cairn.Memory{res.Memory})
		}
	}
	return res, nil
}

// embedMemory embeds the chunks of a memory's document that have no
// vector yet (only those: a backlog of other chunks waits for the sync)
// and adds them to the vector lane when it is loaded. It returns how many
// were embedded and how many are left.
func (e *Engine) embedMemory(ctx context.Context, m *cairn.Memory) (int, int, error) {
	hash := sha256Hex(consolidate.Document(m))
	id := e.identity()
	chunks, err := e.store.PendingChunksOf(ctx, id, []string{hash})
	if err != nil || len(chunks) == 0 {
		return 0, len(chunks), err
	}
	texts := make([]string, len(chunks))
	ids := make([]int64, len(chunks))
	for i, c := range chunks {
		texts[i], ids[i] = c.Text, c.ID
	}
	vecs, err := e.opts.Embedder.Embed(ctx, cairn.EmbedDocument, texts)
	if err != nil {
		return 0, len(chunks), fmt.Errorf("embed memory %s (the next sync embeds it): %w", m.ID, err)
	}
	if err := e.store.PutVectors(ctx, id, ids, vecs); err != nil {
		return 0, len(chunks), err
	}
	e.vec.mu.Lock()
	if e.vec.loaded {
		for i, k := range ids {
			if err := e.vec.index.Add(k, vecs[i]); err != nil {
				e.vec.loaded = false // reload from the store on next use
				break
			}
		}
	}
	e.vec.mu.Unlock()
	return len(chunks), 0, nil
}
