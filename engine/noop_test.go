package engine

import (
	"context"
	"fmt"
	"os"
	"path"
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
	todo, known, unseen := mergeStates(files, states, nil, false)
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
	todo, known, unseen = mergeStates(files, states, nil, true)
	if got := rel(todo); !slices.Equal(got, []string{"b", "c", "d", "f"}) || len(known) != 3 || len(unseen) != 3 {
		t.Errorf("readAll: todo %v, %d known, %d unseen; want every file, 3 and 3", got, len(known), len(unseen))
	}
	if todo, _, unseen := mergeStates(nil, states, nil, false); len(todo) != 0 || len(unseen) != len(states) {
		t.Errorf("no files: todo %d, unseen %d; want 0 and %d", len(todo), len(unseen), len(states))
	}
	// States whose files the scan skipped as unchanged (a, e: as if their
	// files were found) are neither read nor unseen.
	skipped := []bool{true, false, false, true, false, false}
	todo, _, unseen = mergeStates(files, states, skipped, false)
	if got := rel(todo); !slices.Equal(got, []string{"c", "d", "f"}) || !slices.Equal(paths(unseen), []string{"g"}) {
		t.Errorf("with skipped states: todo %v, unseen %v; want [c d f] and [g]", got, paths(unseen))
	}
}

// unchangedSkip skips a file only when its path is indexed with the same
// size and mtime, marks the states it skipped, finds paths that come out
// of order (the next root of a corpus with several), and skips nothing
// when the states failed to load or every file is to be read again.
func TestUnchangedSkip(t *testing.T) {
	states := []cairn.DocState{{Path: "a/1.md", Size: 1, ModTime: 5}, {Path: "a/2.md", Size: 2, ModTime: 5},
		{Path: "b/1.md", Size: 3, ModTime: 5}, {Path: "b/2.md", Size: 4, ModTime: 5}}
	loaded := func(states []cairn.DocState, recorded string, err error) *stateLoad {
		l := &stateLoad{done: make(chan struct{}), states: states, recorded: recorded, err: err}
		close(l.done)
		return l
	}
	type ask struct {
		rel         string
		size, mtime int64
		want        bool
	}
	// Root "b" is walked before root "a"; a/0.md is new, b/2.md grew,
	// a/2.md was touched, c/1.md is new after every state.
	walk := []ask{{"b/1.md", 3, 5, true}, {"b/2.md", 5, 5, false}, {"a/0.md", 1, 5, false},
		{"a/1.md", 1, 5, true}, {"a/2.md", 2, 6, false}, {"c/1.md", 1, 5, false}}
	none := func() []ask {
		out := slices.Clone(walk)
		for i := range out {
			out[i].want = false
		}
		return out
	}
	cases := []struct {
		name    string
		load    *stateLoad
		asks    []ask
		skipped []bool
	}{
		{"two roots", loaded(states, "v"+redactVersion, nil), walk, []bool{true, false, true, false}},
		{"same states asked twice in a row", loaded(states, "v"+redactVersion, nil),
			[]ask{{"a/1.md", 1, 5, true}, {"a/1.md", 1, 5, false}, {"a/2.md", 2, 5, true}}, []bool{true, true, false, false}},
		{"next root begins at the last state passed", loaded(states, "v"+redactVersion, nil),
			[]ask{{"c/1.md", 1, 5, false}, {"b/2.md", 4, 5, true}, {"b/3.md", 4, 5, false}}, []bool{false, false, false, true}},
		{"load failed", loaded(nil, "", context.Canceled), none(), nil},
		{"other redaction state", loaded(states, "off", nil), none(), nil},
		{"empty index", loaded(nil, "", nil), none(), []bool{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &unchangedSkip{load: tc.load, want: "v" + redactVersion}
			n := 0
			for _, a := range tc.asks {
				dir, name := path.Split(a.rel)
				if got := s.skip(strings.TrimSuffix(dir, "/"), name, a.size, a.mtime); got != a.want {
					t.Errorf("skip(%s, %d, %d) = %v, want %v", a.rel, a.size, a.mtime, got, a.want)
				}
				if a.want {
					n++
				}
			}
			if !slices.Equal(s.skipped, tc.skipped) || s.n != n {
				t.Errorf("skipped %v (%d), want %v (%d)", s.skipped, s.n, tc.skipped, n)
			}
		})
	}
}

