package postgres

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

// compiled is a cairn.Match as PostgreSQL takes it: a tsquery (empty when
// the match can match nothing: a leaf without a word, as "(", alone or
// under AND) and, per leaf in order, the SQL that counts it in a chunk's
// tf map and its weight.
type compiled struct {
	tsq     string
	counts  []string // one SQL expression per leaf over column tf
	weights []float64
	args    []any // the parameters counts use, $1 on: a query numbers its own after them
}

// compile validates m as SQLite's compiler does (the same ErrInvalid
// cases), stems its words (one round trip for words not seen before) and
// builds the tsquery and the per-leaf counts.
func (s *Store) compile(ctx context.Context, q querier, m cairn.Match) (*compiled, error) {
	if err := validate(m, false); err != nil {
		return nil, err
	}
	var all []string
	for _, l := range m.Leaves() {
		all = append(all, words(strings.Join(l.Words, " "))...)
	}
	lex, err := s.lex.lexemes(ctx, q, all)
	if err != nil {
		return nil, fmt.Errorf("stem query words: %w", err)
	}
	c := &compiled{}
	c.tsq = c.build(m, lex)
	return c, nil
}

func validate(m cairn.Match, nested bool) error {
	if m.Leaf() {
		switch {
		case len(m.Words) == 0 || slices.Contains(m.Words, ""):
			return cairn.Invalidf("lexical query %s: a term, phrase or prefix needs words, none of them empty", m)
		case m.Op == cairn.MatchTerm && len(m.Words) > 1:
			return cairn.Invalidf("lexical query %s: a term is one word (use a phrase for several)", m)
		case math.IsNaN(m.Weight) || math.IsInf(m.Weight, 0):
			return cairn.Invalidf("lexical query %s: weight %v: want a finite number", m, m.Weight)
		}
		return nil
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
	for _, c := range m.Of {
		if err := validate(c, true); err != nil {
			return err
		}
	}
	return nil
}

// build returns m's tsquery ("" for a match of nothing) and records each
// leaf's count in order.
func (c *compiled) build(m cairn.Match, lex map[string][]string) string {
	if m.Leaf() {
		return c.leaf(m, lex)
	}
	op := " & "
	if m.Op == cairn.MatchAny {
		op = " | "
	}
	var parts []string
	none := false
	for _, member := range m.Of {
		q := c.build(member, lex)
		if q == "" {
			none = true
			continue
		}
		parts = append(parts, q)
	}
	if len(parts) == 0 || none && m.Op == cairn.MatchAll {
		return ""
	}
	return "(" + strings.Join(parts, op) + ")"
}

// leaf writes one term, phrase or prefix: its lexemes in sequence (<->),
// the last one a prefix (:*) for MatchPrefix. Its count in a chunk is the
// weighted count of its lexeme, or for several the least of theirs (a
// bound on the phrase's own count), a prefix counting every lexeme it
// starts.
func (c *compiled) leaf(m cairn.Match, lex map[string][]string) string {
	var ls []string
	for _, w := range words(strings.Join(m.Words, " ")) {
		ls = append(ls, lex[w]...)
	}
	w := m.Weight
	if w == 0 {
		w = 1
	}
	c.weights = append(c.weights, w)
	if len(ls) == 0 {
		c.counts = append(c.counts, "0::float8")
		return ""
	}
	var q, counts []string
	for i, l := range ls {
		prefix := m.Op == cairn.MatchPrefix && i == len(ls)-1
		c.args = append(c.args, l)
		p := fmt.Sprintf("$%d", len(c.args))
		lit := quoteLiteral(strings.ReplaceAll(l, `\`, `\\`))
		if prefix {
			q = append(q, lit+":*")
			counts = append(counts, `(SELECT coalesce(sum(e.value::float8), 0) FROM jsonb_each_text(tf) e WHERE starts_with(e.key, `+p+`::text))`)
		} else {
			q = append(q, lit)
			counts = append(counts, `coalesce((tf->>`+p+`::text)::float8, 0)`)
		}
	}
	count := counts[0]
	if len(counts) > 1 {
		count = "least(" + strings.Join(counts, ", ") + ")"
	}
	c.counts = append(c.counts, count)
	if len(q) == 1 {
		return q[0]
	}
	return "(" + strings.Join(q, " <-> ") + ")"
}

// k1 is BM25's term-frequency saturation, as in SQLite (sqlite/rank.go);
// b is 0 there and here: a chunk's length is not read.
const k1 = 1.2

// score is Σ wᵢ·tf'ᵢ over the leaves' counts fᵢ, tf' = f·(k1+1)/(f+k1).
func (c *compiled) score(f []float64) float64 {
	var sum float64
	for i, w := range c.weights {
		if i < len(f) && f[i] > 0 {
			sum += w * f[i] * (k1 + 1) / (f[i] + k1)
		}
	}
	return sum
}
