package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestWords: words split as SQLite's unicode61 (remove_diacritics 2)
// splits them.
func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"sqlite/read.go", []string{"sqlite", "read", "go"}},
		{"foo-bar_baz", []string{"foo", "bar", "baz"}},
		{"Größe naïve CAFÉ cafe\u0301", []string{"große", "naive", "cafe", "cafe"}},
		{"getWalrusCount x2 42", []string{"getwalruscount", "x2", "42"}},
		{"日本語 ノート", []string{"日本語", "ノート"}},
		{`"walrus" (seal) star* AND`, []string{"walrus", "seal", "star", "and"}},
		{"🦭 -- ... \x00\x1f", nil},
	} {
		if got := words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func openTest(t *testing.T, b Backend, agent string) *Store {
	t.Helper()
	b.Agent = agent
	st, err := b.Open(context.Background(), t.TempDir(), cairn.StorageOptions{FeatureVersion: "test-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*Store)
}

func testDoc(path, text string) cairn.Document {
	return cairn.Document{Corpus: "notes", Path: path, Title: path, Text: text, Hash: fmt.Sprintf("h-%s-%d", path, len(text)),
		Size: int64(len(text)), Chunks: []cairn.Chunk{{Seq: 0, Pos: 0, Len: len(text), StartLine: 1, EndLine: 1}}}
}

// TestNearest: with HNSW set, the vectors of an identity are searched in
// the database by cosine, through the identity's index, and stay apart
// from other identities and agents.
func TestNearest(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_nearest")
	ctx := context.Background()
	s := openTest(t, b, "a")
	other := openTest(t, b, "b")
	var docs []cairn.Document
	for i := range 20 {
		docs = append(docs, testDoc(fmt.Sprintf("%02d.md", i), fmt.Sprintf("walrus %d\n", i)))
	}
	for _, st := range []*Store{s, other} {
		if err := st.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	pending, err := s.PendingChunks(ctx, "id-3", 100)
	if err != nil || len(pending) != 20 {
		t.Fatalf("pending = %d, %v", len(pending), err)
	}
	var ids []int64
	var vecs [][]float32
	for i, p := range pending {
		ids, vecs = append(ids, p.ID), append(vecs, []float32{float32(i), 1, 0})
	}
	if err := s.PutVectors(ctx, "id-3", ids, vecs); err != nil {
		t.Fatal(err)
	}
	var idx int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE indexname = $1`, hnswIndex("id-3", 3)).Scan(&idx); err != nil || idx != 1 {
		t.Fatalf("HNSW index %s: %d, %v", hnswIndex("id-3", 3), idx, err)
	}
	got, err := s.Nearest(ctx, "id-3", []float32{19, 1, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ChunkID != ids[19] || got[0].Score < 0.999 || got[1].ChunkID != ids[18] {
		t.Errorf("nearest to chunk 19's vector = %+v, want 19 then 18", got)
	}
	if got, err := other.Nearest(ctx, "id-3", []float32{19, 1, 0}, 3); err != nil || len(got) != 0 {
		t.Errorf("another agent's nearest = %+v, %v; want none (its chunks have no vectors)", got, err)
	}
}

// TestCitusDistributed: on Citus every agent table is distributed by agent
// in one co-location group, the shared ones are reference tables, agents'
// rows land on both workers, and a search of one agent runs as one task on
// one worker.
func TestCitusDistributed(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_CITUS_URL", "cairn_citus")
	ctx := context.Background()
	stores := map[string]*Store{}
	for i := range 8 {
		a := fmt.Sprintf("agent-%d", i)
		stores[a] = openTest(t, b, a)
		if err := stores[a].Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: []cairn.Document{testDoc("a.md", "walrus of "+a+"\n")}}); err != nil {
			t.Fatal(err)
		}
	}
	s := stores["agent-0"]
	rows, err := s.pool.Query(ctx, `SELECT c.relname::text, t.citus_table_type, coalesce(t.distribution_column, ''), t.colocation_id
		FROM citus_tables t JOIN pg_class c ON c.oid = t.table_name WHERE c.relnamespace = 'cairn_citus'::regnamespace ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	colocation := map[int]bool{}
	types := map[string]string{}
	for rows.Next() {
		var name, typ, col string
		var coloc int
		if err := rows.Scan(&name, &typ, &col, &coloc); err != nil {
			t.Fatal(err)
		}
		types[name] = typ + ":" + col
		if typ == "distributed" {
			colocation[coloc] = true
		}
	}
	rows.Close()
	want := map[string]string{"agents": "reference:<none>", "cairn_meta": "reference:<none>"}
	for _, tb := range distributedTables {
		want[tb] = "distributed:agent"
	}
	for _, ts := range migrationDistribute {
		for _, tb := range ts {
			want[tb] = "distributed:agent"
		}
	}
	if d := cmp.Diff(want, types); d != "" {
		t.Errorf("citus tables (-want +got):\n%s", d)
	}
	if len(colocation) != 1 {
		t.Errorf("distributed tables in %d co-location groups, want 1", len(colocation))
	}
	var nodes int
	if err := s.pool.QueryRow(ctx, `SELECT count(DISTINCT s.nodeport) FROM agents a
		JOIN citus_shards s ON s.shardid = get_shard_id_for_distribution_column('cairn_citus.chunks', a.agent)
		WHERE a.agent LIKE 'agent-%'`).Scan(&nodes); err != nil {
		t.Fatal(err)
	}
	if nodes != 2 {
		t.Errorf("chunks of 8 agents on %d workers, want both", nodes)
	}
	c, err := s.compile(ctx, s.pool, cairn.Term("walrus"))
	if err != nil {
		t.Fatal(err)
	}
	query, args := scanQuery(cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 10, MaxCandidates: 100}, c, false)
	plan, err := s.pool.Query(ctx, "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for plan.Next() {
		var l string
		plan.Scan(&l)
		lines = append(lines, l)
	}
	plan.Close()
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "Task Count: 1") {
		t.Errorf("a search of one agent is not one task:\n%s", text)
	}
	res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 10})
	if err != nil || len(res.Candidates) != 1 || !strings.Contains(res.Candidates[0].Text, "agent-0") {
		t.Errorf("agent-0's search = %+v, %v; want its one chunk", res, err)
	}
}
