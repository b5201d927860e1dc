package cairn

import "context"

// RecallStore is what explore keeps beside the memories: each memory's
// nearest memories by key vector (derived state, in the index: a rebuild
// drops the lists and explore computes them again from the vectors), and
// a stamp of the memories and their links that tells a cached concept
// graph it is stale. storetest.TestRecall is the contract.
type RecallStore interface {
	// PutNeighbours stores each list as its memory's nearest memories made
	// by identity, replacing the memory's earlier list of that identity, in
	// one transaction.
	PutNeighbours(ctx context.Context, identity string, lists []NeighbourList) error
	// Neighbours returns the lists made by identity of the memories with
	// these ids, by memory id; memories with none are left out. Each list
	// comes back as it was put: its Hash, and its neighbours in order.
	Neighbours(ctx context.Context, identity string, ids []string) (map[string]NeighbourList, error)
	// DeleteNeighbours removes the lists of these memories, of every
	// identity. Lists naming them as a neighbour stay (a reader drops
	// neighbours it does not know).
	DeleteNeighbours(ctx context.Context, ids []string) error
	// CountNeighbours counts the lists made by identity.
	CountNeighbours(ctx context.Context, identity string) (int, error)
	// MemoriesStamp returns a value that changes whenever a memory or a
	// memory link is written, changed or removed, by any process.
	MemoriesStamp(ctx context.Context) (int64, error)
	// MemoryRefs lists the id and kind of the memories Memories(f) would
	// return, in the same order, without reading the rest of each: what
	// a filtered memory search needs to name their documents.
	MemoryRefs(ctx context.Context, f MemoryFilter) ([]MemoryRef, error)
	// MemoriesByID returns the memories with these ids, by id; ids not
	// stored are left out.
	MemoriesByID(ctx context.Context, ids []string) (map[string]Memory, error)
}

// MemoryRef names a memory and its kind (which, with its id, names its
// document in the memories corpus).
type MemoryRef struct {
	ID, Kind string
}

// NeighbourList is one memory's nearest memories by key vector (best key
// against best key), best first, as computed from its document with
// content hash Hash: a list whose Hash is not the memory's document's any
// more is stale.
type NeighbourList struct {
	ID   string
	Hash string
	Near []MemoryNeighbour
}

// MemoryNeighbour is one of a memory's nearest memories and the cosine
// similarity of their closest keys.
type MemoryNeighbour struct {
	ID         string
	Similarity float64
}
