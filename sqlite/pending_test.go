package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestPendingChunksAfter: the chunks without a vector of the identity
// above an id, in id order, up to the limit: noise and the identity's own
// vectors left out, another identity's vector still pending, the text
// exact.
func TestPendingChunksAfter(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	d := doc("n", "a.md", "one\ntwo\nthree\nfour\nfive\nsix\n")
	d.Chunks[2].Noise = true // "three"
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{d}}); err != nil {
		t.Fatal(err)
	}
	all, err := s.PendingChunks(ctx, "m", 100)
	if err != nil || len(all) != 5 {
		t.Fatalf("PendingChunks = %v, %v; want the 5 chunks that are not noise", all, err)
	}
	// "two" has this identity's vector, "four" another identity's.
	if err := s.PutVectors(ctx, "m", []int64{all[1].ID}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutVectors(ctx, "other", []int64{all[2].ID}, [][]float32{{0, 1}}); err != nil {
		t.Fatal(err)
	}
	texts := func(ps []PendingChunk) string {
		var out []string
		for _, p := range ps {
			out = append(out, strings.TrimSpace(p.Text))
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		after int64
		limit int
		want  string
	}{
		{0, 100, "one,four,five,six"},
		{0, 2, "one,four"},
		{all[0].ID, 100, "four,five,six"},
		{all[2].ID, 2, "five,six"},
		{all[4].ID, 100, ""},
	} {
		got, err := s.PendingChunksAfter(ctx, "m", c.after, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if texts(got) != c.want {
			t.Errorf("PendingChunksAfter(after %d, limit %d) = %q, want %q", c.after, c.limit, texts(got), c.want)
		}
		if !slices.IsSortedFunc(got, func(a, b PendingChunk) int { return int(a.ID - b.ID) }) {
			t.Errorf("PendingChunksAfter(after %d) not in id order: %v", c.after, got)
		}
	}
}

// TestPendingChunksAfterPlan: the statement reads only what lies after
// its id, and reads a document only for the chunks it returns. The
// engine calls it once per batch of 64 with the last id of the batch
// before; a scan of the chunks from the first one (PendingChunks' old
// form, every embedded chunk passed again on each call) or a content row
// read for each chunk passed made the embedding pass into a 1M-chunk
// index quadratic: 3,500 vectors a minute, 411 KB read a vector at 20k
// of 100k chunks.
func TestPendingChunksAfterPlan(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+pendingAfterSQL, 0, "m", 64)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type step struct {
		id, parent int
		detail     string
	}
	var plan []step
	for rows.Next() {
		var st step
		var unused int
		if err := rows.Scan(&st.id, &st.parent, &unused, &st.detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, st)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var ranged, content bool
	for _, st := range plan {
		switch {
		case strings.HasPrefix(st.detail, "SEARCH c USING INTEGER PRIMARY KEY (rowid>?)"):
			ranged = true
			if st.parent == 0 {
				t.Errorf("chunks read in the loop that reads content (%q at the top): want them in a subquery limited before the join", st.detail)
			}
		case strings.HasPrefix(st.detail, "SCAN c") || strings.HasPrefix(st.detail, "SEARCH c "):
			t.Errorf("chunks read by %q: want the rowid range after the id", st.detail)
		case strings.HasPrefix(st.detail, "SEARCH ct ") || strings.HasPrefix(st.detail, "SCAN ct"):
			content = true
			if st.parent != 0 {
				t.Errorf("content read inside the chunks scan (%q under step %d): want it joined after the limit", st.detail, st.parent)
			}
		}
	}
	if !ranged || !content {
		t.Errorf("plan without a rowid range over chunks (%v) or a content lookup (%v):\n%s", ranged, content, fmt.Sprint(plan))
	}
}
