package mcpserver

import (
	"testing"

	"github.com/cairnmemory/cairn/internal/seamtest"
)

// TestNoStorageDeps keeps the seam real: the MCP server reaches storage through
// the root package's interfaces only, so neither package sqlite nor a
// SQLite driver (nor the OpenClaw store reader, which links one) may be
// among its dependencies: it calls engine methods, never a store.
func TestNoStorageDeps(t *testing.T) {
	if bad := seamtest.StorageDeps(t, "."); len(bad) > 0 {
		t.Fatalf("mcpserver depends on %v: reach storage through engine methods", bad)
	}
}
