// Package seamtest holds the check that keeps the storage seam real: a
// package above it (engine, mcpserver) must not depend on a storage
// implementation or a SQLite driver (docs/design.md, "The storage seam").
package seamtest

import (
	"os/exec"
	"strings"
	"testing"
)

// StorageDeps lists the dependencies of pkg (not of its tests) that name a
// storage implementation (package sqlite, the OpenClaw store reader, which
// links a driver) or a SQLite driver.
func StorageDeps(t testing.TB, pkg string) []string {
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
