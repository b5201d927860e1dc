package vector

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cairnmemory/cairn"
)

// MaxDim is the largest dimension an Index accepts: Hamming distances are
// kept as uint16 during the scan.
const MaxDim = 1<<16 - 2

// Index is an in-memory set of float32 vectors keyed by int64, searched by
// dot product. Each item is stored twice: as its float32 vector and as a
// sign-bit code (one bit per dimension, set when the component is >= 0).
// Both live in contiguous slices indexed by slot, so a scan walks memory in
// order.
//
// An Index is safe for concurrent use: searches share a read lock, Add and
// Remove take the write lock.
type Index struct {
	dim   int
	words int // uint64 words per code: (dim+63)/64

	mu    sync.RWMutex
	keys  []int64         // slot -> key
	codes []uint64        // slot*words ...: sign-bit codes
	vecs  []float32       // slot*dim ...: the vectors as added
	slots map[int64]int32 // key -> slot; nil until needed in an index Load mapped
	// mapping, when set, is the file Load mapped keys, codes and vecs from
	// (read-only): the first Add or Remove copies them out (own).
	mapping *mapping
	// The blocks holding keys, codes and vecs when they are large (mem.go);
	// nil for Go slices and for the mapped file.
	keysMem, codesMem, vecsMem *block
	// lists, when set, is the coarse partition of the slots (lists.go).
	lists *lists
	// fileSum is the body checksum of the index file this index was last
	// loaded from or saved to, with bit 32 set; 0 once it changed since
	// (listfile.go binds a lists file to it).
	fileSum atomic.Uint64

	pool scratchPool
}

// New returns an empty index for vectors of dimension dim. It panics when
// dim is not between 1 and MaxDim, like make with a bad length: the
// dimension comes from the embedding model, not from a request.
func New(dim int) *Index {
	if dim < 1 || dim > MaxDim {
		panic(fmt.Sprintf("vector: dimension %d out of range: allowed 1 to %d", dim, MaxDim))
	}
	return &Index{dim: dim, words: (dim + 63) / 64, slots: make(map[int64]int32)}
}

// Dim returns the dimension of the vectors the index holds.
func (ix *Index) Dim() int { return ix.dim }

// Len returns the number of items in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.keys)
}

// Add stores a copy of v under key, replacing any vector already stored
// under that key. Scores are plain dot products, so v should be unit length
// for them to be cosines. The error matches cairn.ErrInvalid when len(v) is
// not Dim().
func (ix *Index) Add(key int64, v []float32) error {
	if len(v) != ix.dim {
		return cairn.Invalidf("add vector %d: dimension %d does not match index dimension %d", key, len(v), ix.dim)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.own()
	ix.fileSum.Store(0)
	slot, ok := ix.slots[key]
	if !ok {
		if len(ix.keys) >= 1<<31-1 {
			return fmt.Errorf("add vector %d: index full at %d items", key, len(ix.keys))
		}
		ix.grow(1)
		slot = int32(len(ix.keys))
		ix.slots[key] = slot
		ix.keys = append(ix.keys, key)
		ix.codes = ix.codes[:len(ix.codes)+ix.words]
		ix.vecs = append(ix.vecs, v...)
	} else {
		copy(ix.vector(slot), v)
		if ix.lists != nil && int(slot) < ix.lists.tail() {
			ix.lists.broken = true // the new vector may belong to another list
		}
	}
	signCode(ix.code(slot), v)
	return nil
}

// Grow reserves room for n more items, so a bulk load of known size
// allocates once. Add grows storage by doubling on its own.
func (ix *Index) Grow(n int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.own()
	ix.grow(n)
}

// grow makes room for n more items, at least doubling the capacity when it
// reallocates: append's 1.25x growth for large slices copies a 1.5 GB
// vector slice dozens of times during a 1M-item load. The caller holds the
// write lock.
func (ix *Index) grow(n int) {
	if cap(ix.keys)-len(ix.keys) < n {
		ix.reserve(len(ix.keys) + max(n, len(ix.keys), 64))
	}
}

// reserve moves the arrays into storage for c items (c >= Len). The caller
// holds the write lock.
func (ix *Index) reserve(c int) {
	ix.keys = regrow(ix.keys, &ix.keysMem, c)
	ix.codes = regrow(ix.codes, &ix.codesMem, c*ix.words)
	ix.vecs = regrow(ix.vecs, &ix.vecsMem, c*ix.dim)
}

// Remove deletes key and reports whether it was present. The last item
// moves into the freed slot, so removal is O(dim) and storage stays dense.
func (ix *Index) Remove(key int64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.own()
	slot, ok := ix.slots[key]
	if !ok {
		return false
	}
	ix.fileSum.Store(0)
	delete(ix.slots, key)
	last := int32(len(ix.keys) - 1)
	if l := ix.lists; l != nil && int(slot) < l.tail() {
		l.broken = true // the last item moves into a list it may not belong to
	}
	if slot != last {
		moved := ix.keys[last]
		ix.keys[slot] = moved
		ix.slots[moved] = slot
		copy(ix.vector(slot), ix.vector(last))
		copy(ix.code(slot), ix.code(last))
	}
	ix.keys = ix.keys[:last]
	ix.vecs = ix.vecs[:int(last)*ix.dim]
	ix.codes = ix.codes[:int(last)*ix.words]
	return true
}

// Vector returns a copy of the vector stored under key. An index loaded
// from a mapped file builds its key-to-slot map on the first call.
func (ix *Index) Vector(key int64) ([]float32, bool) {
	ix.mu.RLock()
	if ix.slots == nil {
		ix.mu.RUnlock()
		ix.mu.Lock()
		if ix.slots == nil {
			slots := make(map[int64]int32, len(ix.keys))
			for i, k := range ix.keys {
				slots[k] = int32(i)
			}
			ix.slots = slots
		}
		ix.mu.Unlock()
		ix.mu.RLock()
	}
	defer ix.mu.RUnlock()
	slot, ok := ix.slots[key]
	if !ok {
		return nil, false
	}
	return append([]float32(nil), ix.vector(slot)...), true
}

// vector returns the stored vector at slot. The caller holds the lock.
func (ix *Index) vector(slot int32) []float32 {
	off := int(slot) * ix.dim
	return ix.vecs[off : off+ix.dim : off+ix.dim]
}

// code returns the sign-bit code at slot. The caller holds the lock.
func (ix *Index) code(slot int32) []uint64 {
	off := int(slot) * ix.words
	return ix.codes[off : off+ix.words : off+ix.words]
}

// savedSum returns the body checksum of the index file the index matches,
// and whether it matches one.
func (ix *Index) savedSum() (uint32, bool) {
	v := ix.fileSum.Load()
	return uint32(v), v != 0
}
