package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// fixture is a notes directory and an engine over it.
type fixture struct {
	t     *testing.T
	notes string
	eng   *Engine
}

func newFixture(t *testing.T, files map[string]string, opts Options) *fixture {
	t.Helper()
	f := &fixture{t: t, notes: t.TempDir()}
	for name, text := range files {
		f.write(name, text)
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Corpora == nil {
		opts.Corpora = []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{f.notes}, Glob: cairn.DefaultGlob}}
	}
	eng, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	f.eng = eng
	return f
}

func (f *fixture) write(name, text string) {
	f.t.Helper()
	p := filepath.Join(f.notes, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
	// Distinct mtimes so size+mtime checks see every edit.
	bump := time.Now().Add(time.Duration(len(text)) * time.Millisecond)
	os.Chtimes(p, bump, bump)
}

func (f *fixture) sync() cairn.CorpusSyncResult {
	f.t.Helper()
	res, err := f.eng.Sync(context.Background(), nil)
	if err != nil {
		f.t.Fatalf("Sync: %v", err)
	}
	if len(res.Corpora) != 1 {
		f.t.Fatalf("Sync returned %d corpora, want 1", len(res.Corpora))
	}
	r := res.Corpora[0]
	r.Failures = nil
	return r
}

func (f *fixture) paths(query string) []string {
	f.t.Helper()
	hits, err := f.eng.Search(context.Background(), query, &cairn.SearchOptions{Limit: 20})
	if err != nil {
		f.t.Fatalf("Search(%q): %v", query, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, strings.TrimPrefix(h.Path, "cairn://notes/"))
	}
	return out
}

func counts(r cairn.CorpusSyncResult) [6]int {
	return [6]int{r.Scanned, r.Added, r.Updated, r.Unchanged, r.Removed, r.Failed}
}

func TestSyncLifecycle(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md":     "# Alpha\n\nThe walrus guards the database migration.\n",
		"b.md":     "# Beta\n\nPelicans prefer the staging cluster.\n",
		"sub/c.md": "# Gamma\n\nA note about kerosene lamps.\n",
		"skip.txt": "walrus in a text file is not indexed\n",
	}, Options{})

	steps := []struct {
		name   string
		change func()
		want   [6]int // scanned, added, updated, unchanged, removed, failed
		query  string
		found  []string
	}{
		{"first sync", func() {}, [6]int{3, 3, 0, 0, 0, 0}, "walrus", []string{"a.md"}},
		{"nothing changed", func() {}, [6]int{3, 0, 0, 3, 0, 0}, "pelicans", []string{"b.md"}},
		{"modify", func() { f.write("a.md", "# Alpha\n\nThe narwhal guards the database migration now.\n") },
			[6]int{3, 0, 1, 2, 0, 0}, "walrus", nil},
		{"modified text searchable", func() {}, [6]int{3, 0, 0, 3, 0, 0}, "narwhal", []string{"a.md"}},
		{"delete", func() { os.Remove(filepath.Join(f.notes, "b.md")) }, [6]int{2, 0, 0, 2, 1, 0}, "pelicans", nil},
		{"rename", func() { os.Rename(filepath.Join(f.notes, "sub/c.md"), filepath.Join(f.notes, "sub/d.md")) },
			[6]int{2, 1, 0, 1, 1, 0}, "kerosene", []string{"sub/d.md"}},
		{"touch without change", func() {
			later := time.Now().Add(time.Hour)
			os.Chtimes(filepath.Join(f.notes, "a.md"), later, later)
		}, [6]int{2, 0, 0, 2, 0, 0}, "narwhal", []string{"a.md"}},
	}
	for _, s := range steps {
		s.change()
		got := f.sync()
		if counts(got) != s.want {
			t.Fatalf("%s: counts (scanned, added, updated, unchanged, removed, failed) = %v, want %v", s.name, counts(got), s.want)
		}
		if s.name == "rename" && got.Chunks != 0 {
			t.Errorf("rename re-chunked %d chunks; content rows should be reused", got.Chunks)
		}
		if paths := f.paths(s.query); strings.Join(paths, ",") != strings.Join(s.found, ",") {
			t.Fatalf("%s: search %q = %v, want %v", s.name, s.query, paths, s.found)
		}
	}
	st, err := f.eng.store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 2 || st.Contents != 2 {
		t.Errorf("after GC: %d documents, %d contents; want 2 and 2", st.Documents, st.Contents)
	}
}

