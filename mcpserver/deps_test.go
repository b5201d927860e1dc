package mcpserver

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoStorageDeps keeps the seam real: the MCP server reaches storage through
// the root package's interfaces only, so neither package sqlite nor a
// SQLite driver (nor the OpenClaw store reader, which links one) may be
// among its dependencies: it calls engine methods, never a store.
func TestNoStorageDeps(t *testing.T) {
	if bad := storageDeps(t, "."); len(bad) > 0 {
		t.Fatalf("mcpserver depends on %v: reach storage through engine methods", bad)
	}
}

// storageDeps lists the dependencies of pkg (not of its tests) that name a
// storage implementation or a SQLite driver.
func storageDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasSuffix(p, "/sqlite") || strings.HasSuffix(p, "/openclawdb") ||
			strings.Contains(p, "mattn/go-sqlite3") || strings.Contains(p, "ncruces/go-sqlite3") || strings.Contains(p, "modernc.org/sqlite") {
			bad = append(bad, p)
		}
	}
	return bad
}
