package sqlite

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadOnlyFilesNamed: the files a read-only refusal names, with a
// predicate standing in for this user's write access (the real one is
// TestReadOnlyFileNamed, as another user).
func TestReadOnlyFilesNamed(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{IndexFile, DurableFile, IndexFile + "-shm", IndexFile + "-wal", DurableFile + "-shm"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(f string) string { return filepath.Join(dir, f) }
	for _, tc := range []struct {
		name     string
		path     string
		readOnly []string
		want     []string
	}{
		{"the file given", IndexFile, []string{IndexFile}, []string{IndexFile}},
		{"the other of the pair", IndexFile, []string{DurableFile}, []string{DurableFile}},
		// The case a new user met: index.db writable again, its -shm still 0444.
		{"a -shm left read-only", IndexFile, []string{IndexFile + "-shm"}, []string{IndexFile + "-shm"}},
		{"the other's -shm", IndexFile, []string{DurableFile + "-shm"}, []string{DurableFile + "-shm"}},
		{"all of them, the given file first", DurableFile, []string{IndexFile, DurableFile, IndexFile + "-shm"},
			[]string{DurableFile, IndexFile, IndexFile + "-shm"}},
		{"a -wal that is not there is not named", IndexFile, []string{DurableFile + "-wal"}, nil},
		{"everything writable", IndexFile, nil, nil},
		{"another file alone", "other.db", []string{"other.db", IndexFile}, []string{"other.db"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path == "other.db" {
				os.WriteFile(p("other.db"), nil, 0o644)
			}
			ro := map[string]bool{}
			for _, f := range tc.readOnly {
				ro[p(f)] = true
			}
			got := readOnlyFiles(p(tc.path), func(f string) bool { return !ro[f] })
			var want []string
			for _, f := range tc.want {
				want = append(want, p(f))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("readOnlyFiles = %v, want %v", got, want)
			}
		})
	}
}
