package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestFewMatchesSameAnswer checks that a query scanned oldest first
// (cairn.LexicalQuery.FewMatches, or no cap) answers exactly what the
// newest-first scan answers: the same candidates in the same order with the
// same scores, scan size, cap flag and lowest id; that the oldest-first
// statement is the one that ran; and that a wrong hint (more matches than
// the cap) still gets the newest matches, not the oldest.
func TestFewMatchesSameAnswer(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("alpha beta gamma delta walrus ice busy timeout")
	// Several batches, so the full-text index has several segments.
	for batch := range 4 {
		var docs []cairn.Document
		for i := range 120 {
			var b strings.Builder
			for line := range 3 {
				for range 2 + r.IntN(12) {
					b.WriteString(words[r.IntN(len(words))] + " ")
				}
				fmt.Fprintf(&b, "line%d\n", line)
			}
			docs = append(docs, doc("n", fmt.Sprintf("%d/%d.md", batch, i), b.String()))
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: docs}); err != nil {
			t.Fatal(err)
		}
	}
	term := func(w string, weight float64) cairn.Match {
		return cairn.Match{Op: cairn.MatchTerm, Words: []string{w}, Weight: weight}
	}
	matches := []cairn.Match{
		term("walrus", 1.3),
		{Op: cairn.MatchPhrase, Words: []string{"walrus", "ice"}, Weight: 2.1},
		{Op: cairn.MatchAll, Of: []cairn.Match{term("alpha", 0.7), term("busy", 1.9), term("ice", 1.1)}},
		{Op: cairn.MatchAny, Of: []cairn.Match{term("gamma", 0.4), term("timeout", 2.6)}},
		{Op: cairn.MatchAll, Of: []cairn.Match{term("delta", 1.7), {Op: cairn.MatchPhrase, Words: []string{"beta", "gamma"}, Weight: 3.3}}},
	}
	search := func(m cairn.Match, maxCand int, few bool) *cairn.LexicalResult {
		t.Helper()
		res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: m, Limit: 10, MaxCandidates: maxCand, FewMatches: few})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, m := range matches {
		c, err := s.MatchCount(ctx, m, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if c.N < 20 {
			t.Fatalf("%s: %d matches; the test needs more", m, c.N)
		}
		for _, tc := range []struct {
			name    string
			maxCand int
			capped  bool
		}{
			{"cap above the matches", c.N + 3, false},
			{"cap at the matches", c.N, false},
			{"no cap", 0, false},
			{"wrong hint: cap under the matches", c.N / 2, true},
		} {
			want := search(m, tc.maxCand, false)
			got := search(m, tc.maxCand, true)
			if want.Capped != tc.capped || len(want.Candidates) != 10 {
				t.Fatalf("%s, %s: newest first capped %v with %d candidates; the case wants capped %v and 10", m, tc.name, want.Capped, len(want.Candidates), tc.capped)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s:\noldest first %+v\nnewest first %+v", m, tc.name, got, want)
			}
		}
	}
	if s.cachedStmt(topQueryAsc) == nil {
		t.Error("the oldest-first statement never ran")
	}
}

// TestProbeSameAnswer: an all-words query of common words without the
// FewMatches hint is probed over the newest ids and, when the probe
// expects about the cap or fewer, walked oldest first (topQueryTrim); the
// answers are those of the newest-first scan (probe off) in every case:
// few matches, about the cap, many, matches only among the oldest chunks
// (the probe finds none: the walk reaches its guard and runs again newest
// first) or crowded into the newest (the probe overestimates), each at
// caps below, at and above the matches.
func TestProbeSameAnswer(t *testing.T) {
	ctx := context.Background()
	share := probeShare
	t.Cleanup(func() { probeShare = share })
	s := openStore(t, filepath.Join(t.TempDir(), "index.db"), "f1")
	r := rand.New(rand.NewPCG(5, 6))
	const docs, lines = 1100, 8 // 8,800 chunks: the probe's window is 275 ids
	for batch := range 4 {
		var ds []cairn.Document
		for i := range docs / 4 {
			n := batch*docs/4 + i
			var b strings.Builder
			fmt.Fprintf(&b, "d%04d ", n)
			for range lines {
				for w, p := range map[string]float64{"walrus": 0.5, "kelp": 0.5, "seal": 0.2, "skua": 0.05} {
					if r.Float64() < p {
						b.WriteString(w + " ")
					}
				}
				if n < docs/3 && r.Float64() < 0.6 {
					b.WriteString("oldish ")
				}
				if n >= docs-docs/40 {
					b.WriteString("newish ")
				}
				fmt.Fprintf(&b, "filler%d\n", r.IntN(50))
			}
			ds = append(ds, doc("n", fmt.Sprintf("%04d.md", n), b.String()))
		}
		if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: ds}); err != nil {
			t.Fatal(err)
		}
	}
	term := func(w string, weight float64) cairn.Match {
		return cairn.Match{Op: cairn.MatchTerm, Words: []string{w}, Weight: weight}
	}
	all := func(ws ...string) cairn.Match {
		m := cairn.Match{Op: cairn.MatchAll}
		for i, w := range ws {
			m.Of = append(m.Of, term(w, 0.5+float64(i)))
		}
		return m
	}
	search := func(m cairn.Match, maxCand int) *cairn.LexicalResult {
		t.Helper()
		res, err := s.Lexical(ctx, cairn.LexicalQuery{Match: m, Limit: 10, MaxCandidates: maxCand})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, m := range []cairn.Match{all("seal", "skua"), all("walrus", "seal"), all("walrus", "kelp"), all("oldish", "walrus"), all("newish", "kelp"), all("walrus", "kelp", "seal")} {
		c, err := s.MatchCount(ctx, m, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if c.N < 40 {
			t.Fatalf("%s: %d matches; the test needs more", m, c.N)
		}
		for _, maxCand := range []int{10, c.N / 5, c.N / 2, c.N - 1, c.N, c.N + 7, 2 * c.N} {
			got := search(m, maxCand)
			probeShare = 0
			want := search(m, maxCand)
			probeShare = share
			if want.Capped != (c.N > maxCand) || len(want.Candidates) != 10 {
				t.Fatalf("%s, cap %d of %d matches: capped %v with %d candidates", m, maxCand, c.N, want.Capped, len(want.Candidates))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, cap %d of %d matches:\nprobed    %+v\nnot probed %+v", m, maxCand, c.N, got, want)
			}
		}
	}
	if s.cachedStmt(topQueryTrim) == nil {
		t.Error("no query was walked oldest first after its probe")
	}
}
