package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// batchIndex is countIndex with MatchCounts, logging each count call:
// "one WORDS" for MatchCount, "many WORDS|WORDS..." for MatchCounts.
type batchIndex struct {
	countIndex
	calls []string
}

func (x *batchIndex) MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	x.calls = append(x.calls, "one "+strings.Join(m.Words, " "))
	return x.countIndex.MatchCount(ctx, m, max)
}

func (x *batchIndex) MatchCounts(ctx context.Context, ms []cairn.Match, max int) ([]cairn.MatchCount, error) {
	var names []string
	out := make([]cairn.MatchCount, len(ms))
	for k, m := range ms {
		names = append(names, strings.Join(m.Words, " "))
		out[k], _ = x.countIndex.MatchCount(ctx, m, max)
	}
	x.calls = append(x.calls, "many "+strings.Join(names, "|"))
	return out, nil
}

// noGenerations hides the index's generations (nothing can be cached).
type noGenerations struct{ x *batchIndex }

func (n noGenerations) Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error) {
	return n.x.Lexical(ctx, q)
}
func (n noGenerations) MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	return n.x.MatchCount(ctx, m, max)
}
func (n noGenerations) MatchCounts(ctx context.Context, ms []cairn.Match, max int) ([]cairn.MatchCount, error) {
	return n.x.MatchCounts(ctx, ms, max)
}
func (n noGenerations) Span(ctx context.Context) (cairn.IndexSpan, error) { return n.x.Span(ctx) }

// TestCountAll: a search of several uncached terms counts them in one
// MatchCounts call when the index has it (a repeated word once), the
// second search of the same generation counts nothing, a new generation
// counts again, and one uncached term goes to MatchCount; the queries the
// store is sent (matches with their weights, FewMatches) are the ones a
// store without MatchCounts is sent. An index without generations counts
// one term at a time, as before.
func TestCountAll(t *testing.T) {
	ctx := context.Background()
	counts := map[string]int{"walrus": 30, "ice": 900_000, "busy": 700, "sea lion": 12, "floe": 2500}
	tests := []struct {
		name  string
		query string
		want  []string // count calls of the first search
	}{
		{"three words", "walrus ice busy", []string{"many walrus|ice|busy"}},
		{"a word twice", "walrus ice walrus", []string{"many walrus|ice"}},
		{"a phrase and words", `"sea lion" floe walrus`, []string{"many sea lion|floe|walrus"}},
		{"a word in no chunk", "walrus nosuchword", []string{"many walrus|nosuchword"}},
		{"one word (a lone phrase: no count)", "walrus", nil},
	}
	for _, tt := range tests {
		x := &batchIndex{countIndex: countIndex{counts: counts, gen: 1}}
		s := &Searcher{Index: x}
		if _, err := s.Search(ctx, tt.query, &cairn.SearchOptions{Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.calls, tt.want) {
			t.Errorf("%s: count calls %q, want %q", tt.name, x.calls, tt.want)
		}
		// The same queries as a store that counts one at a time is sent.
		plain := &countIndex{counts: counts, gen: 1}
		if _, err := (&Searcher{Index: plain}).Search(ctx, tt.query, &cairn.SearchOptions{Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if got, want := queryLines(x.queries), queryLines(plain.queries); !slices.Equal(got, want) {
			t.Errorf("%s: queries with MatchCounts %q, without %q", tt.name, got, want)
		}
		x.calls = nil
		if _, err := s.Search(ctx, tt.query, &cairn.SearchOptions{Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if len(x.calls) != 0 {
			t.Errorf("%s: the second search of a generation counted %q, want nothing", tt.name, x.calls)
		}
	}

	// A new generation: counted again; then one new word alone.
	x := &batchIndex{countIndex: countIndex{counts: counts, gen: 1}}
	s := &Searcher{Index: x}
	for _, step := range []struct {
		gen   int64
		query string
		want  []string
	}{
		{1, "walrus ice", []string{"many walrus|ice"}},
		{2, "walrus ice", []string{"many walrus|ice"}},
		{2, "walrus ice busy", []string{"one busy"}},
	} {
		x.gen, x.calls = step.gen, nil
		if _, err := s.Search(ctx, step.query, &cairn.SearchOptions{Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.calls, step.want) {
			t.Errorf("generation %d, %q: count calls %q, want %q", step.gen, step.query, x.calls, step.want)
		}
	}

	// No generations: nothing cached, so no batch (count asks each anyway).
	x = &batchIndex{countIndex: countIndex{counts: counts, gen: 1}}
	if _, err := (&Searcher{Index: noGenerations{x}}).Search(ctx, "walrus ice busy", &cairn.SearchOptions{Limit: 10}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"one walrus", "one ice", "one busy"}; !slices.Equal(x.calls, want) {
		t.Errorf("without generations: count calls %q, want %q", x.calls, want)
	}
}

// queryLines is each lexical query as the match (weights included) and
// its hints.
func queryLines(qs []cairn.LexicalQuery) []string {
	var out []string
	for _, q := range qs {
		few := "many"
		if q.FewMatches {
			few = "few"
		}
		out = append(out, weightedString(q.Match)+" "+few)
	}
	return out
}

// weightedString is m.String() with each leaf's weight.
func weightedString(m cairn.Match) string {
	if m.Leaf() {
		return fmt.Sprintf("%s:%.9g", m, m.Weight)
	}
	var of []string
	for _, c := range m.Of {
		of = append(of, weightedString(c))
	}
	return fmt.Sprintf("op%d(%s)", m.Op, strings.Join(of, " "))
}
