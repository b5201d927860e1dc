//go:build linux

package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cairnmemory/cairn"
)

// listDir lists what os.ReadDir lists, name and type bits, without "."
// and "..": regular files, folders, symlinks, a named pipe, names longer
// than the record alignment, and more records than one read of the
// buffer holds (several getdents64 calls). The descriptor it keeps open
// names the same directory.
func TestListDirMatchesReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 1500 {
		name := fmt.Sprintf("note-%04d-%s.md", i, strings.Repeat("x", i%40))
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"sub", "a.md.d"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, "sub", filepath.Join(dir, "link-dir"))
	symlink(t, "note-0001-x.md", filepath.Join(dir, "link.md"))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096) // a few dozen records a call
	d, got, err := listDir(dir, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer d.release()
	slices.SortFunc(got, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	if len(got) != len(want) {
		t.Fatalf("listDir: %d entries, os.ReadDir %d", len(got), len(want))
	}
	for i, e := range want {
		if got[i].name != e.Name() || got[i].typ != e.Type() {
			t.Fatalf("entry %d: listDir %q %v, os.ReadDir %q %v", i, got[i].name, got[i].typ, e.Name(), e.Type())
		}
	}
	var st, byPath syscall.Stat_t
	if err := syscall.Fstat(d.fd, &st); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Stat(dir, &byPath); err != nil {
		t.Fatal(err)
	}
	if st.Ino != byPath.Ino {
		t.Fatalf("descriptor names inode %d, %s is %d", st.Ino, dir, byPath.Ino)
	}
}

// A directory that cannot be opened is an error with no entries and no
// descriptor; the walk reports it (TestScanUnreadableDirectory).
func TestListDirMissing(t *testing.T) {
	d, got, err := listDir(filepath.Join(t.TempDir(), "gone"), make([]byte, 4096))
	if d != nil || len(got) != 0 || !errorsIsNotExist(err) {
		t.Fatalf("listDir of a missing folder: %v, %d entries, %v", d, len(got), err)
	}
}

func errorsIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// Scan closes every directory it listed: each one's descriptor is held by
// the walk and by the runs of its files, and closed by the last of them
// (folders of more files than a run holds, files on both sides of a
// subfolder, empty folders, a folder with no matching file).
func TestScanClosesDirectories(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/x.md", "a/b/y.md", "a/z.md", "c/skip.txt", "e/.keep"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2*statGroupFiles + 3 {
		if err := os.WriteFile(filepath.Join(root, "a", fmt.Sprintf("n%03d.md", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	openFDs := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(fds)
	}
	before := openFDs()
	for range 3 {
		files, _, err := Scan(t.Context(), cairn.Corpus{Name: "docs", Kind: cairn.KindFiles, Paths: []string{root}, Glob: cairn.DefaultGlob})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2*statGroupFiles+6 {
			t.Fatalf("scanned %d files, want %d", len(files), 2*statGroupFiles+6)
		}
	}
	if after := openFDs(); after != before {
		t.Fatalf("open descriptors: %d before the scans, %d after", before, after)
	}
}
