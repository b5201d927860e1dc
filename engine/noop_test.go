package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// A sync over many unchanged files still sees each kind of change among
// them: an edit that keeps the size, one that changes it, files added
// before, between and after the indexed paths (so the index lists them out
// of path order afterwards), a deletion, a rename across folders, and a
// touch that keeps the content. Names are chosen where path order and a
// folder-by-folder walk differ ("a.md", "a-b/", "a/", "a0.md").
func TestSyncSeesChangesAmongUnchanged(t *testing.T) {
	files := map[string]string{}
	word := func(i int) string { return fmt.Sprintf("zq%04dword", i) }
	i := 0
	for _, dir := range []string{"", "a/", "a-b/", "a.b/", "a0/", "a/b/", "a/b-c/", "z/"} {
		for _, name := range []string{"a.md", "a-b.md", "a0.md", "b.md", "note 1.md", "ünï.md"} {
			for k := range 6 {
				files[fmt.Sprintf("%s%d-%s", dir, k, name)] = fmt.Sprintf("# Note %d\n\n%s in its own file.\n", i, word(i))
				i++
			}
		}
	}
	f := newFixture(t, files, Options{})
	n := len(files)
	if got := f.sync(); got.Added != n || got.Failed != 0 {
		t.Fatalf("first sync: %+v, want %d added", counts(got), n)
	}
	if got := f.sync(); counts(got) != [6]int{n, 0, 0, n, 0, 0} {
		t.Fatalf("no-op sync: %v, want all %d unchanged", counts(got), n)
	}
	// Same size, new bytes and mtime.
	sameSize := "a-b/3-a0.md"
	f.write(sameSize, strings.Replace(files[sameSize], "Note", "Nite", 1))
	grown := "a/b/0-b.md"
	f.write(grown, files[grown]+"\nqqgrownword appended.\n")
	added := map[string]string{"!first.md": "qqaddedfirst", "a/0-a.md.md": "qqaddedsecond", "a.b/zz.md": "qqaddedthird", "zzz/last.md": "qqaddedlast"}
	for p, w := range added {
		f.write(p, "# Added\n\n"+w+" here.\n")
	}
	gone := "a0/2-note 1.md"
	if err := os.Remove(filepath.Join(f.notes, gone)); err != nil {
		t.Fatal(err)
	}
	from, to := "a.b/1-a.md", "a/b-c/moved.md"
	if err := os.Rename(filepath.Join(f.notes, from), filepath.Join(f.notes, to)); err != nil {
		t.Fatal(err)
	}
	touched := "z/5-ünï.md"
	later := time.Now().Add(2 * time.Hour)
	if err := os.Chtimes(filepath.Join(f.notes, touched), later, later); err != nil {
		t.Fatal(err)
	}
	// scanned, added (4 new, the rename's target), updated, unchanged (the
	// touch among them), removed (deleted, renamed away), failed
	want := [6]int{n + 3, 5, 2, n - 4, 2, 0}
	if got := f.sync(); counts(got) != want {
		t.Fatalf("sync after changes: %v, want %v", counts(got), want)
	}
	checks := []struct {
		query string
		want  []string
	}{
		{"nite", []string{sameSize}},
		{"qqgrownword", []string{grown}},
		{"qqaddedfirst", []string{"!first.md"}},
		{"qqaddedsecond", []string{"a/0-a.md.md"}},
		{"qqaddedthird", []string{"a.b/zz.md"}},
		{"qqaddedlast", []string{"zzz/last.md"}},
		{strings.Fields(files[gone])[3], nil},
		{strings.Fields(files[from])[3], []string{to}},
		{strings.Fields(files[touched])[3], []string{touched}},
	}
	for _, c := range checks {
		if got := f.paths(c.query); !slices.Equal(got, c.want) {
			t.Errorf("search %q = %v, want %v", c.query, got, c.want)
		}
	}
	// The index now lists paths out of path order; the next sync still
	// finds every file unchanged, and the stored states are the files'.
	if got := f.sync(); counts(got) != [6]int{n + 3, 0, 0, n + 3, 0, 0} {
		t.Fatalf("no-op sync after changes: %v, want all %d unchanged", counts(got), n+3)
	}
	states, err := f.eng.store.DocStates(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != n+3 {
		t.Fatalf("%d documents indexed, want %d", len(states), n+3)
	}
	for p, st := range states {
		fi, err := os.Stat(filepath.Join(f.notes, p))
		if err != nil {
			t.Fatalf("indexed %s: %v", p, err)
		}
		if fi.Size() != st.Size || fi.ModTime().UnixNano() != st.ModTime {
			t.Errorf("%s: indexed size %d mtime %d, file %d %d", p, st.Size, st.ModTime, fi.Size(), fi.ModTime().UnixNano())
		}
	}
}

// mergeStates pairs scanned files with indexed states by path: unchanged
// files are skipped, changed and new ones read (with their states when
// indexed), everything is read with readAll, and indexed paths without a
// file are returned as unseen, at either end and in between.
func TestMergeStates(t *testing.T) {
	file := func(p string, size int64) ingest.File { return ingest.File{Rel: p, Size: size, ModTime: 7} }
	files := []ingest.File{file("b", 1), file("c", 2), file("d", 3), file("f", 4)}
	states := []cairn.DocState{{Path: "a", Size: 1, ModTime: 7}, {Path: "b", Size: 1, ModTime: 7},
		{Path: "c", Size: 9, ModTime: 7}, {Path: "e", Size: 5, ModTime: 7}, {Path: "f", Size: 4, ModTime: 8}, {Path: "g"}}
	todo, known, unseen := mergeStates(files, states, false)
	rel := func(fs []ingest.File) (out []string) {
		for _, f := range fs {
			out = append(out, f.Rel)
		}
		return out
	}
	paths := func(ss []cairn.DocState) (out []string) {
		for _, s := range ss {
			out = append(out, s.Path)
		}
		return out
	}
	if got := rel(todo); !slices.Equal(got, []string{"c", "d", "f"}) {
		t.Errorf("todo %v, want [c d f]", got)
	}
	if len(known) != 2 || known["c"].Size != 9 || known["f"].ModTime != 8 {
		t.Errorf("known %v, want the states of c and f", known)
	}
	if got := paths(unseen); !slices.Equal(got, []string{"a", "e", "g"}) {
		t.Errorf("unseen %v, want [a e g]", got)
	}
	todo, known, unseen = mergeStates(files, states, true)
	if got := rel(todo); !slices.Equal(got, []string{"b", "c", "d", "f"}) || len(known) != 3 || len(unseen) != 3 {
		t.Errorf("readAll: todo %v, %d known, %d unseen; want every file, 3 and 3", got, len(known), len(unseen))
	}
	if todo, _, unseen := mergeStates(nil, states, false); len(todo) != 0 || len(unseen) != len(states) {
		t.Errorf("no files: todo %d, unseen %d; want 0 and %d", len(todo), len(unseen), len(states))
	}
}
