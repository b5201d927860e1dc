package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// hydratePlan is how the reader pool would run hydrateQuery.
func hydratePlan(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.r.Query(`EXPLAIN QUERY PLAN `+hydrateQuery, `[1]`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	return strings.Join(steps, "; ")
}

// TestStatisticsFollowGrowth: an index whose query statistics were taken
// when it held one note (Close runs PRAGMA optimize) and that then grows
// while open gets fresh statistics with the batch that grew it tenfold,
// and its open reader connections plan with them: the winning chunks are
// read by id, not by scanning the chunks table. Before, the readers kept
// the one-note statistics until the process ended, and a memory search
// over 10,000 memories spent 200 ms per query scanning (TestRecallLatency).
func TestStatisticsFollowGrowth(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStore(t, path, "f1")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", "a.md", "one note\n")}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openStore(t, path, "f1")
	if _, err := s.r.Exec(`SELECT 1`); err != nil { // a reader connection with the small statistics
		t.Fatal(err)
	}
	if plan := hydratePlan(t, s); !strings.Contains(plan, "SCAN c") {
		t.Logf("with one note's statistics the plan is %q (expected a scan of chunks)", plan)
	}
	for b := range 4 {
		var docs []cairn.Document
		for i := range 500 {
			docs = append(docs, doc("n", fmt.Sprintf("d%d-%d.md", b, i), fmt.Sprintf("note %d of batch %d\nsecond line %d\n", i, b, i)))
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	if plan := hydratePlan(t, s); !strings.Contains(plan, "SEARCH c USING INTEGER PRIMARY KEY") {
		t.Errorf("after growing to 2,000 notes the readers plan %q; want the chunks read by id", plan)
	}
}
