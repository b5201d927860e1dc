package postgres

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
)

// compiled is a cairn.Match as PostgreSQL takes it: a tsquery (empty when
// the match can match nothing: a leaf without a word, as "(", alone or
// under AND), the relation over the postings table that finds the
// matching chunks with each leaf's count in them, and each leaf's weight.
type compiled struct {
	tsq     string
	rel     relation // columns chunk and f<i> for the leaves that can match
	leaves  int
	weights []float64
	args    []any           // $1 is the agent, then the lexemes and phrases rel uses: a query numbers its own after them
	common  map[string]bool // the lexemes that form pairs: cairn.GramWords's (pairs.go) and the agent's own (ownpairs.go)
	fn      bool            // phrases of frequent lexemes read their newest matches through cairn_phrase_v1 (phrasefn.go)
}

// relation is a SELECT over the postings whose rows are the chunks a
// match finds, with a column f<i> per leaf i it holds (the leaf's
// weighted count in the chunk; 0 where an any-group's other members
// matched).
type relation struct {
	sql    string
	leaves []int
	any    []relation // an any-group's members (rel.sql is their union)
	// fn, when set, is the SQL of the relation's n newest rows, newest
	// first, through cairn_phrase_v1 (a phrase's: phrasefn.go).
	fn func(n string) string
}

// newestMembers turns newest's per-member limits on; TestLexicalTail
// turns it off and on query by query to measure them.
var newestMembers = true

// newest is the SQL of r's newest n rows (n a placeholder or an
// expression of one), for a pass or count that orders r by chunk,
// descending, and keeps n: an any-group's union takes each member's n
// newest first, which holds every one of the union's n newest with all
// its counts (a chunk among the union's n newest has fewer than n newer
// chunks in any member). The planner cannot push a limit through the
// union's GROUP BY: it read every member whole and hashed them (an
// identifier's two forms, 19,045 chunks each at 100k, 795 ms for the 501
// newest). Other relations come back as they are.
func (r relation) newest(n string) string {
	if r.fn != nil {
		return r.fn(n)
	}
	if len(r.any) == 0 || !newestMembers {
		return r.sql
	}
	var b strings.Builder
	b.WriteString("SELECT chunk")
	for _, i := range r.leaves {
		fmt.Fprintf(&b, ", max(f%d) AS f%d", i, i)
	}
	b.WriteString(" FROM (")
	for k, m := range r.any {
		if k > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, "(SELECT chunk, %s FROM (%s) u%d ORDER BY chunk DESC LIMIT %s)", columns("", m, r.leaves), m.newest(n), k, n)
	}
	b.WriteString(") u GROUP BY chunk")
	return b.String()
}

// compile validates m as SQLite's compiler does (the same ErrInvalid
// cases), stems its words (one round trip for words not seen before) and
// builds the tsquery and the relation.
func (s *Store) compile(ctx context.Context, q querier, m cairn.Match) (*compiled, error) {
	c, lex, err := s.compiler(ctx, q, m)
	if err != nil {
		return nil, err
	}
	c.tsq, c.rel = c.build(m, lex)
	return c, nil
}

