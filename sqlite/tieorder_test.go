package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestLexicalTiesPrefix: among chunks of equal score, the chunks a search
// keeps at limit k are the first k it keeps at any larger limit, with the
// corpus filter outside the scan and inside it. The scan kept the top k
// inside SQLite by score, then id, newest first, and Go sorted the kept
// chunks by score, then corpus and path: at limit 5 the five newest of
// thirty tied notes came back, at limit 30 first the five first paths,
// which are the oldest notes (npm's docs: the same
// --workspaces flag table in about 40 command pages, "run a command in
// every workspace of a monorepo" showed npm-run.md and npm-sbom.md at
// places 4-5 with --limit 5, npm-install.md and npm-link.md with --limit
// 20).
func TestLexicalTiesPrefix(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	const n = 30
	for _, corpus := range []string{"a", "b"} {
		var docs []cairn.Document
		for i := range n {
			// Written in path order, so ids rise with the path; every note
			// holds the query's words once (equal BM25: no length norm).
			docs = append(docs, doc(corpus, fmt.Sprintf("%02d.md", i), fmt.Sprintf("pad%s%02d walrus tide\n", corpus, i)))
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: corpus, Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	term := func(w string) cairn.Match { return cairn.Match{Op: cairn.MatchTerm, Words: []string{w}, Weight: 1} }
	match := cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{term("walrus"), term("tide")}}
	for _, tc := range []struct {
		name    string
		corpora []string
		maxCand int
	}{
		{"unfiltered, capped", nil, 2 * n},
		{"unfiltered, no cap", nil, 0},
		{"filtered inside the scan", []string{"a"}, 2 * n},
	} {
		search := func(limit int) []string {
			t.Helper()
			res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: match, Corpora: tc.corpora, Limit: limit, MaxCandidates: tc.maxCand})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, c := range res.Candidates {
				out = append(out, fmt.Sprintf("%s/%s %.6f", c.Corpus, c.Path, c.Score))
			}
			return out
		}
		full := search(2 * n)
		for _, k := range []int{1, 2, 5, 10, 20, n} {
			got, want := search(k), full[:min(k, len(full))]
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("%s: limit %d gave %v, the first %d at limit %d %v", tc.name, k, got, k, 2*n, want)
			}
		}
	}
}
