package engine

import (
	"testing"

	"github.com/cairnmemory/cairn/internal/seamtest"
)

// TestNoStorageDeps keeps the seam real: the engine reaches storage through
// the root package's interfaces only, so neither package sqlite nor a
// SQLite driver (nor the OpenClaw store reader, which links one) may be
// among its dependencies. cmd/cairn and the tests pass them in.
func TestNoStorageDeps(t *testing.T) {
	if bad := seamtest.StorageDeps(t, "."); len(bad) > 0 {
		t.Fatalf("engine depends on %v: pass storage in Options.Backend and cgo readers in Options.SessionReaders instead", bad)
	}
}
