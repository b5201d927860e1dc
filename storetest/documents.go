package storetest

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestDocuments checks the document half of cairn.Store: Apply's upserts,
// touches and removals, DocStates, HasContent, content shared by paths,
// GC and its counts, DocumentText and PruneCorpora.
func TestDocuments(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"UpsertAndStates", testUpsertAndStates},
		{"TouchKeepsContent", testTouch},
		{"RemoveLeavesSearchAtOnce", testRemove},
		{"SharedContent", testSharedContent},
		{"ContentWithoutChunks", testContentWithoutChunks},
		{"GCCounts", testGCCounts},
		{"PruneCorpora", testPruneCorpora},
	})
}

func testUpsertAndStates(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("notes", "a.md", "alpha walrus\nbeta\n")
	b := doc("notes", "dir/b.md", "gamma\n")
	w := doc("work", "a.md", "work alpha\n")
	apply(t, s, "notes", []cairn.Document{a, b})
	apply(t, s, "work", []cairn.Document{w})

	want := map[string]cairn.DocState{
		"a.md":     {Path: "a.md", Hash: a.Hash, Size: a.Size, ModTime: a.ModTime},
		"dir/b.md": {Path: "dir/b.md", Hash: b.Hash, Size: b.Size, ModTime: b.ModTime},
	}
	if d := cmp.Diff(want, docStates(t, s, "notes")); d != "" {
		t.Errorf("doc states of notes (-want +got):\n%s", d)
	}
	if got := docStates(t, s, "work"); len(got) != 1 || got["a.md"].Hash != w.Hash {
		t.Errorf("doc states of work = %v, want its one document: corpora keep their own paths", got)
	}
	if got := docStates(t, s, "nothing"); len(got) != 0 {
		t.Errorf("doc states of an unknown corpus = %v, want none", got)
	}
	if got, _ := text(t, s, "notes", "a.md"); got != a.Text {
		t.Errorf("text of notes/a.md = %q, want %q", got, a.Text)
	}
	if got, _ := text(t, s, "work", "a.md"); got != w.Text {
		t.Errorf("text of work/a.md = %q, want %q", got, w.Text)
	}
	if _, ok := text(t, s, "notes", "missing.md"); ok {
		t.Error("text of a missing document found")
	}
	if _, err := s.DocumentText(ctx, "notes", "missing.md"); err == nil {
		t.Error("DocumentText of a missing document returned no error")
	}

	// An upsert of a new text replaces the document's content.
	a2 := doc("notes", "a.md", "alpha narwhal\n")
	a2.ModTime++
	apply(t, s, "notes", []cairn.Document{a2})
	if got := docStates(t, s, "notes")["a.md"]; got != (cairn.DocState{Path: "a.md", Hash: a2.Hash, Size: a2.Size, ModTime: a2.ModTime}) {
		t.Errorf("state after the update = %+v", got)
	}
	if got, _ := text(t, s, "notes", "a.md"); got != a2.Text {
		t.Errorf("text after the update = %q, want %q", got, a2.Text)
	}
	if got := paths(t, s, q(term("walrus"))); len(got) != 0 {
		t.Errorf("the old text is still found: %v", got)
	}
	if got := paths(t, s, q(term("narwhal"))); !equal(got, "notes/a.md") {
		t.Errorf("the new text is found at %v, want notes/a.md", got)
	}

	has, err := s.HasContent(ctx, []string{a.Hash, a2.Hash, b.Hash, hashOf("never stored"), a2.Hash})
	if err != nil {
		t.Fatal(err)
	}
	// a's content is unreferenced but stays until GC.
	if d := cmp.Diff(map[string]bool{a.Hash: true, a2.Hash: true, b.Hash: true}, trueOnly(has)); d != "" {
		t.Errorf("HasContent (-want +got):\n%s", d)
	}
	if has, err := s.HasContent(ctx, nil); err != nil || len(trueOnly(has)) != 0 {
		t.Errorf("HasContent of no hashes = %v, %v", has, err)
	}
}

func testTouch(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("notes", "a.md", "alpha walrus\n")
	apply(t, s, "notes", []cairn.Document{a})
	touched := cairn.DocState{Path: "a.md", Hash: a.Hash, Size: a.Size + 10, ModTime: a.ModTime + 5}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Touch: []cairn.DocState{touched}}); err != nil {
		t.Fatal(err)
	}
	if got := docStates(t, s, "notes")["a.md"]; got != touched {
		t.Errorf("state after touch = %+v, want %+v", got, touched)
	}
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("a touched document is found at %v, want notes/a.md", got)
	}
	if n := gc(t, s); n != 0 {
		t.Errorf("gc after a touch collected %d, want 0", n)
	}
	// Touching a path that is not indexed adds nothing.
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Touch: []cairn.DocState{{Path: "ghost.md", Hash: a.Hash, Size: 1}}}); err != nil {
		t.Fatalf("touch of an unindexed path: %v", err)
	}
	if got := docStates(t, s, "notes"); len(got) != 1 {
		t.Errorf("touching an unindexed path added a document: %v", got)
	}
}

func testRemove(t *testing.T, s cairn.Storage) {
	a := doc("notes", "a.md", "alpha walrus\n")
	b := doc("notes", "b.md", "beta walrus\n")
	apply(t, s, "notes", []cairn.Document{a, b})
	apply(t, s, "notes", nil, "a.md", "never-indexed.md")
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/b.md") {
		t.Errorf("after removing a.md, walrus is found at %v, want notes/b.md only (before any GC)", got)
	}
	if _, ok := text(t, s, "notes", "a.md"); ok {
		t.Error("a removed document's text is still read")
	}
	if got := docStates(t, s, "notes"); len(got) != 1 || got["b.md"].Hash != b.Hash {
		t.Errorf("doc states after removal = %v", got)
	}
	if n := gc(t, s); n != 1 {
		t.Errorf("gc collected %d, want 1 (a.md's content)", n)
	}
	if n := gc(t, s); n != 0 {
		t.Errorf("a second gc collected %d, want 0", n)
	}
	if has, _ := s.HasContent(context.Background(), []string{a.Hash, b.Hash}); has[a.Hash] || !has[b.Hash] {
		t.Errorf("HasContent after gc = %v, want only b.md's", has)
	}
}