// compiler validates ms, stems their words (one round trip for the words
// not seen before, all of ms's at once) and returns a compiled without a
// match yet, for build to number every relation's parameters after the
// agent, and the lexemes.
func (s *Store) compiler(ctx context.Context, q querier, ms ...cairn.Match) (*compiled, map[string][]string, error) {
	all := slices.Clone(cairn.GramWords)
	for _, m := range ms {
		if err := validate(m, false); err != nil {
			return nil, nil, err
		}
		for _, l := range m.Leaves() {
			all = append(all, words(strings.Join(l.Words, " "))...)
		}
	}
	lex, err := s.lex.lexemes(ctx, q, all)
	if err != nil {
		return nil, nil, fmt.Errorf("stem query words: %w", err)
	}
	c := &compiled{args: []any{s.agent}, common: map[string]bool{}, fn: s.phraseFn && mergePhrases}
	for _, w := range cairn.GramWords {
		for _, l := range lex[w] {
			c.common[l] = true
		}
	}
	if readOwnPairs {
		own, err := s.ownWords(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		for _, l := range own {
			c.common[l] = true
		}
	}
	return c, lex, nil
}

// arg adds a parameter and returns its placeholder.
func (c *compiled) arg(v any) string {
	c.args = append(c.args, v)
	return fmt.Sprintf("$%d", len(c.args))
}

// columns is the select list of every leaf column of r, each as
// f<i> (from alias when not empty), and 0 for the leaves of want that r
// does not hold.
func columns(alias string, r relation, want []int) string {
	var out []string
	for _, i := range want {
		if slices.Contains(r.leaves, i) {
			if alias != "" {
				out = append(out, fmt.Sprintf("%s.f%d", alias, i))
			} else {
				out = append(out, fmt.Sprintf("f%d", i))
			}
		} else {
			out = append(out, fmt.Sprintf("0::float8 AS f%d", i))
		}
	}
	return strings.Join(out, ", ")
}

// build returns m's tsquery ("" for a match of nothing) and its
// relation, numbering the leaves in order. An all-group joins its
// members on the chunk (the planner starts from the rarest, by the
// lexeme statistics); an any-group is the union of its members, one row
// per chunk with each leaf's count (0 where it is absent).
func (c *compiled) build(m cairn.Match, lex map[string][]string) (string, relation) {
	if m.Leaf() {
		return c.leaf(m, lex)
	}
	op := " & "
	if m.Op == cairn.MatchAny {
		op = " | "
	}
	var parts []string
	var rels []relation
	none := false
	for _, member := range m.Of {
		q, r := c.build(member, lex)
		if q == "" {
			none = true
			continue
		}
		parts, rels = append(parts, q), append(rels, r)
	}
	if len(parts) == 0 || none && m.Op == cairn.MatchAll {
		return "", relation{}
	}
	tsq := "(" + strings.Join(parts, op) + ")"
	if len(rels) == 1 {
		return tsq, rels[0]
	}
	var leaves []int
	for _, r := range rels {
		leaves = append(leaves, r.leaves...)
	}
	var b strings.Builder
	if m.Op == cairn.MatchAll {
		b.WriteString("SELECT r0.chunk")
		for k, r := range rels {
			for _, i := range r.leaves {
				fmt.Fprintf(&b, ", r%d.f%d", k, i)
			}
		}
		b.WriteString(" FROM (" + rels[0].sql + ") r0")
		for k, r := range rels[1:] {
			fmt.Fprintf(&b, " JOIN (%s) r%d ON r%d.chunk = r0.chunk", r.sql, k+1, k+1)
		}
		return tsq, relation{sql: b.String(), leaves: leaves}
	}
	b.WriteString("SELECT chunk")
	for _, i := range leaves {
		fmt.Fprintf(&b, ", max(f%d) AS f%d", i, i)
	}
	b.WriteString(" FROM (")
	for k, r := range rels {
		if k > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, "SELECT chunk, %s FROM (%s) u%d", columns("", r, leaves), r.sql, k)
	}
	b.WriteString(") u GROUP BY chunk")
	return tsq, relation{sql: b.String(), leaves: leaves, any: rels}
}

// prefixEnd bounds a prefix's key range from above: in the lexeme
// column's bytewise order every lexeme that starts with p sorts below p
// followed by the largest code point, except one continuing with that
// code point itself (not a letter: no lexeme does).
func prefixEnd(p string) string { return p + "\U0010FFFF" }

