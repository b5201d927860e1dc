package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// recorded reads the schema version an index file records.
func recorded(t *testing.T, s *Store) int {
	t.Helper()
	v, err := s.readMeta(context.Background(), s.r, "schema_version")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("schema_version %q: %v", v, err)
	}
	return n
}

// openAsOlder opens path as a build before pairsVersion does: the same
// checks with SchemaVersion one lower.
func openAsOlder(path string) error {
	defer func(v int) { SchemaVersion = v }(SchemaVersion)
	SchemaVersion = pairsVersion - 1
	old := New(path, "f1")
	err := old.Open(context.Background())
	if err == nil {
		// A search through the old table list, as an older build's first
		// search would.
		_, err = old.Lexical(context.Background(), cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 5})
		old.Close()
	}
	return err
}

// TestPairFence: the index records pairsVersion exactly while a full-text
// table of its schema (the live one or a rebuild's) has its own pair
// words, in the transaction that makes it so or, for an index paired
// before the fence or left plain by a table rebuild, at its next open; an
// older build then refuses it with its newer-schema error, and opens it
// again once the list is dropped. This build opens every state and
// answers the same.
func TestPairFence(t *testing.T) {
	ctx := context.Background()
	if SchemaVersion < pairsVersion {
		t.Fatalf("SchemaVersion %d below pairsVersion %d", SchemaVersion, pairsVersion)
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step := func(t *testing.T, s *Store, n int) {
		t.Helper()
		if done, err := s.PairStep(ctx, n); err != nil || done {
			t.Fatalf("PairStep: done %v, %v; want a step with chunks left", done, err)
		}
	}
	for _, tt := range []struct {
		name string
		// change moves the index to the state under test; it may close s
		// and return another store over the same file.
		change func(t *testing.T, s *Store) *Store
		paired bool // a table of the schema has pair words
		words  int  // PairWords after the change
	}{
		{"new index", func(t *testing.T, s *Store) *Store { return s }, false, 0},
		{"paired", func(t *testing.T, s *Store) *Store {
			_, err := s.RebuildPairs(ctx, pairVocab.hot, 40)
			must(t, err)
			return s
		}, true, 4},
		{"rebuild with pairs under way", func(t *testing.T, s *Store) *Store {
			must(t, s.StartPairs(ctx, pairVocab.hot))
			step(t, s, 20)
			return s
		}, true, 0},
		{"rebuild without pairs under way", func(t *testing.T, s *Store) *Store {
			_, err := s.RebuildPairs(ctx, pairVocab.hot, 1<<20)
			must(t, err)
			must(t, s.StartPairs(ctx, nil))
			step(t, s, 20)
			return s
		}, true, 4},
		{"pairs dropped again", func(t *testing.T, s *Store) *Store {
			_, err := s.RebuildPairs(ctx, pairVocab.hot, 1<<20)
			must(t, err)
			_, err = s.RebuildPairs(ctx, nil, 40)
			must(t, err)
			return s
		}, false, 0},
		{"rebuild with pairs abandoned for one without", func(t *testing.T, s *Store) *Store {
			must(t, s.StartPairs(ctx, pairVocab.hot))
			step(t, s, 20)
			must(t, s.StartPairs(ctx, nil))
			return s
		}, false, 0},
		{"paired by idle maintenance", func(t *testing.T, s *Store) *Store {
			defer setPairPolicy(50, 0.2)()
			due, err := s.IdleMergeDue(ctx)
			must(t, err)
			for more := due; more; {
				more, err = s.MergeStep(ctx, 256)
				must(t, err)
			}
			if !due {
				t.Fatal("idle maintenance found nothing due")
			}
			return s
		}, true, -1},
		{"paired before the fence, reopened", func(t *testing.T, s *Store) *Store {
			_, err := s.RebuildPairs(ctx, pairVocab.hot, 1<<20)
			must(t, err)
			_, err = s.w.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, pairsVersion-1)
			must(t, err)
			s.Close()
			return openStore(t, s.Path, "f1")
		}, true, 4},
		{"full-text table rebuilt plain", func(t *testing.T, s *Store) *Store {
			_, err := s.RebuildPairs(ctx, pairVocab.hot, 1<<20)
			must(t, err)
			must(t, s.RebuildFTS(ctx)) // check.go: the table as gramsTable makes it
			return s
		}, false, 0},
		{"recorded paired without pair words, reopened", func(t *testing.T, s *Store) *Store {
			_, err := s.w.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, pairsVersion)
			must(t, err)
			s.Close()
			return openStore(t, s.Path, "f1")
		}, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db")
			s := openStore(t, path, "f1")
			r := rand.New(rand.NewPCG(11, 5))
			must(t, s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: pairDocs(r, "a", 40)}))
			qs := pairQueries(r)
			want := answers(t, s, qs)
			s = tt.change(t, s)
			// pairsVersion-1 without pair words, unless a later migration
			// exists (older builds refuse the index for that one anyway).
			wantVersion := pairsVersion - 1
			if tt.paired || SchemaVersion > pairsVersion {
				wantVersion = SchemaVersion
			}
			if got := recorded(t, s); got != wantVersion {
				t.Errorf("schema version recorded %d, want %d (pair words in the schema: %v)", got, wantVersion, tt.paired)
			}
			words, err := s.PairWords(ctx)
			must(t, err)
			if tt.words >= 0 && len(words) != tt.words {
				t.Errorf("PairWords = %v, want %d words", words, tt.words)
			} else if tt.words < 0 && len(words) == 0 {
				t.Error("PairWords empty after idle maintenance paired the table")
			}
			diffAnswers(t, "this build", answers(t, s, qs), want)
			s.Close()

			err = openAsOlder(path)
			refuse := fmt.Sprintf("schema version %d is newer than this binary's %d", wantVersion, pairsVersion-1)
			switch {
			case wantVersion >= pairsVersion && (err == nil || !strings.Contains(err.Error(), refuse)):
				t.Errorf("an older build opened an index recording %d: %v; want %q", wantVersion, err, refuse)
			case wantVersion < pairsVersion && err != nil:
				t.Errorf("an older build refused an index without pair words: %v", err)
			}

			// This build opens it again, the recorded version unchanged.
			re := openStore(t, path, "f1")
			if got := recorded(t, re); got != wantVersion {
				t.Errorf("schema version after reopening %d, want %d", got, wantVersion)
			}
			diffAnswers(t, "reopened", answers(t, re, qs), want)
		})
	}
}
