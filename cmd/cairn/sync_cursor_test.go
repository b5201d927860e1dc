package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncCursor: --source cursor reads the chat store under a Cursor root
// (the folder holding User/) and its composers are searchable (issue 22
// item 4; before, cursor was an unknown source).
func TestSyncCursor(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join(t.TempDir(), "Cursor")
	store := filepath.Join(root, "User", "globalStorage", "state.vscdb")
	if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
		t.Fatal(err)
	}
	seed, err := os.ReadFile(filepath.Join("..", "..", "ingest", "testdata", "transcripts", "cursor", "seed.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(seed)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "cursor", "--root", "cursor="+root)
	if out := c.ok("sync"); strings.Contains(out, "failed:") || !strings.Contains(out, "cursor") {
		t.Fatalf("sync:\n%s", out)
	}
	if out := c.ok("search", "token TTL", "--source", "cursor"); !strings.Contains(out, "raise it to 1m") {
		t.Errorf("search found no cursor session:\n%s", out)
	}
}
