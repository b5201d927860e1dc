package sqlite

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// SortedFileStates is SortedDocStates with every hash empty, across page
// boundaries and with paths holding a NUL byte, a newline and multibyte
// UTF-8 (the pack travels as text); DocHashes gives the hashes of the
// paths asked that are indexed in that corpus, by lookups and, past
// docHashesLookups paths, from one read of the states.
func TestSortedFileStatesAndDocHashes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	defer func(p, l int) { docStatesPage, docHashesLookups = p, l }(docStatesPage, docHashesLookups)
	docStatesPage = 4
	paths := []string{"z.md", "nul\x00byte.md", "a.md", "line\nbreak.md", "ünï/cödé.md", strings.Repeat("deep/", 100) + "x.md",
		"b.md", "c.md", "d/e.md", "\xff\xfe.md"}
	for i, p := range paths {
		d := doc("notes", p, fmt.Sprintf("text %d of %s\n", i, p))
		d.ModTime = int64(i) - 3
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "work", Upserts: []cairn.Document{doc("work", "w.md", "work\n")}}); err != nil {
		t.Fatal(err)
	}
	full, err := s.SortedDocStates(ctx, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != len(paths) {
		t.Fatalf("SortedDocStates: %d documents, want %d", len(full), len(paths))
	}
	got, err := s.SortedFileStates(ctx, "notes")
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(full)
	for i := range want {
		want[i].Hash = ""
	}
	if !slices.Equal(got, want) {
		t.Fatalf("SortedFileStates:\n%+v\nwant\n%+v", got, want)
	}
	if got, err := s.SortedFileStates(ctx, "empty"); err != nil || len(got) != 0 {
		t.Fatalf("empty corpus: %v, %v", got, err)
	}
	ask := []string{"nul\x00byte.md", "a.md", "missing.md", "w.md", "\xff\xfe.md", "ünï/cödé.md"}
	wantHashes := map[string]string{}
	for _, d := range full {
		if slices.Contains(ask, d.Path) {
			wantHashes[d.Path] = d.Hash
		}
	}
	if len(wantHashes) != 4 {
		t.Fatalf("test setup: %d of the asked paths indexed, want 4", len(wantHashes))
	}
	for _, lookups := range []int{100, 2} { // each path looked up; one read of the states
		docHashesLookups = lookups
		h, err := s.DocHashes(ctx, "notes", ask)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(h, wantHashes) {
			t.Errorf("DocHashes with %d lookups at most: %q, want %q", lookups, h, wantHashes)
		}
	}
	if h, err := s.DocHashes(ctx, "notes", nil); err != nil || len(h) != 0 {
		t.Errorf("DocHashes of no paths: %v, %v", h, err)
	}
}
