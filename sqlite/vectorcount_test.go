package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// HasVectors says which identities have vectors, follows deletes and
// replacements, and answers from the vectors_identity index (one seek,
// not a scan of the table or of the index).
func TestHasVectors(t *testing.T) {
	ctx := context.Background()
	st, err := Backend{}.Open(ctx, t.TempDir(), cairn.StorageOptions{FeatureVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := st.(*Store)
	has := func(id string) bool {
		t.Helper()
		ok, err := s.HasVectors(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if has("m@1") {
		t.Fatal("empty store: HasVectors(m@1) = true")
	}
	v := []float32{1, 0}
	if err := s.PutVectors(ctx, "m@1", []int64{1, 2}, [][]float32{v, v}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutVectors(ctx, "m@1+int8", []int64{3}, [][]float32{v}); err != nil {
		t.Fatal(err)
	}
	if !has("m@1") || !has("m@1+int8") || has("m@1+int4") || has("m@") {
		t.Fatalf("after puts: m@1 %v, m@1+int8 %v, m@1+int4 %v, m@ %v", has("m@1"), has("m@1+int8"), has("m@1+int4"), has("m@"))
	}
	// Chunk 3 embedded again by the other model: the vector is replaced
	// (one a chunk), so no int8 vector is left.
	if err := s.PutVectors(ctx, "m@1", []int64{3}, [][]float32{v}); err != nil {
		t.Fatal(err)
	}
	if has("m@1+int8") {
		t.Error("m@1+int8 still found after its only vector was replaced")
	}
	var plan strings.Builder
	rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+hasVectorsSQL, "m@1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(detail + "\n")
	}
	rows.Close()
	if p := plan.String(); !strings.Contains(p, "USING COVERING INDEX vectors_identity (identity=?)") {
		t.Errorf("plan of %s:\n%s\nwant a search of vectors_identity by identity", hasVectorsSQL, p)
	}
}
