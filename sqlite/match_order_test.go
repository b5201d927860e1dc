package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestCompileAllRarestFirst checks that an all-of group is written with
// its highest-weight (rarest) member first, ties in the query's order, and
// that order gives the query's order back for the sum.
func TestCompileAllRarestFirst(t *testing.T) {
	term := func(w string, weight float64) cairn.Match {
		return cairn.Match{Op: cairn.MatchTerm, Words: []string{w}, Weight: weight}
	}
	for _, tt := range []struct {
		m     cairn.Match
		expr  string
		idf   []float64
		order []int32
	}{
		{cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{term("a", 0.5), term("b", 3), term("c", 1.2)}},
			`"b" AND "c" AND "a"`, []float64{3, 1.2, 0.5}, []int32{2, 0, 1}},
		{cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{term("a", 3), term("b", 1)}},
			`"a" AND "b"`, []float64{3, 1}, nil},
		{cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{term("a", 1), term("b", 1), term("c", 2)}},
			`"c" AND "a" AND "b"`, []float64{2, 1, 1}, []int32{1, 2, 0}},
		// A group member weighs its rarest phrase; an any-of group keeps its order.
		{cairn.Match{Op: cairn.MatchAll, Of: []cairn.Match{
			{Op: cairn.MatchAny, Of: []cairn.Match{term("x", 0.2), term("y", 0.4)}},
			{Op: cairn.MatchAny, Of: []cairn.Match{term("z", 0.3), term("w", 5)}}}},
			`("z" OR "w") AND ("x" OR "y")`, []float64{0.3, 5, 0.2, 0.4}, []int32{2, 3, 0, 1}},
		{cairn.Match{Op: cairn.MatchAny, Of: []cairn.Match{term("a", 0.5), term("b", 3)}},
			`"a" OR "b"`, []float64{0.5, 3}, nil},
	} {
		c, err := compile(tt.m)
		if err != nil {
			t.Fatal(err)
		}
		if c.expr != tt.expr || !slices.Equal(c.idf, tt.idf) || !slices.Equal(c.order, tt.order) {
			t.Errorf("compile(%s) = %q %v order %v, want %q %v order %v", tt.m, c.expr, c.idf, c.order, tt.expr, tt.idf, tt.order)
		}
	}
}

// TestRarestFirstScoresUnchanged runs all-of queries through both passes
// (cairn_score in SQLite, cairn_tf summed in Go) with the members in the
// query's order and rarest first: the same rows with the same scores, bit
// for bit.
func TestRarestFirstScoresUnchanged(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(7, 8))
	words := strings.Fields("alpha beta gamma delta walrus ice busy timeout")
	var docs []cairn.Document
	for i := range 400 {
		var b strings.Builder
		for range 3 + r.IntN(30) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		docs = append(docs, doc("n", fmt.Sprintf("%d.md", i), "# "+words[r.IntN(len(words))]+"\n\n"+b.String()+"\n"))
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: docs}); err != nil {
		t.Fatal(err)
	}
	for trial := range 30 {
		n := 2 + r.IntN(3)
		var of []cairn.Match
		var want []string
		for _, k := range r.Perm(len(words))[:n] {
			// Weights with many digits, so a changed order of the sum shows.
			of = append(of, cairn.Match{Op: cairn.MatchTerm, Words: []string{words[k]}, Weight: 0.1 + 3*r.Float64()})
			want = append(want, `"`+words[k]+`"`)
		}
		m := cairn.Match{Op: cairn.MatchAll, Of: of}
		reordered, err := compile(m)
		if err != nil {
			t.Fatal(err)
		}
		plain := compiled{expr: strings.Join(want, " AND ")}
		for _, o := range of {
			plain.idf = append(plain.idf, o.Weight)
		}
		for _, filtered := range []bool{false, true} {
			var tops [2][]scored
			for i, c := range []compiled{plain, reordered} {
				q := lexicalQuery{cairn.LexicalQuery{Limit: 400, Corpora: []string{"n"}}, c}
				res := &cairn.LexicalResult{}
				var err error
				if filtered {
					tops[i], err = s.scanFiltered(ctx, nil, q, res)
					slices.SortFunc(tops[i], func(a, b scored) int { return int(a.id - b.id) })
				} else {
					tops[i], err = s.scanTop(ctx, nil, q, res)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(tops[0]) == 0 && trial < 3 {
				t.Fatalf("%s: no matches; the test needs some", m)
			}
			if !slices.Equal(tops[0], tops[1]) {
				t.Fatalf("%s (filtered %v): query order %v, rarest first %q %v", m, filtered, tops[0], reordered.expr, tops[1])
			}
		}
	}
}
