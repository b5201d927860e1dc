package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/search"
)

// TestSearchQueryLimits: a generated query of 50,000 terms is an
// ErrInvalid error naming MaxQueryBytes in every mode; one of more
// distinct terms than search.MaxQueryTerms is one naming that limit in
// lexical and hybrid mode (hybrid's lexical lane would leave it out and
// answer from the vector lane alone) and answers in vector mode, whose
// cost does not grow with the words; the same words repeated answer as
// once.
func TestSearchQueryLimits(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# Walrus\n\nThe walrus sleeps on the ice.\n"}, Options{Embedder: hashEmbedder{}})
	f.sync()
	many := func(n int, format string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, format+" ", i)
		}
		return b.String()
	}
	ctx := context.Background()
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid, cairn.ModeVector} {
		for _, tt := range []struct{ query, want string }{
			{many(50000, "w%d"), fmt.Sprintf("allowed up to %d", search.MaxQueryBytes)},
			{many(search.MaxQueryTerms+1, "w%d"), fmt.Sprintf("allowed up to %d", search.MaxQueryTerms)},
		} {
			hits, err := f.eng.Search(ctx, tt.query, &cairn.SearchOptions{Mode: mode, Limit: 5})
			if mode == cairn.ModeVector && tt.want != fmt.Sprintf("allowed up to %d", search.MaxQueryBytes) {
				if err != nil {
					t.Errorf("vector: %d distinct words: %v; want an answer", search.MaxQueryTerms+1, err)
				}
				continue
			}
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: %d hits, %v; want ErrInvalid naming %q", mode, len(hits), err, tt.want)
			}
		}
		hits, err := f.eng.Search(ctx, strings.Repeat("walrus ", 1000), &cairn.SearchOptions{Mode: mode, Limit: 5})
		if err != nil || len(hits) == 0 || hits[0].Path != "cairn://notes/a.md" {
			t.Errorf("%s: a repeated word: %d hits, %v; want a.md", mode, len(hits), err)
		}
	}
}