func TestSyncBadFiles(t *testing.T) {
	f := newFixture(t, map[string]string{
		"good.md":  "# Good\n\nMarmalade recipe with oranges.\n",
		"later.md": "# Later\n\nQuartz watch repair notes.\n",
	}, Options{MaxFileSize: 1000})
	if got := f.sync(); got.Added != 2 {
		t.Fatalf("first sync added %d, want 2", got.Added)
	}
	f.write("binary.md", "PK\x00\x03 zip bytes")
	f.write("big.md", strings.Repeat("oversized line of text\n", 100))
	if err := os.Symlink(filepath.Join(f.notes, "missing-target.md"), filepath.Join(f.notes, "dangling.md")); err != nil {
		t.Fatal(err)
	}
	// A file that was indexed and turns binary keeps its indexed snapshot.
	f.write("later.md", "\x00\x01\x02 quartz garbage")

	res, err := f.eng.Sync(context.Background(), nil)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	r := res.Corpora[0]
	reasons := map[string]string{}
	for _, fl := range r.Failures {
		reasons[fl.Path] = fl.Reason
	}
	for path, want := range map[string]string{"binary.md": "not text", "big.md": "too large", "dangling.md": "symlink", "later.md": "not text"} {
		if !strings.Contains(reasons[path], want) {
			t.Errorf("failure for %s = %q, want it to mention %q (all: %v)", path, reasons[path], want, reasons)
		}
	}
	if r.Failed != len(r.Failures) || r.Failed != 4 {
		t.Errorf("Failed = %d with %d failures listed, want 4", r.Failed, len(r.Failures))
	}
	if got := f.paths("quartz"); len(got) != 1 || got[0] != "later.md" {
		t.Errorf("search quartz = %v: the previously indexed snapshot should stay", got)
	}
	if got := f.paths("marmalade"); len(got) != 1 {
		t.Errorf("search marmalade = %v: good files should stay indexed", got)
	}
}

func TestFeatureVersionChangeEmptiesIndex(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, map[string]string{"a.md": "# A\n\nzeppelin\n"}, Options{Dir: dir})
	f.sync()
	f.eng.Close(context.Background())

	old := FeatureVersion
	FeatureVersion = old + "-test"
	t.Cleanup(func() { FeatureVersion = old })
	eng, err := Open(context.Background(), Options{Dir: dir, Corpora: f.eng.Corpora()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	if !eng.Reindexed() {
		t.Fatal("Reindexed() = false after a feature version change")
	}
	hits, err := eng.Search(context.Background(), "zeppelin", nil)
	if err != nil || len(hits) != 0 {
		t.Fatalf("search after reset = %v, %v; want no hits until the next sync", hits, err)
	}
	res, err := eng.Sync(context.Background(), nil)
	if err != nil || res.Corpora[0].Added != 1 {
		t.Fatalf("resync = %+v, %v; want the file added again", res, err)
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no dir", Options{}},
		{"duplicate corpus", Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{{Name: "a"}, {Name: "a"}}}},
		{"blank corpus", Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{{Name: ""}}}},
	}
	for _, tt := range tests {
		if _, err := Open(context.Background(), tt.opts); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("%s: Open error = %v, want ErrInvalid", tt.name, err)
		}
	}
}

func TestSyncMissingRootKeepsDocuments(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# A\n\nobsidian vault note\n"}, Options{})
	f.sync()
	moved := f.notes + "-moved"
	if err := os.Rename(f.notes, moved); err != nil {
		t.Fatal(err)
	}
	res, err := f.eng.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Corpora[0]
	if r.Removed != 0 || r.Failed != 1 || r.Failures[0].Reason != ReasonRootMissing {
		t.Fatalf("missing root: %+v; want nothing removed and one failure", r)
	}
	if got := f.paths("obsidian"); len(got) != 1 {
		t.Fatalf("search after the root vanished = %v, want the kept document", got)
	}
	os.Rename(moved, f.notes)
	if got := f.sync(); got.Unchanged != 1 || got.Failed != 0 {
		t.Fatalf("root back: %+v", got)
	}
}
