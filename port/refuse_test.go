package port_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/port"
	"github.com/cairnmemory/cairn/postgres"
	"github.com/cairnmemory/cairn/sqlite"
	"github.com/jackc/pgx/v5"
)

// refusedCases are exports an import refuses, and what the error names.
func refusedCases(t *testing.T) []struct {
	name, data, want string
	o                *port.ImportOptions
} {
	data := string(export(t, filled(t), false))
	lines := strings.SplitAfter(data, "\n")
	lines[2] = "{\"table\": broken\n"
	return []struct {
		name, data, want string
		o                *port.ImportOptions
	}{
		{"not an export", "hello\n", "format:", nil},
		{"format version", strings.Replace(data, `"version":1`, `"version":2`, 1), "version:", nil},
		{"feature version", strings.Replace(data, `"feature_version":"port-test-1"`, `"feature_version":"chunk=0"`, 1), "feature_version:", nil},
		{"model", data, "models:", &port.ImportOptions{Embedder: "onnx|model-b|3"}},
		{"broken line", strings.Join(lines, ""), "line 3", nil},
	}
}

// TestRefusedImportLeavesNoFolder: an import into a SQLite data directory
// that is not there yet leaves no directory when it is refused (header,
// versions, models: checked before the store is opened) or fails in the
// store (a broken line); an agent that holds anything is refused naming
// it and --replace, and keeps its rows.
func TestRefusedImportLeavesNoFolder(t *testing.T) {
	ctx := context.Background()
	open := func(dir string) port.Target {
		return port.Target{Dir: dir, Open: func(ctx context.Context) (cairn.Storage, error) {
			return sqlite.Backend{}.Open(ctx, dir, cairn.StorageOptions{FeatureVersion: feature})
		}}
	}
	for _, c := range refusedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "agents", "new")
			o := &port.ImportOptions{FeatureVersion: feature, Target: "agent new"}
			if c.o != nil {
				o.Embedder = c.o.Embedder
			}
			_, err := port.ImportTo(ctx, open(dir), strings.NewReader(c.data), o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want an error naming %q", err, c.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused import left %s (stat: %v)", dir, err)
			}
		})
	}
	dir := t.TempDir()
	data := export(t, filled(t), false)
	if _, err := port.ImportTo(ctx, open(dir), bytes.NewReader(data), &port.ImportOptions{Target: "agent full"}); err != nil {
		t.Fatal(err)
	}
	_, err := port.ImportTo(ctx, open(dir), bytes.NewReader(data), &port.ImportOptions{Target: "agent full"})
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "agent full") || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("second import: %v, want a refusal naming agent full and --replace", err)
	}
	st, err := open(dir).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, _ := st.ChunkCount(ctx); n != 2 {
		t.Errorf("the refused import changed the agent: %d chunks, want 2", n)
	}
}

func TestRefusedImportLeavesNoAgentPostgres(t *testing.T) {
	refusedPostgres(t, "CAIRN_TEST_POSTGRES_URL")
}
func TestRefusedImportLeavesNoAgentCitus(t *testing.T) { refusedPostgres(t, "CAIRN_TEST_CITUS_URL") }

// refusedPostgres: an import refused before the store's import runs (a
// bad header, a version or models refused) leaves no agent row for an
// agent that opening the store registered, through Import on an opened
// store as through ImportTo; an agent there before stays.
func refusedPostgres(t *testing.T, env string) {
	url := os.Getenv(env)
	if url == "" {
		testshared.SkipOrFail(t, "POSTGRES", env+" is not set (eval \"$(scripts/pg-test-servers.sh start)\" starts a server)")
	}
	ctx := context.Background()
	schema := "le_port_refused"
	dropSchema(t, url, schema)
	agents := func(agent string) int {
		t.Helper()
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM "`+schema+`".agents WHERE agent = $1`, agent).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	backend := func(agent string) postgres.Backend { return postgres.Backend{URL: url, Agent: agent, Schema: schema} }
	for _, c := range refusedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			o := &port.ImportOptions{}
			if c.o != nil {
				o.Embedder = c.o.Embedder
			}
			st, err := backend("opened").Open(ctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: feature})
			if err != nil {
				t.Fatal(err)
			}
			_, err = port.Import(ctx, st.(cairn.Porter), strings.NewReader(c.data), o)
			st.Close()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import: %v, want an error naming %q", err, c.want)
			}
			if n := agents("opened"); n != 0 {
				t.Errorf("Import refused (%v) and left %d agent rows", err, n)
			}
			dir := filepath.Join(t.TempDir(), "cache")
			o.FeatureVersion = feature
			_, err = port.ImportTo(ctx, port.Target{Dir: dir, Open: func(ctx context.Context) (cairn.Storage, error) {
				return backend("target").Open(ctx, dir, cairn.StorageOptions{FeatureVersion: feature})
			}}, strings.NewReader(c.data), o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ImportTo: %v, want an error naming %q", err, c.want)
			}
			if n := agents("target"); n != 0 {
				t.Errorf("ImportTo refused (%v) and left %d agent rows", err, n)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("ImportTo refused and left %s", dir)
			}
		})
	}
	st, err := backend("kept").Open(ctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: feature})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := port.Import(ctx, st.(cairn.Porter), bytes.NewReader(export(t, filled(t), false)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := port.Import(ctx, st.(cairn.Porter), strings.NewReader("hello\n"), nil); err == nil || agents("kept") != 1 {
		t.Fatalf("a refused import into an agent that holds rows: %v, %d agent rows, want 1", err, agents("kept"))
	}
}
