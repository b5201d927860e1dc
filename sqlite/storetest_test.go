package sqlite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn/storetest"
)

// TestConformance runs the storage conformance suite (package storetest)
// against the SQLite backend: the index and memory.db in one folder. The
// crash copy takes each database before its WAL, as a backup tool or a
// kill -9 leaves them; the -shm files are left out, since SQLite rebuilds
// them from the WAL. Damage overwrites the index with bytes that are not
// a database, as a disk fault might.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Factory{
		Backend:  Backend{},
		Snapshot: storetest.CopyFiles(IndexFile, IndexFile+"-wal", DurableFile, DurableFile+"-wal"),
		Damage: func(dir string) error {
			path := filepath.Join(dir, IndexFile)
			for _, suffix := range []string{"-wal", "-shm"} {
				if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			return os.WriteFile(path, []byte("not a database: "+string(make([]byte, 4096))), 0o600)
		},
	})
}
