package ingest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// statGroup reports what a path lstat reports: size, mtime to the
// nanosecond and regularity, and ErrNotExist for a file gone since
// ReadDir (the walk skips those silently); symlinks are left alone.
func TestStatGroupMatchesLstat(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"a.md", "b.md", "gone.md"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, 10*(i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Unix(1700000000, int64(123456789+i))
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gone.md")); err != nil {
		t.Fatal(err)
	}
	ps := make([]pendingFile, len(entries))
	for i, e := range entries {
		ps[i] = pendingFile{name: e.Name(), symlink: e.Type()&fs.ModeSymlink != 0}
	}
	statGroup(dir, ps)
	for _, p := range ps {
		want, werr := os.Lstat(filepath.Join(dir, p.name))
		if werr != nil {
			if !errors.Is(p.err, fs.ErrNotExist) || !errors.Is(werr, fs.ErrNotExist) {
				t.Errorf("%s: err %v, lstat %v: want both not-exist", p.name, p.err, werr)
			}
			continue
		}
		if p.err != nil {
			t.Fatalf("%s: %v", p.name, p.err)
		}
		if p.symlink { // left to addSymlink
			if p.size != 0 || p.regular {
				t.Errorf("%s: a symlink was stat'ed: size %d regular %v", p.name, p.size, p.regular)
			}
			continue
		}
		if p.size != want.Size() || p.mtime != want.ModTime().UnixNano() || p.regular != want.Mode().IsRegular() {
			t.Errorf("%s: size %d mtime %d regular %v; lstat: %d %d %v", p.name, p.size, p.mtime,
				p.regular, want.Size(), want.ModTime().UnixNano(), want.Mode().IsRegular())
		}
	}
	// A directory that vanished since ReadDir: its files report not-exist.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "c.md"), []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}
	subEntries, err := os.ReadDir(sub)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	ps = []pendingFile{{name: subEntries[0].Name()}}
	statGroup(sub, ps)
	if !errors.Is(ps[0].err, fs.ErrNotExist) {
		t.Fatalf("file of a vanished directory: err %v, want not-exist", ps[0].err)
	}
}
