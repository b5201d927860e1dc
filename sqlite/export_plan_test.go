package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPortModelsPlan: the export's count of vectors by identity reads
// them in identity order from the index, with no temporary b-tree: one
// for the GROUP BY held every vector blob in memory until the counts were
// done (1.65 GB for 1M vectors of 384 floats).
func TestPortModelsPlan(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+portModelsSQL)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	indexed := false
	for _, d := range plan {
		if strings.Contains(d, "TEMP B-TREE") {
			t.Errorf("plan step %q: the vectors are sorted in a temporary b-tree (their blobs with them)", d)
		}
		indexed = indexed || strings.Contains(d, "USING INDEX vectors_identity") || strings.Contains(d, "USING COVERING INDEX vectors_identity")
	}
	if !indexed {
		t.Errorf("plan %q: want the vectors read in identity order from vectors_identity", plan)
	}
}
