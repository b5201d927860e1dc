package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestLexicalLimitPrefix: the first k hits of a lexical search at limit k
// are the first k hits, with the same scores, of the same search at any
// larger limit. No chunk holds all four words of the query, so the lanes'
// depth decides what the any-words plan brings, and the calibrated score
// weighs each hit against the best hits returned: cut to its limit before
// calibrating, "zorkle quuxify widget gadget" scored and cut its first hits
// otherwise at limit 3 than at limit 10 (as "go-toml strict mode reject
// unknown keys" over a docs corpus gave one hit at --limit 3 and three at
// --limit 10).
func TestLexicalLimitPrefix(t *testing.T) {
	notes := map[string]string{}
	for i := range 3 {
		notes[fmt.Sprintf("rare%d.md", i)] = fmt.Sprintf("# Rare %d\n\nzorkle quuxify zorkle quuxify, the zorkle of quuxify.\n", i)
	}
	notes["three.md"] = "# Three\n\nA zorkle beside a widget and a gadget on the long bench, with other things in the room around them.\n"
	for i := range 14 {
		// Each holds the word once more than the last: no two tie in BM25
		// (the store breaks ties at its cut otherwise than in its order).
		notes[fmt.Sprintf("common%02d.md", i)] = fmt.Sprintf("# Common %d\n\ngadget%s, a note of the shelf.\n", i, strings.Repeat(" widget", i+1))
	}
	f := newFixture(t, notes, Options{})
	f.sync()
	const query = "zorkle quuxify widget gadget"
	search := func(limit int, minScore float64) []string {
		hits, err := f.eng.Search(t.Context(), query, &cairn.SearchOptions{Limit: limit, Mode: cairn.ModeLexical, MinScore: minScore})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%s %.4f", strings.TrimPrefix(h.Path, "cairn://notes/"), h.Score))
		}
		return out
	}
	for _, minScore := range []float64{0, cairn.DefaultMinScore} {
		limits := []int{1, 2, 3, 5, 10, 20, 50}
		got := map[int][]string{}
		for _, l := range limits {
			got[l] = search(l, minScore)
		}
		for i, k := range limits {
			for _, m := range limits[i+1:] {
				if want := got[m][:min(k, len(got[m]))]; strings.Join(got[k], ", ") != strings.Join(want, ", ") {
					t.Errorf("min score %.1f: limit %d gave %v, the first %d at limit %d %v", minScore, k, got[k], k, m, want)
				}
			}
		}
	}
}