func testSharedContent(t *testing.T, s cairn.Storage) {
	a := doc("notes", "a.md", "shared walrus\n")
	copyA := doc("notes", "copy.md", a.Text)
	other := doc("work", "w.md", a.Text)
	apply(t, s, "notes", []cairn.Document{a, copyA})
	apply(t, s, "work", []cairn.Document{other})
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md", "notes/copy.md", "work/w.md") {
		t.Errorf("shared content is found at %v, want each of its three documents", got)
	}
	apply(t, s, "notes", nil, "a.md")
	if n := gc(t, s); n != 0 {
		t.Errorf("gc collected %d while two documents hold the content, want 0", n)
	}
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/copy.md", "work/w.md") {
		t.Errorf("after removing one copy: %v", got)
	}
	if got, ok := text(t, s, "work", "w.md"); !ok || got != a.Text {
		t.Errorf("text of the other copy = %q, %v", got, ok)
	}
	apply(t, s, "notes", nil, "copy.md")
	apply(t, s, "work", nil, "w.md")
	if n := gc(t, s); n != 1 {
		t.Errorf("gc after the last copy went collected %d, want 1", n)
	}
	if got := paths(t, s, q(term("walrus"))); len(got) != 0 {
		t.Errorf("collected content still found: %v", got)
	}
}

// testContentWithoutChunks: a document that names stored content needs no
// chunks (a rename or copy); one that names content nobody stored is
// refused, and its batch writes nothing.
func testContentWithoutChunks(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("notes", "a.md", "alpha walrus\nbeta\n")
	apply(t, s, "notes", []cairn.Document{a})
	renamed := a
	renamed.Path, renamed.Chunks = "renamed.md", nil
	apply(t, s, "notes", []cairn.Document{renamed}, "a.md")
	got := lexical(t, s, q(term("beta")))
	if len(got.Candidates) != 1 || got.Candidates[0].Path != "renamed.md" || got.Candidates[0].StartLine != 2 ||
		got.Candidates[0].Text != "beta\n" {
		t.Errorf("after the rename, beta = %+v, want renamed.md line 2 with its text", got.Candidates)
	}
	if n := gc(t, s); n != 0 {
		t.Errorf("gc after a rename collected %d, want 0", n)
	}

	ghost := cairn.Document{Path: "ghost.md", Hash: hashOf("never stored"), Size: 3}
	fine := doc("notes", "fine.md", "fine text\n")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{fine, ghost}}); err == nil {
		t.Error("Apply of unknown content without chunks succeeded")
	}
	if st := docStates(t, s, "notes"); len(st) != 1 {
		t.Errorf("a failed batch left documents: %v, want renamed.md only", st)
	}
	if got := paths(t, s, q(term("fine"))); len(got) != 0 {
		t.Errorf("a failed batch's document is found: %v", got)
	}
}

func testGCCounts(t *testing.T, s cairn.Storage) {
	if n := gc(t, s); n != 0 {
		t.Errorf("gc of an empty store collected %d", n)
	}
	var docs []cairn.Document
	for _, txt := range []string{"one\n", "two\n", "three\n", "four\n"} {
		docs = append(docs, doc("notes", txt[:len(txt)-1]+".md", txt))
	}
	apply(t, s, "notes", docs)
	if n := gc(t, s); n != 0 {
		t.Errorf("gc with every content referenced collected %d", n)
	}
	// Replace one, remove two: three contents unreferenced.
	apply(t, s, "notes", []cairn.Document{doc("notes", "one.md", "one again\n")}, "two.md", "three.md")
	if n := gc(t, s); n != 3 {
		t.Errorf("gc collected %d, want 3", n)
	}
	if got := paths(t, s, q(anyOf(term("one"), term("two"), term("three"), term("four")))); !equal(got, "notes/four.md", "notes/one.md") {
		t.Errorf("after gc: %v", got)
	}
}

func testPruneCorpora(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	for _, c := range []string{"a", "b", "c"} {
		apply(t, s, c, []cairn.Document{doc(c, "x.md", "pruned "+c+"\n"), doc(c, "y.md", "kept "+c+"\n")})
	}
	n, err := s.PruneCorpora(ctx, []string{"b"})
	if err != nil || n != 4 {
		t.Errorf("PruneCorpora(keep b) = %d, %v; want 4 documents", n, err)
	}
	if got := paths(t, s, q(term("kept"))); !equal(got, "b/y.md") {
		t.Errorf("after pruning: %v, want b's document only", got)
	}
	if st := docStates(t, s, "a"); len(st) != 0 {
		t.Errorf("pruned corpus a still has %v", st)
	}
	if n, err := s.PruneCorpora(ctx, []string{"b"}); err != nil || n != 0 {
		t.Errorf("pruning again = %d, %v; want 0", n, err)
	}
	if n := gc(t, s); n != 4 {
		t.Errorf("gc after pruning collected %d, want 4", n)
	}
	if n, err := s.PruneCorpora(ctx, nil); err != nil || n != 2 {
		t.Errorf("PruneCorpora(keep nothing) = %d, %v; want the last 2", n, err)
	}
}

func trueOnly(m map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		if v {
			out[k] = true
		}
	}
	return out
}
