package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// mkfiles creates each slash-separated path under dir; a trailing "/" makes
// a directory.
func mkfiles(t testing.TB, dir string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte("# "+p+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "ws/MEMORY.md", "ws/memory/", "ws/notes (old)/", "ws/odd*name.md", "other/notes/")
	ws := filepath.Join(dir, "ws")
	tests := []struct {
		name  string
		paths []string
		glob  string
		want  []Source
	}{
		{"existing directory", []string{ws + "/memory"}, "",
			[]Source{{Root: ws + "/memory", Pattern: "**/*.md"}}},
		{"existing directory with glob", []string{ws + "/memory"}, "*.txt",
			[]Source{{Root: ws + "/memory", Pattern: "*.txt"}}},
		{"existing directory with glob chars", []string{ws + "/notes (old)"}, "",
			[]Source{{Root: ws + "/notes (old)", Pattern: "**/*.md"}}},
		{"existing file", []string{ws + "/MEMORY.md"}, "",
			[]Source{{Root: ws, Pattern: "MEMORY.md"}}},
		{"existing file with glob chars", []string{ws + "/odd*name.md"}, "",
			[]Source{{Root: ws, Pattern: `odd\*name.md`}}},
		{"missing .md file", []string{ws + "/USER.md"}, "",
			[]Source{{Root: ws, Pattern: "USER.md"}}},
		{"missing other", []string{ws + "/later"}, "",
			[]Source{{Root: ws + "/later", Pattern: "**/*.md"}}},
		{"missing other with glob", []string{ws + "/later"}, "*.md",
			[]Source{{Root: ws + "/later", Pattern: "*.md"}}},
		{"glob", []string{ws + "/memory/**/*.md"}, "",
			[]Source{{Root: ws + "/memory", Pattern: "**/*.md"}}},
		{"glob in a middle segment", []string{ws + "/m*/x/*.md"}, "",
			[]Source{{Root: ws, Pattern: "m*/x/*.md"}}},
		{"glob with a brace over a slash", []string{ws + "/{a,b/c}/*.md"}, "",
			[]Source{{Root: ws, Pattern: "{a,b/c}/*.md"}}},
		{"glob with (", []string{ws + "/gone (old)/*.md"}, "",
			[]Source{{Root: ws, Pattern: "gone (old)/*.md"}}},
		{"unclean path", []string{ws + "/./memory/"}, "",
			[]Source{{Root: ws + "/memory", Pattern: "**/*.md"}}},
		{"two roots: prefixes",
			[]string{ws + "/MEMORY.md", ws + "/USER.md", ws + "/memory/**/*.md"}, "",
			[]Source{
				{Root: ws, Pattern: "MEMORY.md", Prefix: "ws"},
				{Root: ws, Pattern: "USER.md", Prefix: "ws"},
				{Root: ws + "/memory", Pattern: "**/*.md", Prefix: "memory"},
			}},
		{"same-root sources share a prefix",
			[]string{ws + "/MEMORY.md", ws + "/USER.md"}, "",
			[]Source{{Root: ws, Pattern: "MEMORY.md"}, {Root: ws, Pattern: "USER.md"}}},
		{"clashing base names",
			[]string{ws + "/memory", dir + "/other/notes", dir + "/x/memory", dir + "/y/memory", dir + "/memory-2"}, "",
			[]Source{
				{Root: ws + "/memory", Pattern: "**/*.md", Prefix: "memory"},
				{Root: dir + "/other/notes", Pattern: "**/*.md", Prefix: "notes"},
				{Root: dir + "/x/memory", Pattern: "**/*.md", Prefix: "memory-2"},
				{Root: dir + "/y/memory", Pattern: "**/*.md", Prefix: "memory-3"},
				{Root: dir + "/memory-2", Pattern: "**/*.md", Prefix: "memory-2-2"},
			}},
		{"root directory", []string{"/*.md", ws}, "",
			[]Source{{Root: "/", Pattern: "*.md", Prefix: "root"}, {Root: ws, Pattern: "**/*.md", Prefix: "ws"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(cairn.Corpus{Name: "c", Kind: cairn.KindFiles, Paths: tt.paths, Glob: tt.glob})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve(%q) mismatch (-want +got):\n%s", tt.paths, diff)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "ws/MEMORY.md", "ws/memory/")
	ws := filepath.Join(dir, "ws")
	tests := []struct {
		name string
		c    cairn.Corpus
	}{
		{"no paths", cairn.Corpus{}},
		{"blank path", cairn.Corpus{Paths: []string{" "}}},
		{"relative path", cairn.Corpus{Paths: []string{"notes"}}},
		{"duplicate directory", cairn.Corpus{Paths: []string{ws + "/memory", ws + "/memory/"}}},
		{"directory and its glob", cairn.Corpus{Paths: []string{ws + "/memory", ws + "/memory/**/*.md"}}},
		{"existing and missing file spelled twice", cairn.Corpus{Paths: []string{ws + "/MEMORY.md", ws + "/./MEMORY.md"}}},
		{"malformed glob path", cairn.Corpus{Paths: []string{ws + "/[oops/*.md"}}},
		{"malformed corpus glob", cairn.Corpus{Paths: []string{ws}, Glob: "{a"}},
		{"malformed exclude", cairn.Corpus{Paths: []string{ws}, Exclude: []string{"[x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.c)
			if !errors.Is(err, cairn.ErrInvalid) {
				t.Fatalf("Resolve = %v, %v; want an ErrInvalid error", got, err)
			}
		})
	}
}
