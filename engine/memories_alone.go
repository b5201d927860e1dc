package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

// MemoryReader reads the memories of a data directory from memory.db
// alone, read only, for when the index beside it cannot be opened: the
// memories are state of their own (the SQLite backend's memory.db) and stay readable
// while index.db is damaged. It answers what Engine answers about
// memories, no more.
type MemoryReader struct {
	store cairn.MemoryReader
}

// OpenMemoryReader opens the durable store of data directory opts.Dir
// through opts.Backend, read only. It never creates, migrates or changes
// the file.
func OpenMemoryReader(ctx context.Context, opts Options) (*MemoryReader, error) {
	opts.setDefaults()
	if opts.Backend == nil {
		return nil, errNoBackend
	}
	st, err := opts.Backend.OpenMemories(ctx, opts.Dir)
	if err != nil {
		return nil, err
	}
	return &MemoryReader{store: st}, nil
}

// Memories lists the stored memories as Engine.Memories does.
func (r *MemoryReader) Memories(ctx context.Context, f cairn.MemoryFilter) ([]cairn.Memory, error) {
	if err := checkMemoryFilter(f); err != nil {
		return nil, err
	}
	return r.store.Memories(ctx, f)
}

// Memory returns one memory by id, or an error matching cairn.ErrNotFound.
func (r *MemoryReader) Memory(ctx context.Context, id string) (cairn.Memory, error) {
	m, err := r.store.Memory(ctx, strings.TrimSpace(id))
	if errors.Is(err, cairn.ErrNotFound) {
		return m, fmt.Errorf("read memory %q: %w", id, err)
	}
	return m, err
}

// MemoryLinks lists the links from or to a memory, oldest first.
func (r *MemoryReader) MemoryLinks(ctx context.Context, id string) ([]cairn.MemoryLink, error) {
	return r.store.MemoryLinks(ctx, strings.TrimSpace(id))
}

// Close closes the file.
func (r *MemoryReader) Close(context.Context) error { return r.store.Close() }
