package sqlite

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// gramMarker starts a quoted FTS5 string that the cairn tokenizer answers
// with common grams (grams.go): the same matches as the plain phrase,
// without walking every row that holds its frequent words. That holds for
// the phrase as a term of its own, as compile writes it; the rewritten
// phrase has fewer tokens, so it must not go inside NEAR() or after + or ^
// (compile writes none of those).
const gramMarker = "\x1f"

// maxPhrases is the most phrases one query may hold: cairn_tf and
// cairn_score (rank.go) score that many, CAIRN_MAX_PHRASES, and a query
// with more would leave the rest unscored. search.MaxQueryTerms keeps a
// parsed query within it (an identifier is two phrases).
const maxPhrases = 256

// compiled is a cairn.Match as FTS5 takes it: the MATCH expression and the
// weight of each of its phrases, in the order they appear in it (the order
// cairn_tf returns their factors).
type compiled struct {
	expr string
	idf  []float64
	// order, when not nil, lists the expression's phrases (indexes into
	// idf) in the order they appear in the cairn.Match: scores sum in that
	// order, so writing an all-of group rarest first (see write) leaves
	// every score bit for bit what the query's own order gives.
	order []int32
	src   []int // per phrase of the expression, its index in the Match
}

// compile turns a backend-neutral match into an FTS5 MATCH expression and
// the weights of its phrases. Every leaf is one quoted string: a term is
// its word, a phrase of several words starts with gramMarker, a prefix is
// followed by *; a group's members are joined by AND or OR, and a group
// inside a group is parenthesized. Double quotes in words are doubled, so
// no word can end its string, and control characters (the marker among
// them; the tokenizer separates words at all of them) become spaces, so no
// word can ask for grams or forge a pair token. A match that cannot be
// compiled (a leaf without words or with an empty one, a group without
// members, a weight that is not a finite number or sits on a group, more
// than maxPhrases phrases) is an ErrInvalid error. A word of punctuation alone is no error: FTS5 finds
// no token in it, and its phrase matches nothing (it still takes its
// place in the phrase order, so the weights stay aligned).
func compile(m cairn.Match) (compiled, error) {
	if n := phrases(m); n > maxPhrases {
		return compiled{}, cairn.Invalidf("lexical query has %d phrases (terms, phrases and prefixes): allowed up to %d", n, maxPhrases)
	}
	var c compiled
	var b strings.Builder
	if err := c.write(&b, m, false, 0); err != nil {
		return compiled{}, err
	}
	c.expr = b.String()
	for i, j := range c.src {
		if i != j {
			c.order = make([]int32, len(c.src))
			for i, j := range c.src {
				c.order[j] = int32(i)
			}
			break
		}
	}
	return c, nil
}

// write writes m; base is the index of m's first phrase in the whole
// Match. The members of an all-of group are written rarest first (highest
// weight, which is the inverse document frequency search gives each
// phrase; ties keep the query's order): FTS5 advances an AND from its
// first member and seeks the others to it, and at 1M chunks three terms of
// 60k to 130k rows each cost 23 ms CPU in the query's order against 15 ms
// rarest first (bench/RESULTS.md). Matching rows are the same either way.
func (c *compiled) write(b *strings.Builder, m cairn.Match, nested bool, base int) error {
	if m.Leaf() {
		return c.leaf(b, m, base)
	}
	if m.Op != cairn.MatchAll && m.Op != cairn.MatchAny {
		return cairn.Invalidf("lexical query %s: unknown match op %d: want term, phrase, prefix, all or any", m, m.Op)
	}
	if len(m.Of) == 0 {
		return cairn.Invalidf("lexical query %s: a group needs at least one member", m)
	}
	if m.Weight != 0 {
		return cairn.Invalidf("lexical query %s: a group has no weight (weigh its terms)", m)
	}
	op := " AND "
	if m.Op == cairn.MatchAny {
		op = " OR "
	}
	if nested {
		b.WriteByte('(')
	}
	bases := make([]int, len(m.Of))
	for i := 1; i < len(m.Of); i++ {
		bases[i] = bases[i-1] + phrases(m.Of[i-1])
	}
	idx := make([]int, len(m.Of))
	for i := range idx {
		idx[i] = i
	}
	if m.Op == cairn.MatchAll {
		slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(maxWeight(m.Of[j]), maxWeight(m.Of[i])) })
	}
	for k, i := range idx {
		if k > 0 {
			b.WriteString(op)
		}
		if err := c.write(b, m.Of[i], true, base+bases[i]); err != nil {
			return err
		}
	}
	if nested {
		b.WriteByte(')')
	}
	return nil
}

// phrases counts the phrases (leaves) of m.
func phrases(m cairn.Match) int {
	if m.Leaf() {
		return 1
	}
	n := 0
	for _, o := range m.Of {
		n += phrases(o)
	}
	return n
}

// maxWeight is the largest weight of m's phrases (an unset weight is 1,
// as leaf records it); NaN, which leaf refuses, sorts as any number.
func maxWeight(m cairn.Match) float64 {
	if m.Leaf() {
		if m.Weight == 0 || math.IsNaN(m.Weight) {
			return 1
		}
		return m.Weight
	}
	w := math.Inf(-1)
	for _, o := range m.Of {
		w = max(w, maxWeight(o))
	}
	return w
}

// leaf writes one term, phrase or prefix as a quoted FTS5 string and
// records its weight and its index in the whole Match (src).
func (c *compiled) leaf(b *strings.Builder, m cairn.Match, src int) error {
	switch {
	case len(m.Words) == 0 || slices.Contains(m.Words, ""):
		return cairn.Invalidf("lexical query %s: a term, phrase or prefix needs words, none of them empty", m)
	case m.Op == cairn.MatchTerm && len(m.Words) > 1:
		return cairn.Invalidf("lexical query %s: a term is one word (use a phrase for several)", m)
	case math.IsNaN(m.Weight) || math.IsInf(m.Weight, 0):
		return cairn.Invalidf("lexical query %s: weight %v: want a finite number", m, m.Weight)
	}
	text := strings.Join(m.Words, " ")
	if m.Op == cairn.MatchPhrase && len(m.Words) > 1 {
		text = gramMarker + plainText(text)
	} else {
		text = plainText(text)
	}
	b.WriteString(`"` + strings.ReplaceAll(text, `"`, `""`) + `"`)
	if m.Op == cairn.MatchPrefix {
		b.WriteByte('*')
	}
	w := m.Weight
	if w == 0 {
		w = 1
	}
	c.idf = append(c.idf, w)
	c.src = append(c.src, src)
	return nil
}

// plainText replaces control characters with spaces: the tokenizer reads
// them as separators anyway, and one of them is gramMarker.
func plainText(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
