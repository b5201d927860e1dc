package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestTermCounts: the tf map Apply stores (counted in Go over the lexeme
// cache) is the map the tsvector Apply stores implies, the weighted count
// of each of its lexemes (title 2, body and identifiers 1), for texts with
// repeats, case, diacritics, digits, scripts without spaces and words the
// parser splits further.
func TestTermCounts(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_termcounts")
	ctx := context.Background()
	s := openTest(t, b, "a")
	texts := []string{
		"The walrus walruses WALRUS, running runs ran.",
		"Größe naïve CAFÉ cafe\u0301 café 日本語 ノート",
		"v1.2.3 x2 42 3e5 0x1f getWalrusCount snake_case foo-bar",
		strings.Repeat("seal ", 300) + "walrus",
	}
	var docs []cairn.Document
	for i, text := range texts {
		d := testDoc(fmt.Sprintf("t%d walrus.md", i), text)
		d.Chunks[0].Ident = "getWalrusCount seal_pup"
		docs = append(docs, d)
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.pool.Query(ctx, `SELECT c.hash, c.tf::text, (SELECT coalesce(jsonb_object_agg(x.lexeme,
			(SELECT sum(CASE w WHEN 'A' THEN 2 ELSE 1 END) FROM unnest(x.weights) w)), '{}'::jsonb) FROM unnest(c.tsv) x)::text
		FROM chunks c WHERE agent = $1`, s.agent)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var hash, got, fromTSV string
		if err := rows.Scan(&hash, &got, &fromTSV); err != nil {
			t.Fatal(err)
		}
		var g, w map[string]int
		json.Unmarshal([]byte(got), &g)
		json.Unmarshal([]byte(fromTSV), &w)
		for l, c := range w {
			// A tsvector keeps 255 positions of a lexeme at most; the
			// map counts them all (as SQLite does).
			if g[l] != c && !(c >= 255 && g[l] > c) {
				t.Errorf("%s: tf[%q] = %d, the tsvector says %d", hash, l, g[l], c)
			}
		}
		for l := range g {
			if _, ok := w[l]; !ok {
				t.Errorf("%s: tf has %q, the tsvector does not", hash, l)
			}
		}
		n++
	}
	if err := rows.Err(); err != nil || n != len(texts) {
		t.Fatalf("read %d chunks, %v", n, err)
	}
}

// TestPendingFloor: embedding a backlog batch by batch (as the engine
// does) reads each batch's rows, not every chunk embedded before it (a
// scan from the oldest chunk made the loop quadratic: 1,500 calls of up
// to 100k rows for a 100k-chunk sync); and a vector another process takes
// away below the floor is seen again.
func TestPendingFloor(t *testing.T) {
	b := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_pendingfloor")
	ctx := context.Background()
	s := openTest(t, b, "a")
	var docs []cairn.Document
	for i := range 300 {
		docs = append(docs, testDoc(fmt.Sprintf("%03d.md", i), fmt.Sprintf("walrus %d\n", i)))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	const id, limit = "id-1", 10
	var first int64
	for i := range 20 {
		ps, err := s.PendingChunks(ctx, id, limit)
		if err != nil || len(ps) != limit {
			t.Fatalf("batch %d: %d pending, %v", i, len(ps), err)
		}
		if i == 0 {
			first = ps[0].ID
		}
		ids := make([]int64, len(ps))
		vecs := make([][]float32, len(ps))
		for j, p := range ps {
			ids[j], vecs[j] = p.ID, []float32{1, 0}
		}
		if err := s.PutVectors(ctx, id, ids, vecs); err != nil {
			t.Fatal(err)
		}
	}
	// The next call's statement, as the store runs it now.
	var plan []map[string]any
	if err := s.pool.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+pendingSQL, s.agent, id, limit, s.pendingFloor(id).id).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	if read := rowsRead(plan[0]["Plan"].(map[string]any)); read > 6*limit {
		t.Errorf("the next batch of %d read %d rows with 200 chunks embedded before it, want it to skip them", limit, read)
	}
	ps, err := s.PendingChunks(ctx, id, limit)
	if err != nil || len(ps) != limit || ps[0].ID != first+200 {
		t.Fatalf("batch 21 = %v, %v: want %d chunks from id %d", ps, err, limit, first+200)
	}
	// Another process (a second handle) stores a vector of another
	// embedder for the first chunk, replacing this identity's.
	other := openTest(t, b, "a")
	if err := other.PutVectors(ctx, "id-2", []int64{first}, [][]float32{{0, 1}}); err != nil {
		t.Fatal(err)
	}
	ps, err = s.PendingChunks(ctx, id, limit)
	if err != nil || len(ps) == 0 || ps[0].ID != first {
		t.Fatalf("after another process replaced chunk %d's vector: pending = %v, %v; want it first", first, ps, err)
	}
}

// rowsRead sums what a plan's scans of chunks and vectors read: rows out
// of every loop and the rows their filters dropped. (The join to content
// after the limit is left out: on a table this small the planner scans it
// whole, at any size it probes its key.)
func rowsRead(node map[string]any) int {
	n := 0
	num := func(k string) int { v, _ := node[k].(float64); return int(v) }
	if rel, _ := node["Relation Name"].(string); rel == "chunks" || rel == "vectors" {
		n += num("Actual Rows")*max(num("Actual Loops"), 1) + num("Rows Removed by Filter") + num("Rows Removed by Join Filter")
	}
	kids, _ := node["Plans"].([]any)
	for _, k := range kids {
		n += rowsRead(k.(map[string]any))
	}
	return n
}
