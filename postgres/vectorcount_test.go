package postgres

import (
	"context"
	"testing"

	"github.com/cairnmemory/cairn"
)

// HasVectors sees one agent's vectors, not another agent's, and follows
// a vector replaced by another identity; on both servers.
func TestVectorCountHasVectors(t *testing.T) {
	for _, env := range []string{"CAIRN_TEST_POSTGRES_URL", "CAIRN_TEST_CITUS_URL"} {
		t.Run(env, func(t *testing.T) {
			ctx := context.Background()
			b := testBackend(t, env, "cairn_has_vectors")
			s, other := openTest(t, b, "a"), openTest(t, b, "b")
			for _, st := range []*Store{s, other} {
				if err := st.Apply(ctx, &cairn.Batch{Corpus: "notes", Upserts: pairDocs(4)}); err != nil {
					t.Fatal(err)
				}
			}
			var ids, oids []int64
			if err := s.ChunkDocs(ctx, func(id int64, _, _ string) { ids = append(ids, id) }); err != nil || len(ids) < 3 {
				t.Fatalf("chunks %v, %v", ids, err)
			}
			if err := other.ChunkDocs(ctx, func(id int64, _, _ string) { oids = append(oids, id) }); err != nil || len(oids) < 1 {
				t.Fatalf("other's chunks %v, %v", oids, err)
			}
			has := func(st *Store, id string) bool {
				t.Helper()
				ok, err := st.HasVectors(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				return ok
			}
			v := []float32{1, 0}
			if err := other.PutVectors(ctx, "m@1+int8", oids[:1], [][]float32{v}); err != nil {
				t.Fatal(err)
			}
			if has(s, "m@1+int8") || has(s, "m@1") {
				t.Fatal("agent a sees vectors of agent b")
			}
			if err := s.PutVectors(ctx, "m@1", ids[:2], [][]float32{v, v}); err != nil {
				t.Fatal(err)
			}
			if err := s.PutVectors(ctx, "m@1+int8", ids[2:3], [][]float32{v}); err != nil {
				t.Fatal(err)
			}
			if !has(s, "m@1") || !has(s, "m@1+int8") || has(s, "m@2") {
				t.Fatalf("after puts: m@1 %v, m@1+int8 %v, m@2 %v", has(s, "m@1"), has(s, "m@1+int8"), has(s, "m@2"))
			}
			if err := s.PutVectors(ctx, "m@1", ids[2:3], [][]float32{v}); err != nil {
				t.Fatal(err)
			}
			if has(s, "m@1+int8") {
				t.Error("m@1+int8 still found after its only vector was replaced")
			}
			if !has(other, "m@1+int8") {
				t.Error("agent b lost its vector")
			}
		})
	}
}
