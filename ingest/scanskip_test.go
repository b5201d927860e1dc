package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// ScanWith asks Skip about every file Scan would list, with the path, size
// and mtime its File would have (a symlinked file with its target's), in
// path order within each source, and lists exactly the files it does not
// skip, as Scan lists them.
func TestScanWithSkip(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "b/x.md", "b/a/z.md", "b/a.md", "b/c/d/e.md", "b/drafts/no.md", "b/n.txt",
		"a/q.md", "a/p/r.md")
	if err := os.WriteFile(filepath.Join(dir, "b/big.md"), []byte(strings.Repeat("x", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, "big.md", filepath.Join(dir, "b/link.md"))
	// Two roots: "b" comes first in Paths, so its prefixed paths are asked
	// before "a"'s although they sort after them.
	c := cairn.Corpus{Name: "n", Kind: cairn.KindFiles, Paths: []string{dir + "/b", dir + "/a"}, Exclude: []string{"drafts"}}
	all, allFail, err := Scan(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	byRel := map[string]File{}
	for _, f := range all {
		byRel[f.Rel] = f
	}
	wantAsked := []string{"b/a.md", "b/a/z.md", "b/big.md", "b/c/d/e.md", "b/link.md", "b/x.md", "a/p/r.md", "a/q.md"}
	cases := []struct {
		name string
		skip func(rel string) bool
	}{
		{"none", func(string) bool { return false }},
		{"all", func(string) bool { return true }},
		{"some of each root", func(rel string) bool { return rel == "b/a/z.md" || rel == "b/link.md" || rel == "a/q.md" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var asked, kept []string
			opts := &ScanOptions{Skip: func(dir, name string, size, mtime int64) bool {
				rel := JoinRel(dir, name)
				f, ok := byRel[rel]
				if !ok {
					t.Errorf("asked about %s, which Scan does not list", rel)
				} else if f.Size != size || f.ModTime != mtime {
					t.Errorf("%s: asked with size %d mtime %d, Scan lists %d %d", rel, size, mtime, f.Size, f.ModTime)
				}
				asked = append(asked, rel)
				if tc.skip(rel) {
					return true
				}
				kept = append(kept, rel)
				return false
			}}
			files, failures, err := ScanWith(context.Background(), c, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantAsked, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			slices.Sort(kept)
			var want []File
			for _, f := range all {
				if slices.Contains(kept, f.Rel) {
					want = append(want, f)
				}
			}
			if diff := cmp.Diff(want, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(allFail, failures); diff != "" {
				t.Errorf("failures (-Scan +ScanWith):\n%s", diff)
			}
		})
	}
	if got := byRel["b/link.md"].Size; got != 1000 {
		t.Fatalf("the link's size %d, want its target's 1000", got)
	}
}

// A file Skip drops costs the walk no allocation: its paths are built
// only for a listed file. 1,200 files in three folders, all skipped, take
// one allocation a file (the stat's: x/sys copies the name to end it with
// a NUL byte) and a bounded number besides (the folders', the workers',
// the lists'); with a path string a file, as before, it was two a file.
func TestScanWithSkipAllocatesNothingAFile(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 1200 {
		paths = append(paths, fmt.Sprintf("d%d/note-%04d.md", i%3, i))
	}
	mkfiles(t, dir, paths...)
	c := cairn.Corpus{Name: "n", Kind: cairn.KindFiles, Paths: []string{dir}}
	asked := 0
	opts := &ScanOptions{Skip: func(string, string, int64, int64) bool { asked++; return true }}
	allocs := testing.AllocsPerRun(3, func() {
		files, _, err := ScanWith(context.Background(), c, opts)
		if err != nil || len(files) != 0 {
			t.Fatalf("ScanWith: %d files, %v; want none listed", len(files), err)
		}
	})
	if asked != 4*1200 { // AllocsPerRun runs it once more to warm up
		t.Fatalf("Skip asked %d times, want %d", asked, 4*1200)
	}
	if allocs > 1200+300 {
		t.Fatalf("a scan of 1,200 skipped files made %.0f allocations, want at most 1,500", allocs)
	}
}
