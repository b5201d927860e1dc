package engine

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/explore"
	"github.com/cairnmemory/cairn/vector"
)

// neighboursKept is how many nearest memories a stored list holds: twice
// what explore asks for per memory and hop, so a request for more, or a
// neighbour the filter keeps out, still leaves enough.
const neighboursKept = 2 * explore.DefaultNeighbours

// Explore's nearest-neighbour edges (spec §7: each seed's nearest
// memories by key vector, two hops out) come from lists kept in the store
// (cairn.RecallStore, derived state in the index), not from vector
// searches per call: at 100,000 memories the two hops are about 26
// lookups, 1.5 ms of CPU each as searches of the vector index against
// 0.05 ms as one indexed read (bench/cmd/explorebench; bench/RESULTS.md).
// A memory's list is computed from the vector lane the first time a walk
// needs it, and again when its document changed (the list carries the
// document's hash); computing it also offers the memory to each
// neighbour's list, so an older memory learns of a newer one near it.
// Without an embedder, or before the memory's keys have vectors, a
// memory has no neighbour edges.
type memoryNeighbours struct {
	e    *Engine
	hash func(id string) string // the current document hash of a memory, "" when unknown
}

var _ explore.Neighbours = (*memoryNeighbours)(nil)

// Nearest returns up to k of the memory's nearest memories, best first.
func (n *memoryNeighbours) Nearest(ctx context.Context, id string, k int) ([]explore.Neighbour, error) {
	e := n.e
	if e.opts.Embedder == nil {
		return nil, nil
	}
	identity := e.identity()
	hash := n.hash(id)
	lists, err := e.store.Neighbours(ctx, identity, []string{id})
	if err != nil {
		return nil, err
	}
	l, ok := lists[id]
	if !ok || l.Hash != hash {
		if l, err = e.computeNeighbours(ctx, identity, id, hash); err != nil {
			return nil, err
		}
	}
	out := make([]explore.Neighbour, 0, min(k, len(l.Near)))
	for _, nb := range l.Near[:min(k, len(l.Near))] {
		out = append(out, explore.Neighbour{ID: nb.ID, Similarity: nb.Similarity})
	}
	return out, nil
}

// nearState is the engine's cache for neighbour computations: which
// chunks hold each memory's keys, for the chunk-to-document map it was
// built from.
type nearState struct {
	mu     sync.Mutex // one computation at a time: lists are read, merged and written back
	from   uintptr    // the vectorDocs map the chunks were read from
	chunks map[string][]int64
}

// memoryChunks maps each memory to the chunks of its document, from the
// vector lane's chunk-to-document map. The caller holds e.recall.near.mu.
func (e *Engine) memoryChunks(docs map[int64][]docRef) map[string][]int64 {
	st := &e.recall.near
	if p := reflect.ValueOf(docs).Pointer(); st.chunks == nil || st.from != p {
		st.chunks, st.from = map[string][]int64{}, p
		for c, refs := range docs {
			for _, d := range refs {
				if d.corpus == cairn.MemoriesCorpus {
					if id := consolidate.IDFromPath(d.path); id != "" {
						st.chunks[id] = append(st.chunks[id], c)
					}
				}
			}
		}
	}
	return st.chunks
}

// computeNeighbours finds a memory's nearest memories by key vector (the
// best of its keys against the best of theirs), stores the list with
// hash, and offers the memory to each neighbour's stored list.
func (e *Engine) computeNeighbours(ctx context.Context, identity, id, hash string) (cairn.NeighbourList, error) {
	l := cairn.NeighbourList{ID: id, Hash: hash, Near: []cairn.MemoryNeighbour{}}
	if err := e.loadVectors(ctx); err != nil {
		return l, err
	}
	docs, err := e.vectorDocs(ctx)
	if err != nil {
		return l, err
	}
	e.vec.mu.RLock()
	ix := e.vec.index
	e.vec.mu.RUnlock()
	st := &e.recall.near
	st.mu.Lock()
	defer st.mu.Unlock()
	keys := e.memoryChunks(docs)[id]
	if ix == nil || len(keys) == 0 {
		return l, nil // no vectors yet: no edges, and nothing stored (the next walk asks again)
	}
	l.Near = nearestOf(ix, docs, id, keys)
	return l, e.putNeighbours(ctx, identity, l)
}

