package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestMaintenance checks cairn.Maintainer and the small state the engine
// keeps beside the index (cairn.Storage): the GC marker, counts, the
// per-corpus redaction and projection keys, MarkStale, HasMemories, and
// that the integrity checks pass and repairs keep results on a sound
// store.
func TestMaintenance(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"GCPendingMarker", testGCPending},
		{"StatsAndChunkCount", testStats},
		{"CorpusKeys", testCorpusKeys},
		{"MarkStale", testMarkStale},
		{"HasMemories", testHasMemories},
		{"ChecksPassWhenSound", testChecks},
		{"StraysAndRepairs", testStraysAndRepairs},
	})
}

// testGCPending: a write that can orphan content (an update to a new
// hash, a removal, a prune) leaves GC due; one that cannot (a new
// document, the same content again) does not; GC clears it.
func testGCPending(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	pending := func() bool {
		t.Helper()
		p, err := s.GCPending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	gc(t, s)
	if pending() {
		t.Error("GC left GC due")
	}
	a := doc("notes", "a.md", "alpha walrus\n")
	apply(t, s, "notes", []cairn.Document{a})
	if pending() {
		t.Error("adding a document left GC due")
	}
	apply(t, s, "notes", []cairn.Document{a})
	if pending() {
		t.Error("writing the same content again left GC due")
	}
	apply(t, s, "notes", []cairn.Document{doc("notes", "a.md", "alpha narwhal\n")})
	if !pending() {
		t.Error("replacing a document's content left GC not due")
	}
	if n := gc(t, s); n != 1 || pending() {
		t.Errorf("gc collected %d (want 1), pending %v", n, pending())
	}
	apply(t, s, "notes", nil, "gone.md")
	if pending() {
		t.Error("removing a document that was never indexed left GC due")
	}
	apply(t, s, "notes", nil, "a.md")
	if !pending() {
		t.Error("a removal left GC not due")
	}
	gc(t, s)
	apply(t, s, "work", []cairn.Document{doc("work", "w.md", "work text\n")})
	if n, err := s.PruneCorpora(ctx, []string{"notes"}); err != nil || n != 1 || !pending() {
		t.Errorf("prune: %d, %v, pending %v", n, err, pending())
	}
	if n := gc(t, s); n != 1 || pending() {
		t.Errorf("gc after prune collected %d (want 1), pending %v", n, pending())
	}
}

func testStats(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("notes", "a.md", "one\n---\ntwo\n")
	a.Chunks[1].Noise = true
	apply(t, s, "notes", []cairn.Document{a, doc("notes", "copy.md", a.Text), doc("notes", "b.md", "three\n")})
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 3 || st.Contents != 2 || st.Chunks != 4 || st.Bytes <= 0 {
		t.Errorf("stats = %+v, want 3 documents, 2 contents, 4 chunks (noise is stored), some bytes", st)
	}
	if n, err := s.ChunkCount(ctx); err != nil || n != 4 {
		t.Errorf("ChunkCount = %d, %v; want 4", n, err)
	}
	apply(t, s, "notes", nil, "b.md")
	gc(t, s)
	if st, err := s.Stats(ctx); err != nil || st.Documents != 2 || st.Contents != 1 || st.Chunks != 3 {
		t.Errorf("stats after collecting b.md = %+v, %v", st, err)
	}
}

func testCorpusKeys(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	get := func(what string, fn func(context.Context, string) (string, error), corpus string) string {
		t.Helper()
		v, err := fn(ctx, corpus)
		if err != nil {
			t.Fatalf("%s of %s: %v", what, corpus, err)
		}
		return v
	}
	if v := get("redact state", s.RedactState, "notes"); v != "" {
		t.Errorf("redact state before any = %q", v)
	}
	if v := get("projection key", s.ProjectionKey, "sessions"); v != "" {
		t.Errorf("projection key before any = %q", v)
	}
	for _, step := range []struct{ corpus, redact, projection string }{
		{"notes", "v3:on", "p1"}, {"work", "off", "p2"}, {"notes", "v4:on", "p3"},
	} {
		if err := s.SetRedactState(ctx, step.corpus, step.redact); err != nil {
			t.Fatal(err)
		}
		if err := s.SetProjectionKey(ctx, step.corpus, step.projection); err != nil {
			t.Fatal(err)
		}
	}
	got := []string{get("redact state", s.RedactState, "notes"), get("redact state", s.RedactState, "work"),
		get("projection key", s.ProjectionKey, "notes"), get("projection key", s.ProjectionKey, "work")}
	if d := cmp.Diff([]string{"v4:on", "off", "p3", "p2"}, got); d != "" {
		t.Errorf("keys per corpus, the last write winning (-want +got):\n%s", d)
	}
	if v := get("redact state", s.RedactState, "sessions"); v != "" {
		t.Errorf("redact state of sessions, never set = %q", v)
	}
}

func testMarkStale(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("notes", "a.md", "walrus\n")
	apply(t, s, "notes", []cairn.Document{a})
	before := docStates(t, s, "notes")["a.md"]
	if err := s.MarkStale(ctx, "notes", "a.md"); err != nil {
		t.Fatal(err)
	}
	after := docStates(t, s, "notes")["a.md"]
	if after.Hash != before.Hash || after.ModTime == before.ModTime && after.Size == before.Size {
		t.Errorf("after MarkStale: %+v, was %+v; want the same hash and a size or mtime no file has", after, before)
	}
	if got := paths(t, s, q(term("walrus"))); !equal(got, "notes/a.md") {
		t.Errorf("a stale document is found at %v", got)
	}
	if err := s.MarkStale(ctx, "notes", "missing.md"); err != nil {
		t.Errorf("MarkStale of a path not indexed: %v", err)
	}
	if st := docStates(t, s, "notes"); len(st) != 1 {
		t.Errorf("MarkStale of a path not indexed added it: %v", keys(st))
	}
}

func testHasMemories(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	if has, err := s.HasMemories(ctx); err != nil || has {
		t.Errorf("HasMemories on an empty store = %v, %v", has, err)
	}
	commit(t, s, cairn.WindowCommit{Records: []string{"r"}, Memories: []cairn.Memory{memory("m", "fact", "r")}})
	if has, err := s.HasMemories(ctx); err != nil || !has {
		t.Errorf("HasMemories after a commit = %v, %v", has, err)
	}
}

func testChecks(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	fill(t, s)
	gc(t, s)
	if err := s.QuickCheck(ctx); err != nil {
		t.Errorf("QuickCheck of a sound store: %v", err)
	}
	if err := s.CheckFTS(ctx); err != nil {
		t.Errorf("CheckFTS of a sound store: %v", err)
	}
	if f := s.CheckDurable(ctx); f.Problem {
		t.Errorf("CheckDurable of a sound store: %+v", f)
	}
	if st, err := s.FindStrays(ctx); err != nil || st.Total() != 0 {
		t.Errorf("strays of a sound store after GC = %+v, %v", st, err)
	}
	plain := errors.New("plain failure")
	if err := s.Diagnose("read index", plain); !errors.Is(err, plain) {
		t.Errorf("Diagnose of an ordinary error = %v, want it back", err)
	}
	if err := s.Diagnose("read index", nil); err != nil {
		t.Errorf("Diagnose(nil) = %v", err)
	}
}

// testStraysAndRepairs: content a removal left is a stray until GC;
// rebuilding and optimizing the lexical index keep every result.
func testStraysAndRepairs(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	fill(t, s)
	if st, err := s.FindStrays(ctx); err != nil || st.Content != 1 || st.Total() != 1 {
		t.Errorf("strays before GC = %+v, %v; want the 1 content a removal left", st, err)
	}
	gc(t, s)
	if n, err := s.DeleteStrayVectors(ctx); err != nil || n != 0 {
		t.Errorf("DeleteStrayVectors on a clean store = %d, %v", n, err)
	}
	query := q(anyOf(term("walrus"), term("durable"), term("talk")))
	before := lexical(t, s, query)
	if len(before.Candidates) == 0 {
		t.Fatal("fixture: nothing found")
	}
	if err := s.RebuildFTS(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, lexical(t, s, query)); d != "" {
		t.Errorf("after RebuildFTS (-before +after):\n%s", d)
	}
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, lexical(t, s, query)); d != "" {
		t.Errorf("after Optimize (-before +after):\n%s", d)
	}
	if sp, err := s.Span(ctx); err != nil || sp.Rows != int64(spanRows(t, s)) {
		t.Errorf("span after the repairs = %+v, %v", sp, err)
	}
}

// spanRows counts the searchable chunks through ChunkDocs (each chunk
// once, whatever holds it).
func spanRows(t *testing.T, s cairn.Storage) int {
	t.Helper()
	seen := map[int64]bool{}
	if err := s.ChunkDocs(context.Background(), func(id int64, _, _ string) { seen[id] = true }); err != nil {
		t.Fatal(err)
	}
	return len(seen)
}
