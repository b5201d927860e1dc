package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// TestQueryLimits: a query of any size answers, over a real index, with
// hits or with an error naming the limit. A generated query of 50,000
// terms is refused by search before the store is asked (it held a request
// for minutes: a count and a phrase per term); a query of MaxQueryTerms
// distinct identifiers, two phrases each, is the most the store scores
// (maxPhrases, rank.go's CAIRN_MAX_PHRASES) and finds the note that holds
// one of them; a match of more phrases than that, from any caller, is
// refused by the store, not scored in part.
func TestQueryLimits(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{
		doc("n", "a.md", "the walrus keeps parseConfig7 in its den\n"),
		doc("n", "b.md", "compost for the garden\n"),
	}}); err != nil {
		t.Fatal(err)
	}
	sr := &search.Searcher{Index: s}
	many := func(n int, f string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, f+" ", i)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name, query, want string // want: the error, else the path of the first hit
	}{
		{"50,000 terms", many(50000, "w%d"), fmt.Sprintf("allowed up to %d", search.MaxQueryBytes)},
		{"over the terms", many(search.MaxQueryTerms+1, "parseConfig%d"), fmt.Sprintf("allowed up to %d", search.MaxQueryTerms)},
		{"at the terms", many(search.MaxQueryTerms, "parseConfig%d"), "cairn://n/a.md"},
		{"repeated", strings.Repeat("compost ", 4000), "cairn://n/b.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := sr.Search(ctx, tt.query, &cairn.SearchOptions{Limit: 5})
			if strings.HasPrefix(tt.want, "cairn://") {
				if err != nil || len(hits) == 0 || hits[0].Path != tt.want {
					t.Fatalf("Search: %d hits, %v; want %s first", len(hits), err, tt.want)
				}
				return
			}
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Search: %d hits, %v; want ErrInvalid naming %q", len(hits), err, tt.want)
			}
		})
	}
	terms := func(n int) cairn.Match {
		of := make([]cairn.Match, n)
		for i := range of {
			of[i] = cairn.Term(fmt.Sprintf("w%d", i))
		}
		return cairn.AnyOf(append(of, cairn.Term("walrus"))...)
	}
	if _, err := s.Lexical(ctx, cairn.LexicalQuery{Match: terms(maxPhrases - 1), Limit: 5}); err != nil {
		t.Errorf("Lexical of %d phrases: %v", maxPhrases, err)
	}
	_, err := s.Lexical(ctx, cairn.LexicalQuery{Match: terms(maxPhrases), Limit: 5})
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("%d phrases", maxPhrases+1)) {
		t.Errorf("Lexical of %d phrases: %v; want ErrInvalid naming the count and the limit", maxPhrases+1, err)
	}
}

// BenchmarkLexicalTerms: one capped any-of scan (scanTopOrder) by the
// number of its terms, over 20,000 one-line chunks of 12 words each from
// 4,000, for how the store's cost grows with a query's terms (FTS5
// advances an OR of n doclists and cairn_score reads n phrases a row).
//
//	go test -tags sqlite_fts5 ./sqlite/ -run XXX -bench LexicalTerms
func BenchmarkLexicalTerms(b *testing.B) {
	ctx := context.Background()
	s := New(filepath.Join(b.TempDir(), "index.db"), "f1")
	if err := s.Open(ctx); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	word := func(i int) string { return fmt.Sprintf("v%d", i%4000) }
	var docs []cairn.Document
	for i := range 20000 {
		var line strings.Builder
		for k := range 12 {
			line.WriteString(word(i*7+k*331) + " ")
		}
		d := doc("n", fmt.Sprintf("%d.md", i), line.String()+"\n")
		d.Hash = fmt.Sprintf("bench-%d", i) // doc's hash is the text's length and start: not unique here
		docs = append(docs, d)
		if len(docs) == 1000 {
			if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: docs}); err != nil {
				b.Fatal(err)
			}
			docs = nil
		}
	}
	for _, n := range []int{4, 16, 64, 128, 256} {
		of := make([]cairn.Match, n)
		for i := range of {
			of[i] = cairn.Term(word(i * 13)).Weighted(1 + float64(i%5))
		}
		q := cairn.LexicalQuery{Match: cairn.AnyOf(of...), Limit: 10, MaxCandidates: search.DefaultMaxCandidates}
		b.Run(fmt.Sprintf("terms=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Lexical(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
