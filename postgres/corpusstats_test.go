package postgres

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// TestCorpusStats: under a corpus grant the engine's IndexStats counts
// the granted corpora's documents, contents and chunks on PostgreSQL and
// Citus as it does on SQLite (the same folders synced into each); a
// content two corpora share counts once. Before, a scoped token read 0
// chunks on the servers (no CorpusStats: counted through DocStates).
func TestCorpusStats(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{
		"notes/a.md": "# Walrus\n\nThe walrus hauls out on the ice.\n\n## Seals\n\nGrey seals of the north sea.\n",
		"notes/b.md": "# Floe\n\nA floe drifts south.\n",
		"notes/c.md": "# Shared\n\nThe same text in two corpora.\n",
		"todo/c.md":  "# Shared\n\nThe same text in two corpora.\n",
		"todo/d.md":  "# Todo\n\nFeed the walrus.\n\n## Later\n\nCount the seals.\n",
		"other/e.md": "# Other\n\nNothing granted.\n",
		"other/f.md": "# Other two\n\nStill nothing granted.\n",
	}
	for p, text := range files {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var corpora []cairn.Corpus
	for _, c := range []string{"notes", "todo", "other"} {
		corpora = append(corpora, cairn.Corpus{Name: c, Kind: cairn.KindFiles, Paths: []string{filepath.Join(root, c)}, Glob: "**/*.md"})
	}
	open := func(b cairn.Backend) *engine.Engine {
		e, err := local.Open(ctx, engine.Options{Dir: t.TempDir(), Backend: b, Embedder: hashembed.Embedder{}, Corpora: corpora})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close(ctx) })
		if _, err := e.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		return e
	}
	lite := open(nil)
	grants := []struct {
		name string
		read []string
	}{
		{"notes", []string{"notes"}},
		{"todo", []string{"TODO"}}, // names match ignoring case
		{"notes and todo (one shared content)", []string{"notes", "todo"}},
		{"nothing", []string{}},
	}
	want := map[string]cairn.IndexStats{}
	for _, g := range grants {
		st, err := lite.IndexStats(engine.WithScope(ctx, engine.Scope{Grant: g.name, Read: g.read}))
		if err != nil {
			t.Fatal(err)
		}
		want[g.name] = st
	}
	// The fixture's own counts: the shared content once, chunks from it.
	if w, n, td := want["notes and todo (one shared content)"], want["notes"], want["todo"]; w.Documents != 5 || w.Contents != 4 ||
		n.Chunks == 0 || td.Chunks == 0 || w.Chunks >= n.Chunks+td.Chunks {
		t.Fatalf("SQLite under grants: notes %+v, todo %+v, both %+v; want 5 documents and 4 contents for both, chunks in each, the shared content's once", n, td, w)
	}
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		t.Run(srv.name, func(t *testing.T) {
			b := testBackend(t, srv.env, "cairn_corpusstats")
			b.Agent, b.HNSW = "stats", false
			e := open(b)
			for _, g := range grants {
				got, err := e.IndexStats(engine.WithScope(ctx, engine.Scope{Grant: g.name, Read: g.read}))
				if err != nil || got != want[g.name] {
					t.Errorf("IndexStats under a grant of %s = %+v, %v; want SQLite's %+v", g.name, got, err, want[g.name])
				}
			}
			all, err := e.IndexStats(ctx)
			if err != nil || all.Documents != len(files) || all.Bytes == 0 {
				t.Errorf("IndexStats without a scope = %+v, %v; want %d documents and a size", all, err, len(files))
			}
		})
	}
}

// TestCountPendingIn: the chunks of some corpora without a vector of an
// identity, each once (a content two corpora share), noise left out,
// other identities' vectors not counted, other corpora's chunks not
// counted.
func TestCountPendingIn(t *testing.T) {
	for _, srv := range []struct{ name, env string }{{"postgres", "CAIRN_TEST_POSTGRES_URL"}, {"citus", "CAIRN_TEST_CITUS_URL"}} {
		t.Run(srv.name, func(t *testing.T) {
			b := testBackend(t, srv.env, "cairn_pendingin")
			ctx := context.Background()
			b.HNSW = false
			s := openTest(t, b, "pending")
			doc := func(corpus, path, text string, noise bool) cairn.Document {
				d := testDoc(path, text)
				d.Corpus, d.Hash = corpus, "h-"+text
				d.Chunks = []cairn.Chunk{{Seq: 0, Pos: 0, Len: 5, StartLine: 1, EndLine: 1}, {Seq: 1, Pos: 5, Len: len(text) - 5, StartLine: 1, EndLine: 1, Noise: noise}}
				return d
			}
			for _, batch := range []cairn.Batch{
				{Corpus: "notes", Upserts: []cairn.Document{doc("notes", "a.md", "walrus seal", false), doc("notes", "s.md", "shared text", true)}},
				{Corpus: "todo", Upserts: []cairn.Document{doc("todo", "s.md", "shared text", true), doc("todo", "d.md", "feed walrus", false)}},
				{Corpus: "other", Upserts: []cairn.Document{doc("other", "o.md", "other notes", false)}},
			} {
				if err := s.Apply(ctx, &batch); err != nil {
					t.Fatal(err)
				}
			}
			// Seven indexed chunks: a.md's two, s.md's first (its second
			// is noise; notes and todo share the content), d.md's two and
			// o.md's two.
			pending, err := s.PendingChunks(ctx, "id-1", 100)
			if err != nil || len(pending) != 7 {
				t.Fatalf("pending = %d, %v; want 7", len(pending), err)
			}
			// One vector of id-1 (a.md's first chunk) and one of another
			// identity (a.md's second): pending for id-1 are a.md's second,
			// s.md's first, d.md's and o.md's.
			if err := s.PutVectors(ctx, "id-1", []int64{pending[0].ID}, [][]float32{{1, 0}}); err != nil {
				t.Fatal(err)
			}
			if err := s.PutVectors(ctx, "id-2", []int64{pending[1].ID}, [][]float32{{0, 1}}); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				corpora []string
				want    int
			}{
				{[]string{"notes"}, 2},
				{[]string{"todo"}, 3},
				{[]string{"notes", "todo"}, 4},
				{[]string{"notes", "todo", "other"}, 6},
				{[]string{"missing"}, 0},
				{nil, 0},
			} {
				got, err := s.CountPendingIn(ctx, "id-1", c.corpora)
				if err != nil || got != c.want {
					t.Errorf("CountPendingIn(id-1, %q) = %d, %v; want %d", c.corpora, got, err, c.want)
				}
			}
			all, err := s.CountPending(ctx, "id-1")
			if err != nil || all != 6 {
				t.Errorf("CountPending(id-1) = %d, %v; want 6 (every corpus)", all, err)
			}
		})
	}
}
