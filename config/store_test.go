package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func loadStore(t *testing.T, body string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(p, &LoadOptions{Home: dir})
}

// TestStoreTable: [store] loads its keys, resolves access beside the
// file, and refuses what it cannot use, naming the key and its line.
func TestStoreTable(t *testing.T) {
	cfg, err := loadStore(t, "[store]\nurl = \"postgres://cairn@db:5432/cairn?sslmode=disable\"\nschema = \"team_a\"\nmaxConns = 20\nhnsw = true\naccess = \"access.toml\"\n")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Store
	if s.URL != "postgres://cairn@db:5432/cairn?sslmode=disable" || s.Schema != "team_a" || s.MaxConns != 20 || !s.HNSW ||
		s.Access != filepath.Join(filepath.Dir(cfg.Path), "access.toml") || !s.Postgres() {
		t.Errorf("store = %+v", s)
	}
	if cfg, err := loadStore(t, "[[corpus]]\nname = \"notes\"\nkind = \"files\"\npaths = [\".\"]\n"); err != nil || cfg.Store.Postgres() {
		t.Errorf("no [store]: %+v, %v; want SQLite", cfg.Store, err)
	}
	for _, c := range []struct{ body, want string }{
		{"[store]\nurl = \"mysql://db/x\"\n", ":2: [store] url is not a PostgreSQL URL"},
		{"[store]\nurl = \"postgres://u:secret@db/x\"\n", ":2: [store] url holds a password"},
		{"[store]\nurl = \"postgres://u@db/x?sslmode=disable&password=secret\"\n", ":2: [store] url holds a password"},
		{"[store]\nurl = \"postgres://u@db/x?Password=secret\"\n", ":2: [store] url holds a password"},
		{"[store]\nurl = \"postgres://db/x\"\nschema = \"a-b\"\n", `:3: [store] schema "a-b"`},
		{"[store]\nurl = \"postgres://db/x\"\nmaxConns = -1\n", ":3: [store] maxConns -1"},
		{"[store]\nschema = \"x\"\n", ":1: [store] schema, maxConns and hnsw need a url"},
		{"[store]\nuri = \"postgres://db/x\"\n", `:2: unknown key "uri" in [store]`},
	} {
		_, err := loadStore(t, c.body)
		if err == nil || !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an invalid config error containing %q", c.body, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("the error repeats the password: %v", err)
		}
	}
}
