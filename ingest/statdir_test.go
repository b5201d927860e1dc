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
// ReadDir (the walk skips those silently).
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
		ps[i] = pendingFile{e: e, dir: dir, rel: e.Name()}
	}
	statGroup(dir, ps)
	for _, p := range ps {
		want, werr := os.Lstat(filepath.Join(dir, p.e.Name()))
		if werr != nil {
			if !errors.Is(p.err, fs.ErrNotExist) || !errors.Is(werr, fs.ErrNotExist) {
				t.Errorf("%s: err %v, lstat %v: want both not-exist", p.e.Name(), p.err, werr)
			}
			continue
		}
		if p.err != nil {
			t.Fatalf("%s: %v", p.e.Name(), p.err)
		}
		if p.info.Size() != want.Size() || !p.info.ModTime().Equal(want.ModTime()) || p.info.Mode().IsRegular() != want.Mode().IsRegular() {
			t.Errorf("%s: size %d mtime %v regular %v; lstat: %d %v %v", p.e.Name(), p.info.Size(), p.info.ModTime(),
				p.info.Mode().IsRegular(), want.Size(), want.ModTime(), want.Mode().IsRegular())
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
	ps = []pendingFile{{e: subEntries[0], dir: sub, rel: "sub/c.md"}}
	statGroup(sub, ps)
	if !errors.Is(ps[0].err, fs.ErrNotExist) {
		t.Fatalf("file of a vanished directory: err %v, want not-exist", ps[0].err)
	}
}
