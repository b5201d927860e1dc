package sqlite

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestOpenLeavesRetiredTables: an open of an index holding retired
// full-text tables (fts_retired_N_*, a pair swap's old table) neither
// drops nor empties them, whether the open is up to date (no writer at
// all) or migrates (a writer and a schema transaction); the index answers
// the same meanwhile, and the idle steps (MergeStep) still empty them.
//
// Why the open leaves them, though no build reads them (4b0012b made
// them; builds of the same schema before it never touch them, so a drop
// would be correct for every build that can open the index): a DROP
// with secure_delete on zeroes every page of the table in the one
// transaction, 0.2 to 0.29 s for a 461k-chunk test index of 144 MB and
// seconds for the 1.2 GB table of a real 1M index (4b0012b: 13.10 s wall
// at load 10 to 28), inside a command that otherwise takes no write lock
// at all (an up-to-date open opens no writer: a search in a read-only
// folder works) and while a running serve's writes wait on the lock for
// at most DefaultBusyTimeoutMs. Serve's idle steps empty them in bounded
// transactions instead; an older build leaves them, and the pages stay in
// use until this build's serve runs again.
func TestOpenLeavesRetiredTables(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStore(t, path, "f1")
	r := rand.New(rand.NewPCG(29, 3))
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "a", 120)}); err != nil {
		t.Fatal(err)
	}
	qs := pairQueries(r)
	want := answers(t, s, qs)
	if err := s.StartPairs(ctx, pairVocab.hot); err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		var err error
		if done, err = s.PairStep(ctx, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	retired := retiredRows(t, s)
	if len(retired) == 0 {
		t.Fatal("the swap left no retired table to test with")
	}
	s.Close()

	for _, tc := range []struct {
		name   string
		rewind bool // rewind the recorded schema version so the open migrates
	}{
		{"up to date", false},
		{"migrating", true},
	} {
		if tc.rewind {
			w := openStore(t, path, "f1")
			wr, err := w.writer()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := wr.Exec(`UPDATE meta SET value = '12' WHERE key = 'schema_version'`); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
		s := New(path, "f1")
		if err := s.Open(ctx); err != nil {
			t.Fatalf("%s: open: %v", tc.name, err)
		}
		if wrote := s.w != nil; wrote != tc.rewind {
			t.Fatalf("%s: open took the writer: %v, want %v", tc.name, wrote, tc.rewind)
		}
		if v, err := s.readMeta(ctx, s.r, "schema_version"); err != nil || v != fmt.Sprint(SchemaVersion) {
			t.Fatalf("%s: recorded schema %q, %v; want %d (a paired index)", tc.name, v, err, SchemaVersion)
		}
		if got := retiredRows(t, s); !maps.Equal(got, retired) {
			t.Errorf("%s: after open, retired %v; want them untouched: %v", tc.name, got, retired)
		}
		diffAnswers(t, tc.name+" open with retired tables", answers(t, s, qs), want)
		s.Close()
	}

	s = openStore(t, path, "f1")
	defer s.Close()
	for steps := 0; ; steps++ {
		more, err := s.MergeStep(ctx, 64)
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := s.Retired(ctx); !left {
			break
		}
		if !more || steps > 10000 {
			t.Fatalf("MergeStep stopped with retired tables left: %v", retiredRows(t, s))
		}
	}
	integrityOK(t, s, "after the idle steps")
	diffAnswers(t, "after the idle steps", answers(t, s, qs), want)
}
