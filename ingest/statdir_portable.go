//go:build !linux

package ingest

import "os"

// listDir lists dir with os.ReadDir (unsorted; walkDir sorts it). The
// stat workers open the directory again by its path (no descriptor is
// kept). On a partial failure it returns what it read along with the
// error.
func listDir(dir string, _ []byte) (*dirRef, []dirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	list, err := f.ReadDir(-1)
	entries := make([]dirEntry, len(list))
	for i, e := range list {
		entries[i] = dirEntry{name: e.Name(), typ: e.Type()}
	}
	return newDirRef(dir, -1), entries, err
}
