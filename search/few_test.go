package search

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// countIndex answers counts from a table (capped as a store caps them) and
// records each lexical query; its scans match nothing unless told, so the
// any-words pass runs after the all-words one.
type countIndex struct {
	counts  map[string]int // a leaf's words → its matches
	scanned int            // what a scan reports (uncapped when under the cap)
	gen     int64
	queries []cairn.LexicalQuery
}

func (x *countIndex) Lexical(_ context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error) {
	x.queries = append(x.queries, q)
	return &cairn.LexicalResult{Scanned: x.scanned, Capped: q.MaxCandidates > 0 && x.scanned > q.MaxCandidates, Low: 1}, nil
}

func (x *countIndex) MatchCount(_ context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	return cairn.MatchCount{N: min(x.counts[strings.Join(m.Words, " ")], max), Low: 1}, nil
}

func (x *countIndex) Span(context.Context) (cairn.IndexSpan, error) {
	return cairn.IndexSpan{Rows: 1_000_000, MinID: 1, MaxID: 1_000_000}, nil
}

func (x *countIndex) Generation() int64 { return x.gen }

// TestFewMatchesHint checks when Search tells the store that every match
// is scored (cairn.LexicalQuery.FewMatches): only from exact counts (under
// the common cap) that bound the query's matches by its budget; all words
// by the rarest term, any words by the sum; a lone phrase once its count is
// known from an uncapped scan of the same index generation.
func TestFewMatchesHint(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		query  string
		counts map[string]int
		want   []bool // FewMatches of each lexical query, in order
	}{
		{"all words: the rarest exact and under the budget", "walrus ice", map[string]int{"walrus": 30, "ice": 900_000}, []bool{true, true}},
		{"all words: every term above the common cap", "walrus ice", map[string]int{"walrus": 5000, "ice": 900_000}, []bool{false, false}},
		{"any words: the kept terms' sum under the budget", "walrus ice busy", map[string]int{"walrus": 30, "ice": 700, "busy": 900_000}, []bool{true, true}},
		{"any words: the one kept term above the cap", "walrus ice", map[string]int{"walrus": 3000, "ice": 900_000}, []bool{false, false}},
	}
	for _, tt := range tests {
		x := &countIndex{counts: tt.counts, gen: 1}
		s := &Searcher{Index: x}
		if _, err := s.Search(ctx, tt.query, &cairn.SearchOptions{Limit: 10}); err != nil {
			t.Fatal(err)
		}
		var got []bool
		for _, q := range x.queries {
			got = append(got, q.FewMatches)
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%s: %d lexical queries %v, want %d", tt.name, len(got), got, len(tt.want))
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: query %d (%s) FewMatches %v, want %v", tt.name, i, x.queries[i].Match, got[i], tt.want[i])
			}
		}
	}

	// A lone phrase: its first scan tells the count; asked again in the same
	// generation it has few matches, in a later one not (until scanned).
	for _, tc := range []struct {
		scanned int
		want    []bool
	}{
		{40, []bool{false, true, false, true}},
		{PhraseMaxCandidates + 1, []bool{false, false, false, false}}, // capped: only an estimate
	} {
		x := &countIndex{scanned: tc.scanned, gen: 1}
		s := &Searcher{Index: x}
		for i := range 4 {
			if i == 2 {
				x.gen = 2 // a sync
			}
			if _, err := s.Search(ctx, `"walrus ice"`, &cairn.SearchOptions{Limit: 10}); err != nil {
				t.Fatal(err)
			}
			if got := x.queries[i].FewMatches; got != tc.want[i] {
				t.Errorf("phrase scanned %d, search %d: FewMatches %v, want %v", tc.scanned, i, got, tc.want[i])
			}
		}
	}
}