// comparePath orders a path against a folder and a name as against their
// joined path.
func TestComparePath(t *testing.T) {
	for _, tc := range []struct{ p, dir, name string }{
		{"a.md", "", "a.md"}, {"a.md", "", "b.md"}, {"b.md", "", "a.md"},
		{"a/b.md", "a", "b.md"}, {"a/b.md", "a", "c.md"}, {"a/c.md", "a", "b.md"},
		{"a", "a", "b.md"}, {"", "a", "b.md"}, {"a/", "a", "b.md"}, {"ab", "a", "b.md"},
		{"a.md", "a", "b.md"}, {"a-b/x.md", "a", "b.md"}, {"a0/x.md", "a", "b.md"},
		{"a/b.md/c", "a", "b.md"}, {"a/b", "a", "b.md"}, {"b", "a/b", "c.md"},
		{"a/b/c.md", "a/b", "c.md"}, {"a/a/z.md", "a/b", "c.md"}, {"x/y", "a/b", "c.md"},
	} {
		want := strings.Compare(tc.p, ingest.JoinRel(tc.dir, tc.name))
		if got := comparePath(tc.p, tc.dir, tc.name); got != want {
			t.Errorf("comparePath(%q, %q, %q) = %d, want %d", tc.p, tc.dir, tc.name, got, want)
		}
	}
}

// A corpus of two roots, listed in Paths in the reverse of their path
// order, syncs as a no-op when nothing changed and sees each change in
// either root: a grown file, a same-size edit with a new mtime, a deletion,
// a new file, a file moved from one root to the other.
func TestSyncSkipsUnchangedAcrossRoots(t *testing.T) {
	files := map[string]string{}
	for _, root := range []string{"b", "a"} {
		for i := range 20 {
			files[fmt.Sprintf("%s/d%d/n%02d.md", root, i%3, i)] = fmt.Sprintf("# %s %d\n\nqq%s%02dword here.\n", root, i, root, i)
		}
	}
	f := &fixture{t: t, notes: t.TempDir()}
	for p, text := range files {
		f.write(p, text)
	}
	notes := f.notes
	eng, err := Open(context.Background(), Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles,
		Paths: []string{filepath.Join(notes, "b"), filepath.Join(notes, "a")}, Glob: cairn.DefaultGlob}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	f.eng = eng
	n := len(files)
	if got := f.sync(); counts(got) != [6]int{n, n, 0, 0, 0, 0} {
		t.Fatalf("first sync: %v, want %d added", counts(got), n)
	}
	if got := f.sync(); counts(got) != [6]int{n, 0, 0, n, 0, 0} {
		t.Fatalf("no-op sync: %v, want all %d unchanged", counts(got), n)
	}
	grown, same, gone, moved := "a/d1/n04.md", "b/d2/n05.md", "b/d0/n00.md", "b/d1/n07.md"
	f.write(grown, files[grown]+"\nqqgrownword too.\n")
	f.write(same, strings.Replace(files[same], "here", "hare", 1))
	if err := os.Remove(filepath.Join(notes, gone)); err != nil {
		t.Fatal(err)
	}
	f.write("a/new.md", "# New\n\nqqnewword here.\n")
	if err := os.Rename(filepath.Join(notes, moved), filepath.Join(notes, "a/moved.md")); err != nil {
		t.Fatal(err)
	}
	// scanned, added (new, moved), updated (grown, same), unchanged,
	// removed (gone, moved away), failed
	if got, want := counts(f.sync()), [6]int{n, 2, 2, n - 4, 2, 0}; got != want {
		t.Fatalf("sync after changes: %v, want %v", got, want)
	}
	for q, want := range map[string][]string{"qqgrownword": {grown}, "hare": {same}, "qqb00word": nil,
		"qqnewword": {"a/new.md"}, "qqb07word": {"a/moved.md"}} {
		if got := f.paths(q); !slices.Equal(got, want) {
			t.Errorf("search %q = %v, want %v", q, got, want)
		}
	}
	if got := f.sync(); counts(got) != [6]int{n, 0, 0, n, 0, 0} {
		t.Fatalf("no-op sync after changes: %v, want all %d unchanged", counts(got), n)
	}
}
