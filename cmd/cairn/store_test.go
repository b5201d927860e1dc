package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/jackc/pgx/v5"
)

// TestCLIStorePostgres: with [store] url the CLI indexes into and
// searches the PostgreSQL database, as the agent's tenant, and writes no
// index file in the data directory.
func TestCLIStorePostgres(t *testing.T) {
	url := os.Getenv("CAIRN_TEST_POSTGRES_URL")
	if url == "" {
		testshared.SkipOrFail(t, "POSTGRES", "CAIRN_TEST_POSTGRES_URL is not set (eval \"$(scripts/pg-test-servers.sh start)\" starts a server)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	drop := func() { conn.Exec(ctx, `DROP SCHEMA IF EXISTS cairn_cli CASCADE`) }
	drop()
	t.Cleanup(drop)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	cfgPath := filepath.Join(c.home, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg = append(cfg, []byte("\n[store]\nurl = \""+url+"\"\nschema = \"cairn_cli\"\n")...)
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("sync")
	if out := c.ok("search", "busy_timeout"); !strings.Contains(out, "cairn://notes/db.md") {
		t.Errorf("search = %q", out)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM cairn_cli.documents WHERE agent = 'default'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("documents of agent default in the database = %d, %v; want 1", n, err)
	}
	filepath.WalkDir(c.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.Name() == "index.db" || d.Name() == "memory.db") {
			t.Errorf("an SQLite file in the data directory: %s", p)
		}
		return nil
	})
}