// nearestOf searches the vector index with each key of memory id and
// keeps the best similarity per other memory, best first.
func nearestOf(ix *vector.Index, docs map[int64][]docRef, id string, keys []int64) []cairn.MemoryNeighbour {
	isMemory := func(c int64) bool {
		return slices.ContainsFunc(docs[c], func(d docRef) bool { return d.corpus == cairn.MemoriesCorpus })
	}
	best := map[string]float64{}
	for _, k := range keys {
		v, ok := ix.Vector(k)
		if !ok {
			continue
		}
		// A memory is a few chunks: ask for enough to reach neighboursKept
		// other memories past this one's own keys.
		for _, r := range ix.Search(v, 4*neighboursKept+len(keys), &vector.SearchOptions{Filter: isMemory}) {
			for _, d := range docs[r.Key] {
				other := consolidate.IDFromPath(d.path)
				if d.corpus != cairn.MemoriesCorpus || other == "" || other == id {
					continue
				}
				if s, ok := best[other]; !ok || float64(r.Score) > s {
					best[other] = float64(r.Score)
				}
			}
		}
	}
	out := make([]cairn.MemoryNeighbour, 0, len(best))
	for other, s := range best {
		out = append(out, cairn.MemoryNeighbour{ID: other, Similarity: s})
	}
	sortNear(out)
	return out[:min(len(out), neighboursKept)]
}

func sortNear(l []cairn.MemoryNeighbour) {
	slices.SortFunc(l, func(a, b cairn.MemoryNeighbour) int {
		return cmp.Or(cmp.Compare(b.Similarity, a.Similarity), cmp.Compare(a.ID, b.ID))
	})
}

// putNeighbours stores l and, in the same write, the stored lists of l's
// neighbours that l's memory now belongs in (closer than their last, or
// a list not full yet): similarity is symmetric, so a memory computed
// after its neighbours shows up in theirs too.
func (e *Engine) putNeighbours(ctx context.Context, identity string, l cairn.NeighbourList) error {
	ids := make([]string, len(l.Near))
	for i, nb := range l.Near {
		ids[i] = nb.ID
	}
	others, err := e.store.Neighbours(ctx, identity, ids)
	if err != nil {
		return err
	}
	puts := []cairn.NeighbourList{l}
	for _, nb := range l.Near {
		o, ok := others[nb.ID]
		if !ok || slices.ContainsFunc(o.Near, func(x cairn.MemoryNeighbour) bool { return x.ID == l.ID }) {
			continue
		}
		if len(o.Near) >= neighboursKept && nb.Similarity <= o.Near[len(o.Near)-1].Similarity {
			continue
		}
		o.Near = append(slices.Clone(o.Near), cairn.MemoryNeighbour{ID: l.ID, Similarity: nb.Similarity})
		sortNear(o.Near)
		o.Near = o.Near[:min(len(o.Near), neighboursKept)]
		puts = append(puts, o)
	}
	return e.store.PutNeighbours(ctx, identity, puts)
}

// refreshNeighbours computes the neighbour lists of memories just
// embedded, so that each is offered to its neighbours' lists at once (an
// older memory's list, computed before the new one existed, learns of
// it). A failure leaves the lists to be computed when a walk needs them;
// it is told to Logf: the memories are stored either way.
func (e *Engine) refreshNeighbours(ctx context.Context, ms []cairn.Memory) {
	if e.opts.Embedder == nil {
		return
	}
	identity := e.identity()
	for i := range ms {
		if ms[i].Status != "" && ms[i].Status != cairn.StatusActive {
			continue
		}
		if _, err := e.computeNeighbours(ctx, identity, ms[i].ID, sha256Hex(consolidate.Document(&ms[i]))); err != nil {
			if e.opts.Logf != nil {
				e.opts.Logf("nearest memories of %s (computed when explore needs them): %v", ms[i].ID, err)
			}
			return
		}
	}
}
