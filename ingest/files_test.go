package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func rels(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Rel
	}
	return out
}

func TestScan(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	mkfiles(t, dir,
		"notes/b.md", "notes/a.md", "notes/a.txt", "notes/.hidden.md",
		"notes/a/z.md", "notes/a/y/x.md", "notes/a.b/c.md",
		"notes/.git/HEAD.md", "notes/sub/.git/x.md",
		"notes/drafts/d.md", "notes/drafts/deep/e.md", "notes/keep/drafts.md",
		"notes/tmp/t.md", "notes/tmp.md",
		"outside/secret.md", "outside/dir/o.md",
		"notes/real/r.md",
	)
	symlink(t, filepath.Join(root, "a.md"), filepath.Join(root, "link-in.md"))
	symlink(t, "a/z.md", filepath.Join(root, "rel-link.md"))
	symlink(t, filepath.Join(dir, "outside/secret.md"), filepath.Join(root, "link-out.md"))
	symlink(t, filepath.Join(dir, "outside/dir"), filepath.Join(root, "linkdir"))
	symlink(t, filepath.Join(root, "real"), filepath.Join(root, "linkdir-in"))
	symlink(t, filepath.Join(dir, "nowhere.md"), filepath.Join(root, "dangling.md"))
	symlink(t, filepath.Join(dir, "outside/dir"), filepath.Join(root, "dirlink.md"))

	files, failures, err := Scan(context.Background(), cairn.Corpus{
		Name:    "notes",
		Kind:    cairn.KindFiles,
		Paths:   []string{root},
		Exclude: []string{"drafts", "tmp/**", "*.nope"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		".hidden.md", "a.b/c.md", "a.md", "a/y/x.md", "a/z.md", "b.md",
		"keep/drafts.md", "link-in.md", "real/r.md", "rel-link.md", "tmp.md",
	}
	if diff := cmp.Diff(want, rels(files)); diff != "" {
		t.Errorf("files mismatch (-want +got):\n%s", diff)
	}
	wantFail := []cairn.FileFailure{
		{Path: "dangling.md", Reason: ReasonBrokenSymlink},
		{Path: "link-out.md", Reason: ReasonSymlinkOutside},
	}
	if diff := cmp.Diff(wantFail, failures); diff != "" {
		t.Errorf("failures mismatch (-want +got):\n%s", diff)
	}

	byRel := map[string]File{}
	for _, f := range files {
		byRel[f.Rel] = f
	}
	f := byRel["a/z.md"]
	fi, err := os.Stat(filepath.Join(root, "a/z.md"))
	if err != nil {
		t.Fatal(err)
	}
	wantFile := File{
		Source:  Source{Root: root, Pattern: "**/*.md"},
		Rel:     "a/z.md",
		InRoot:  "a/z.md",
		Abs:     filepath.Join(root, "a/z.md"),
		Size:    fi.Size(),
		ModTime: fi.ModTime().UnixNano(),
	}
	if diff := cmp.Diff(wantFile, f); diff != "" {
		t.Errorf("file mismatch (-want +got):\n%s", diff)
	}
	if got := byRel["link-in.md"]; got.Abs != filepath.Join(root, "link-in.md") || got.Size != int64(len("# notes/a.md\n")) {
		t.Errorf("symlinked file = %+v, want the link's path with the target's size", got)
	}
}

func TestScanSources(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir,
		"ws/MEMORY.md", "ws/USER.md", "ws/other.md", "ws/big/deep/x.md",
		"ws/memory/m.md", "ws/memory/sub/n.md", "ws/memory/skip.txt",
		"notes/memory/q.md",
	)
	ws := filepath.Join(dir, "ws")
	tests := []struct {
		name    string
		c       cairn.Corpus
		want    []string
		wantErr error
	}{
		{"files in one root", cairn.Corpus{Paths: []string{ws + "/MEMORY.md", ws + "/USER.md"}},
			[]string{"MEMORY.md", "USER.md"}, nil},
		{"files and a glob", cairn.Corpus{Paths: []string{ws + "/MEMORY.md", ws + "/memory/**/*.md"}},
			[]string{"memory/m.md", "memory/sub/n.md", "ws/MEMORY.md"}, nil},
		{"same base name", cairn.Corpus{Paths: []string{ws + "/memory", dir + "/notes/memory"}},
			[]string{"memory-2/q.md", "memory/m.md", "memory/sub/n.md"}, nil},
		{"overlapping roots: the first source keeps a file",
			cairn.Corpus{Paths: []string{ws + "/memory", ws + "/*/*.md"}},
			[]string{"memory/m.md", "memory/sub/n.md"}, nil},
		{"missing root", cairn.Corpus{Paths: []string{dir + "/gone", ws + "/gone.md"}}, nil, nil},
		{"glob pattern", cairn.Corpus{Paths: []string{ws}, Glob: "*/*.md"},
			[]string{"memory/m.md"}, nil},
		{"exclude with globstar", cairn.Corpus{Paths: []string{ws}, Exclude: []string{"**/sub/**", "big"}},
			[]string{"MEMORY.md", "USER.md", "memory/m.md", "other.md"}, nil},
		{"malformed", cairn.Corpus{Paths: []string{"relative"}}, nil, cairn.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, failures, err := Scan(context.Background(), tt.c)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Scan error = %v, want %v", err, tt.wantErr)
			}
			if len(failures) != 0 {
				t.Errorf("failures = %v, want none", failures)
			}
			if diff := cmp.Diff(tt.want, rels(files), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("files mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScanUnreadableDirectory(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "a.md", "locked/b.md")
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if _, err := os.ReadDir(locked); err == nil {
		t.Skip("running with permissions that read a mode 000 directory (root)")
	}
	files, failures, err := Scan(context.Background(), cairn.Corpus{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.md"}, rels(files)); diff != "" {
		t.Errorf("files mismatch (-want +got):\n%s", diff)
	}
	want := []cairn.FileFailure{{Path: "locked", Reason: "unreadable directory: permission denied"}}
	if diff := cmp.Diff(want, failures); diff != "" {
		t.Errorf("failures mismatch (-want +got):\n%s", diff)
	}
}

func TestScanRootNotDirectory(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "file")
	root := filepath.Join(dir, "file")
	// Resolve saw a directory; it became a file before the scan.
	w := &walker{ctx: context.Background()}
	if err := w.scanSource(Source{Root: root, Pattern: "**/*.md"}); err != nil {
		t.Fatal(err)
	}
	want := []cairn.FileFailure{{Path: root, Reason: "unreadable directory: not a directory"}}
	if diff := cmp.Diff(want, w.failures); diff != "" {
		t.Errorf("failures mismatch (-want +got):\n%s", diff)
	}
}

func TestScanCancelled(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "a.md")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Scan(ctx, cairn.Corpus{Paths: []string{dir}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Scan error = %v, want context.Canceled", err)
	}
}

func BenchmarkScan(b *testing.B) {
	dir := b.TempDir()
	for i := range 10_000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d/e%02d", i%50, i/50%20), fmt.Sprintf("f%05d.md", i))
		if i%10 == 0 {
			p = p[:len(p)-3] + ".txt"
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	c := cairn.Corpus{Paths: []string{dir}, Exclude: []string{"**/drafts/**"}}
	b.ReportAllocs()
	for b.Loop() {
		files, _, err := Scan(context.Background(), c)
		if err != nil || len(files) != 9_000 {
			b.Fatalf("Scan = %d files, %v", len(files), err)
		}
	}
}

// A source's walk lists its files in byte order of their paths by itself
// (Scan does not sort them again): a folder sorts as its name followed by
// "/", so "a.md" and "a-b/x.md" come before "a/x.md" and "a0.md" after
// it, whatever order the directory lists them in. Symlinked files keep
// their place.
func TestWalkListsPathOrder(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a.md", "a-b/x.md", "a/x.md", "a/b.md", "a/b/c.md", "a/b-c.md", "a0.md", "a.b/c.md",
		"!.md", "A.md", "b/a/b/c.md", "b/a.md", "b/a-.md", "b/a0/a.md", "ü.md", "a/ü/x.md", "a/~.md"}
	mkfiles(t, dir, names...)
	symlink(t, filepath.Join(dir, "a.md"), filepath.Join(dir, "a/b/link.md"))
	want := append(slices.Clone(names), "a/b/link.md")
	slices.Sort(want)
	w := &walker{ctx: context.Background()}
	if err := w.scanSource(Source{Root: dir, Pattern: "**/*.md"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, rels(w.files)); diff != "" {
		t.Errorf("walk order (-sorted +walk):\n%s", diff)
	}
}