// leaf writes one term, phrase or prefix: its tsquery, its lexemes in
// sequence (<->), the last one a prefix (:*) for MatchPrefix; and its
// relation: a lexeme's postings (a prefix's summed per chunk over the
// lexemes it starts); several lexemes are a phrase (see phrase), or, when
// the last is a prefix, the chunks holding all of them, counted as the
// least of their counts, whose tsvector then has them in sequence. A leaf
// with no lexeme matches nothing.
func (c *compiled) leaf(m cairn.Match, lex map[string][]string) (string, relation) {
	var ls []string
	for _, w := range words(strings.Join(m.Words, " ")) {
		ls = append(ls, lex[w]...)
	}
	w := m.Weight
	if w == 0 {
		w = 1
	}
	i := c.leaves
	c.leaves++
	c.weights = append(c.weights, w)
	if len(ls) == 0 {
		return "", relation{}
	}
	if m.Op != cairn.MatchPrefix && len(ls) > 1 {
		return c.phrase(ls, i)
	}
	var q, from, counts []string
	// A lexeme the phrase repeats is read once (see phrase).
	seen := map[string]bool{}
	for k, l := range ls {
		prefix := m.Op == cairn.MatchPrefix && k == len(ls)-1
		lit := quoteLiteral(strings.ReplaceAll(l, `\`, `\\`))
		if seen[l] && !prefix {
			q = append(q, lit)
			continue
		}
		var p string
		if prefix {
			q = append(q, lit+":*")
			p = fmt.Sprintf("(SELECT chunk, sum(tf) AS tf FROM postings WHERE agent = $1 AND lexeme >= %s AND lexeme < %s GROUP BY chunk)",
				c.arg(l), c.arg(prefixEnd(l)))
		} else {
			q = append(q, lit)
			p = "(SELECT chunk, tf, pos FROM postings WHERE agent = $1 AND lexeme = " + c.arg(l) + ")"
			seen[l] = true
		}
		from = append(from, fmt.Sprintf("%s p%d", p, len(from)))
		counts = append(counts, fmt.Sprintf("p%d.tf", len(counts)))
	}
	tsq := q[0]
	if len(q) > 1 {
		tsq = "(" + strings.Join(q, " <-> ") + ")"
	}
	if len(ls) == 1 {
		return tsq, relation{sql: fmt.Sprintf("SELECT p0.chunk, p0.tf::float8 AS f%d FROM %s", i, from[0]), leaves: []int{i}}
	}
	// A phrase ending in a prefix: its order is checked on the chunk's
	// tsvector (the prefix's positions are spread over its lexemes).
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT p0.chunk, least(%s)::float8 AS f%d FROM %s", strings.Join(counts, ", "), i, from[0])
	for k, f := range from[1:] {
		fmt.Fprintf(&b, " JOIN %s ON p%d.chunk = p0.chunk", f, k+1)
	}
	fmt.Fprintf(&b, " WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.agent = $1 AND c.id = p0.chunk AND c.tsv @@ %s::tsquery)", c.arg(tsq))
	return tsq, relation{sql: b.String(), leaves: []int{i}}
}

// phrase writes leaf i, a phrase of two or more lexemes ls (no prefix):
// its tsquery, and its relation: the chunks holding every posting list of
// phraseUnits(ls) (pairs of a common lexeme and its neighbour, lexemes no
// pair covers), at their offsets, counted as the least of their counts
// (a bound on the phrase's own count). The offsets are checked on the
// postings' positions (the tsvector's, so the same test as its <->
// operator). A list the phrase repeats ("the the zizoux") is read once:
// its postings hold every position of it (reading them twice doubled the
// pass: 73,420 postings of "the" each time at 100k chunks).
func (c *compiled) phrase(ls []string, i int) (string, relation) {
	var q []string
	for _, l := range ls {
		q = append(q, quoteLiteral(strings.ReplaceAll(l, `\`, `\\`)))
	}
	tsq := "(" + strings.Join(q, " <-> ") + ")"
	units := phraseUnits(c.common, ls)
	var from, counts, seq, toks []string
	alias := map[string]int{}
	for _, u := range units {
		a, ok := alias[u.token]
		if !ok {
			a = len(from)
			alias[u.token] = a
			toks = append(toks, c.arg(u.token))
			from = append(from, fmt.Sprintf("(SELECT chunk, tf, pos FROM postings WHERE agent = $1 AND lexeme = %s) p%d", toks[a], a))
			counts = append(counts, fmt.Sprintf("p%d.tf", a))
		}
		if a != 0 || u.off != 0 {
			seq = append(seq, fmt.Sprintf("(x + %d)::smallint = ANY(p%d.pos)", u.off, a))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT p0.chunk, least(%s)::float8 AS f%d FROM %s", strings.Join(counts, ", "), i, from[0])
	for k, f := range from[1:] {
		fmt.Fprintf(&b, " JOIN %s ON p%d.chunk = p0.chunk", f, k+1)
	}
	if len(seq) > 0 {
		fmt.Fprintf(&b, " WHERE EXISTS (SELECT 1 FROM unnest(p0.pos) x WHERE %s)", strings.Join(seq, " AND "))
	}
	rel := relation{sql: b.String(), leaves: []int{i}}
	plain := 0
	for _, u := range units {
		if !strings.HasPrefix(u.token, pairSep) {
			plain++
		}
	}
	if c.fn && len(from) > 1 && plain > 1 {
		// Two lexemes or more no pair covers: the newest matches come
		// from cairn_phrase_v1, which may merge-join the lists (see
		// phrasefn.go): the same lists (the join's parameters, in its
		// order), offsets and counts as the join above. The unit's
		// list and offset are numbers written out; the statement has
		// no parameter of its own.
		var ui, uo []string
		for _, u := range units {
			ui, uo = append(ui, strconv.Itoa(alias[u.token]+1)), append(uo, strconv.Itoa(u.off))
		}
		call := fmt.Sprintf("SELECT x.r_chunk AS chunk, x.r_f AS f%d FROM %s($1, ARRAY[%s]::text[], '{%s}'::int[], '{%s}'::int[], (",
			i, phraseFnName, strings.Join(toks, ", "), strings.Join(ui, ","), strings.Join(uo, ","))
		rel.fn = func(n string) string { return call + n + ")::bigint) x" }
	}
	return tsq, rel
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
