package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn/storetest"
)

// TestConformance runs the storage conformance suite (package storetest)
// against the SQLite store: the index and memory.db in one folder. The
// crash copy takes each database before its WAL, as a copy taken by a
// backup tool or left by a kill -9 would hold them; the -shm files are
// left out, since SQLite rebuilds them from the WAL.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Factory{
		Open: func(ctx context.Context, dir string) (storetest.Backend, error) {
			s := New(filepath.Join(dir, "index.db"), "storetest")
			if err := s.Open(ctx); err != nil {
				return nil, err
			}
			return s, nil
		},
		Snapshot: storetest.CopyFiles("index.db", "index.db-wal", DurableFile, DurableFile+"-wal"),
	})
}
