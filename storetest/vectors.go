package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestVectors checks the vector store: put, read back, replace, count per
// model identity, the version that changes with every write, chunk
// lookups for the vector lane, and vectors leaving with their chunks.
func TestVectors(t *testing.T, f Factory) {
	cases(t, f, []tcase{
		{"PendingChunks", testPendingChunks},
		{"PutEachCount", testVectorsRoundTrip},
		{"ReplaceAcrossIdentities", testVectorsReplace},
		{"Version", testVectorsVersion},
		{"ChunkLookups", testChunkLookups},
		{"CollectedWithChunks", testVectorsGC},
	})
}

// chunkIDs returns the searchable chunk ids of one document, in line
// order.
func chunkIDs(t *testing.T, s cairn.Storage, corpus, path string) []int64 {
	t.Helper()
	type row struct {
		id   int64
		line int
	}
	var ids []int64
	if err := s.ChunkDocs(context.Background(), func(id int64, c, p string) {
		if c == corpus && p == path {
			ids = append(ids, id)
		}
	}); err != nil {
		t.Fatalf("chunk docs: %v", err)
	}
	cands, err := s.Chunks(context.Background(), ids)
	if err != nil {
		t.Fatalf("chunks %v: %v", ids, err)
	}
	var rows []row
	for _, c := range cands {
		if c.Corpus == corpus && c.Path == path {
			rows = append(rows, row{c.ChunkID, c.StartLine})
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return a.line - b.line })
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.id
	}
	return out
}

// vectorsOf reads every vector of an identity, copied.
func vectorsOf(t *testing.T, s cairn.Storage, identity string) map[int64][]float32 {
	t.Helper()
	out := map[int64][]float32{}
	if err := s.EachVector(context.Background(), identity, func(id int64, v []float32) error {
		out[id] = slices.Clone(v)
		return nil
	}); err != nil {
		t.Fatalf("each vector of %s: %v", identity, err)
	}
	return out
}

func count(t *testing.T, what string, fn func(context.Context, string) (int, error), identity string) int {
	t.Helper()
	n, err := fn(context.Background(), identity)
	if err != nil {
		t.Fatalf("%s of %s: %v", what, identity, err)
	}
	return n
}

