package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// SortedDocStates returns what a plain row-by-row query returns, sorted by
// path in byte order, across page boundaries, with paths written out of
// order, odd bytes in paths (a newline, a tab, multibyte UTF-8, a long
// path), documents of other corpora left out, a removed document gone and
// a touched one's new size and mtime.
func TestSortedDocStatesMatchesRows(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	defer func(p int) { docStatesPage = p }(docStatesPage)
	docStatesPage = 3
	paths := []string{"z.md", "a/b.md", "a.md", "a/b/c.md", "line\nbreak.md", "tab\there.md", "ünï/cödé.md",
		strings.Repeat("long/", 200) + "x.md", "m.md", "b.md"}
	for i, p := range paths { // one batch each: ids in this (unsorted) order
		d := doc("notes", p, fmt.Sprintf("text %d of %s\n", i, p))
		d.ModTime = 1796147925289259939 + int64(i)
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{d}}); err != nil {
			t.Fatal(err)
		}
	}
	other := doc("work", "a.md", "other corpus\n")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "work", Upserts: []cairn.Document{other}}); err != nil {
		t.Fatal(err)
	}
	touch := cairn.DocState{Path: "m.md", Hash: doc("notes", "m.md", "text 8 of m.md\n").Hash, Size: 99, ModTime: -5}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Touch: []cairn.DocState{touch}, Remove: []string{"b.md"}}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT path, hash, size, mtime FROM documents WHERE corpus='notes'`)
	if err != nil {
		t.Fatal(err)
	}
	var want []cairn.DocState
	for rows.Next() {
		var d cairn.DocState
		if err := rows.Scan(&d.Path, &d.Hash, &d.Size, &d.ModTime); err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}
	rows.Close()
	slices.SortFunc(want, func(a, b cairn.DocState) int { return strings.Compare(a.Path, b.Path) })
	if len(want) != len(paths)-1 {
		t.Fatalf("reference query: %d documents, want %d", len(want), len(paths)-1)
	}
	got, err := s.SortedDocStates(ctx, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("SortedDocStates:\n%+v\nwant\n%+v", got, want)
	}
	m, err := s.DocStates(ctx, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != len(want) || m["m.md"] != touch {
		t.Fatalf("DocStates: %d documents, m.md %+v; want %d and %+v", len(m), m["m.md"], len(want), touch)
	}
	for _, c := range []string{"empty", ""} {
		if got, err := s.SortedDocStates(ctx, c); err != nil || len(got) != 0 {
			t.Fatalf("corpus %q: %v, %v; want none", c, got, err)
		}
	}
}

// A blob cut short is an error, never a partial list taken as the index.
func TestUnpackStatesRejectsCutRecords(t *testing.T) {
	for _, packed := range []string{"\x05\x00\x00", "\x05\x00\x00\x00ab", "\x01\x00\x00\x00a\x00\x00\x00\x00" + strings.Repeat("\x00", 15)} {
		if _, err := unpackStates(packed, nil); err == nil {
			t.Errorf("unpackStates(%q): no error", packed)
		}
	}
}

// The id bounds of the documents are two seeks, not a scan: as one query
// with both aggregates, SQLite read every entry of an index for them.
func TestDocIDBoundsSeek(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	for i := range 3 {
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{doc("notes", fmt.Sprintf("%d.md", i), fmt.Sprintf("text %d\n", i))}}); err != nil {
			t.Fatal(err)
		}
	}
	var lo, hi int64
	if err := s.r.QueryRowContext(ctx, docIDBoundsQuery).Scan(&lo, &hi); err != nil || hi-lo != 2 {
		t.Fatalf("bounds %d..%d, %v; want three ids apart by 2", lo, hi, err)
	}
	rows, err := s.r.QueryContext(ctx, `EXPLAIN QUERY PLAN `+docIDBoundsQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	searches := 0
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(detail, "SCAN documents") {
			t.Errorf("the id bounds scan the documents: %s", detail)
		}
		if strings.HasPrefix(detail, "SEARCH documents") {
			searches++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if searches != 2 {
		t.Errorf("the id bounds take %d seeks, want 2", searches)
	}
}
