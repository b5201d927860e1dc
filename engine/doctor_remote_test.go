package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/sqlite"
)

// elsewhereBackend is a backend whose index is not a file of the data
// directory, as PostgreSQL's is not: the SQLite backend with its
// IndexPath hidden (only cairn.Backend's methods are promoted).
type elsewhereBackend struct{ cairn.Backend }

// TestDoctorIndexElsewhere: Doctor says "nothing is indexed here yet" from
// the missing index file only for a backend that names one (IndexPather).
// For a backend without it (a team store in PostgreSQL, which keeps no
// index.db; doctor there failed with "no such file" right after a sync)
// it asks the backend's CheckIndex instead.
func TestDoctorIndexElsewhere(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		backend cairn.Backend
		wantErr bool
	}{
		{"file backend, nothing indexed", sqlite.Backend{}, true},
		{"index elsewhere", elsewhereBackend{sqlite.Backend{}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{Dir: dir, Backend: tc.backend, Corpora: []cairn.Corpus{{Name: "notes", Paths: []string{t.TempDir()}, Glob: "**/*.md"}}}
			rep, err := Doctor(ctx, opts, false)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "nothing is indexed here yet") {
					t.Fatalf("Doctor: %v, want the nothing-indexed error", err)
				}
				if _, err := os.Stat(filepath.Join(dir, sqlite.IndexFile)); !os.IsNotExist(err) {
					t.Fatalf("Doctor made an index file: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Doctor of a backend without IndexPath: %v (it must ask CheckIndex, not stat index.db)", err)
			}
			if got := statuses(rep)["index"]; got != CheckOK {
				t.Fatalf("index check %q, want ok: %+v", got, rep.Checks)
			}
		})
	}
}