// testPendingChunks: the chunks without a vector of an identity, oldest
// first, noise left out, up to a limit; CountPending agrees.
func testPendingChunks(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	first := doc("n", "a.md", "alpha\n----\nbeta\n")
	first.Chunks[1].Noise = true
	apply(t, s, "n", []cairn.Document{first})
	apply(t, s, "n", []cairn.Document{doc("n", "b.md", "gamma\n")})
	pending := func(identity string, limit int) []string {
		t.Helper()
		ps, err := s.PendingChunks(ctx, identity, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ps {
			out = append(out, p.Text)
		}
		return out
	}
	if got := pending("id-1", 10); !equal(got, "alpha\n", "beta\n", "gamma\n") {
		t.Errorf("pending = %q, want the three searchable chunks, oldest first", got)
	}
	if got := pending("id-1", 2); !equal(got, "alpha\n", "beta\n") {
		t.Errorf("pending, limit 2 = %q", got)
	}
	ps, err := s.PendingChunks(ctx, "id-1", 1)
	if err != nil || len(ps) != 1 {
		t.Fatalf("pending, limit 1 = %v, %v", ps, err)
	}
	if err := s.PutVectors(ctx, "id-1", []int64{ps[0].ID}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if got := pending("id-1", 10); !equal(got, "beta\n", "gamma\n") {
		t.Errorf("pending after embedding alpha = %q", got)
	}
	if n := count(t, "pending", s.CountPending, "id-1"); n != 2 {
		t.Errorf("CountPending = %d, want 2 (what PendingChunks returns)", n)
	}
	if got := pending("id-2", 10); len(got) != 3 {
		t.Errorf("pending for another identity = %q, want all three", got)
	}
}

func testVectorsRoundTrip(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	d := doc("n", "a.md", "---\nalpha\nbeta\n")
	d.Chunks[0].Noise = true
	apply(t, s, "n", []cairn.Document{d})
	if n, err := s.CountEmbeddable(ctx); err != nil || n != 2 {
		t.Errorf("embeddable = %d, %v; want 2 (noise gets no vector)", n, err)
	}
	if n := count(t, "pending", s.CountPending, "id-1"); n != 2 {
		t.Errorf("pending = %d, want 2", n)
	}
	ids := chunkIDs(t, s, "n", "a.md")
	if len(ids) != 2 {
		t.Fatalf("searchable chunks of a.md = %v, want 2", ids)
	}
	want := map[int64][]float32{ids[0]: {0.6, -0.8, 0}, ids[1]: {-1e-7, 3.4e38, 1}}
	if err := s.PutVectors(ctx, "id-1", []int64{ids[0], ids[1]}, [][]float32{want[ids[0]], want[ids[1]]}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, vectorsOf(t, s, "id-1")); d != "" {
		t.Errorf("vectors read back (-want +got):\n%s", d)
	}
	var order []int64
	if err := s.EachVector(ctx, "id-1", func(id int64, _ []float32) error { order = append(order, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(order) {
		t.Errorf("EachVector walked chunks %v, want chunk id order", order)
	}
	stop := errors.New("stop")
	calls := 0
	if err := s.EachVector(ctx, "id-1", func(int64, []float32) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("EachVector with fn failing: %v after %d calls, want fn's error after 1", err, calls)
	}
	if n := count(t, "pending", s.CountPending, "id-1"); n != 0 {
		t.Errorf("pending after both = %d", n)
	}
	if n := count(t, "vectors", s.CountVectors, "id-1"); n != 2 {
		t.Errorf("vectors of id-1 = %d, want 2", n)
	}
	if n := count(t, "pending", s.CountPending, "id-2"); n != 2 {
		t.Errorf("another identity sees %d pending, want 2: vector spaces never mix", n)
	}
	if got := vectorsOf(t, s, "id-2"); len(got) != 0 {
		t.Errorf("another identity reads %v", got)
	}
	if err := s.PutVectors(ctx, "id-1", []int64{ids[0]}, [][]float32{{1}, {2}}); err == nil {
		t.Error("PutVectors with 1 id for 2 vectors succeeded")
	}
	if err := s.PutVectors(ctx, "id-1", nil, nil); err != nil {
		t.Errorf("PutVectors of nothing: %v", err)
	}
}

func testVectorsReplace(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	apply(t, s, "n", []cairn.Document{doc("n", "a.md", "alpha\nbeta\n")})
	ids := chunkIDs(t, s, "n", "a.md")
	put := func(identity string, id int64, v ...float32) {
		t.Helper()
		if err := s.PutVectors(ctx, identity, []int64{id}, [][]float32{v}); err != nil {
			t.Fatal(err)
		}
	}
	put("id-1", ids[0], 1, 0)
	put("id-1", ids[1], 0, 1)
	put("id-1", ids[0], 0.5, 0.5)
	if d := cmp.Diff(map[int64][]float32{ids[0]: {0.5, 0.5}, ids[1]: {0, 1}}, vectorsOf(t, s, "id-1")); d != "" {
		t.Errorf("after replacing (-want +got):\n%s", d)
	}
	// A new model's vector replaces the old model's for the same chunk.
	put("id-2", ids[0], 0, 0, 1)
	if n := count(t, "vectors", s.CountVectors, "id-1"); n != 1 {
		t.Errorf("id-1 vectors after id-2 replaced one = %d, want 1", n)
	}
	if d := cmp.Diff(map[int64][]float32{ids[0]: {0, 0, 1}}, vectorsOf(t, s, "id-2")); d != "" {
		t.Errorf("id-2 vectors (-want +got):\n%s", d)
	}
	if n := count(t, "pending", s.CountPending, "id-1"); n != 1 {
		t.Errorf("id-1 pending = %d, want 1", n)
	}
}

func testVectorsVersion(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	version := func() int64 {
		t.Helper()
		v, err := s.VectorsVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	apply(t, s, "n", []cairn.Document{doc("n", "a.md", "alpha\nbeta\n")})
	ids := chunkIDs(t, s, "n", "a.md")
	v0 := version()
	if err := s.PutVectors(ctx, "id-1", ids[:1], [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	v1 := version()
	if v1 == v0 {
		t.Error("storing a vector left the version as it was")
	}
	if err := s.PutVectors(ctx, "id-1", ids[:1], [][]float32{{0, 1}}); err != nil {
		t.Fatal(err)
	}
	v2 := version()
	if v2 == v1 {
		t.Error("replacing a vector left the version as it was")
	}
	apply(t, s, "n", []cairn.Document{doc("n", "b.md", "unrelated\n")})
	if version() != v2 {
		t.Error("a batch that wrote no vector changed the version")
	}
	apply(t, s, "n", nil, "a.md")
	gc(t, s)
	if version() == v2 {
		t.Error("collecting a chunk with a vector left the version as it was")
	}
}

func testChunkLookups(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("n", "a.md", "alpha\nbeta\n")
	apply(t, s, "n", []cairn.Document{a, doc("n", "copy.md", a.Text)})
	ids := chunkIDs(t, s, "n", "a.md")
	if got := chunkIDs(t, s, "n", "copy.md"); !slices.Equal(got, ids) {
		t.Errorf("a copy's chunks = %v, want the shared %v", got, ids)
	}
	cands, err := s.Chunks(ctx, []int64{ids[1], ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cands {
		got = append(got, fmt.Sprintf("%d %s/%s seq %d lines %d-%d", c.ChunkID, c.Corpus, c.Path, c.Seq, c.StartLine, c.EndLine))
	}
	slices.Sort(got) // in no particular order
	want := []string{
		fmt.Sprintf("%d n/a.md seq 0 lines 1-1", ids[0]), fmt.Sprintf("%d n/copy.md seq 0 lines 1-1", ids[0]),
		fmt.Sprintf("%d n/a.md seq 1 lines 2-2", ids[1]), fmt.Sprintf("%d n/copy.md seq 1 lines 2-2", ids[1]),
	}
	slices.Sort(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Chunks, one per document holding each (-want +got):\n%s", d)
	}
	texts, err := s.ChunkTexts(ctx, []int64{ids[0], ids[1], ids[1] + 1000})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[int64]string{ids[0]: "alpha\n", ids[1]: "beta\n"}, texts); d != "" {
		t.Errorf("ChunkTexts (-want +got):\n%s", d)
	}
	if c, err := s.Chunks(ctx, nil); err != nil || len(c) != 0 {
		t.Errorf("Chunks of none = %v, %v", c, err)
	}
	if m, err := s.ChunkTexts(ctx, nil); err != nil || len(m) != 0 {
		t.Errorf("ChunkTexts of none = %v, %v", m, err)
	}
}

func testVectorsGC(t *testing.T, s cairn.Storage) {
	ctx := context.Background()
	a := doc("n", "a.md", "alpha\nbeta\n")
	b := doc("n", "b.md", "gamma\n")
	apply(t, s, "n", []cairn.Document{a, doc("n", "copy.md", a.Text), b})
	ida, idb := chunkIDs(t, s, "n", "a.md"), chunkIDs(t, s, "n", "b.md")
	if err := s.PutVectors(ctx, "id-1", append(slices.Clone(ida), idb...), [][]float32{{1}, {2}, {3}}); err != nil {
		t.Fatal(err)
	}
	apply(t, s, "n", nil, "a.md", "b.md")
	gc(t, s)
	// a's content is still held by copy.md: its vectors stay.
	if d := cmp.Diff(map[int64][]float32{ida[0]: {1}, ida[1]: {2}}, vectorsOf(t, s, "id-1")); d != "" {
		t.Errorf("vectors after collecting b.md (-want +got):\n%s", d)
	}
	apply(t, s, "n", nil, "copy.md")
	gc(t, s)
	if n := count(t, "vectors", s.CountVectors, "id-1"); n != 0 {
		t.Errorf("%d vectors left after their chunks were collected", n)
	}
	if texts, _ := s.ChunkTexts(ctx, ida); len(texts) != 0 {
		t.Errorf("collected chunks still have text: %v", texts)
	}
	if cands, err := s.Chunks(ctx, ida); err != nil || len(cands) != 0 {
		t.Errorf("Chunks of collected ids = %+v, %v; want them left out", cands, err)
	}
}
