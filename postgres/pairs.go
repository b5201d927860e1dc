package postgres

import (
	"strings"

	"github.com/cairnmemory/cairn"
)

// Pair postings: common grams for phrases of frequent words, as SQLite's
// cairn tokenizer writes them (sqlite/grams.go).
//
// A phrase was checked on the positions of its lexemes' postings, joined
// on the chunk: for "thoupleand a in thoucrous" that read the 11,590
// postings of "in" (and more of "a") at 100k chunks for one match, the
// whole of the lexical tail there. So besides one posting per lexeme, each
// indexed chunk has one posting per distinct pair of adjacent lexemes in
// which one is common (a lexeme of cairn.GramWords): the token is
// "\x1fa\x1fb" (the separator keeps pairs out of a prefix's key range: no
// lexeme starts with it), its positions are those of a in the pair, its
// count the lesser of the two lexemes' counts. A phrase then joins its
// pairs, which are rare, and its words that no pair covers, and checks
// their offsets; the chunks it finds and the counts it scores are the
// same as without pairs (see phraseUnits).
//
// Pairs are made from the tsvector's positions, the same positions the
// lexemes' postings hold, so "a at x and b at x+1" is exactly "pair a b at
// x". Lexemes over pairMaxLexeme bytes form no pairs (their key would
// outgrow a b-tree entry), on both sides.
const pairMaxLexeme = 64

// pairSep starts and joins a pair token.
const pairSep = "\x1f"

// pairToken is the posting token of lexeme a followed by lexeme b.
func pairToken(a, b string) string { return pairSep + a + pairSep + b }

// pairable reports whether adjacent lexemes a and b form a pair.
func pairable(common map[string]bool, a, b string) bool {
	return (common[a] || common[b]) && len(a) <= pairMaxLexeme && len(b) <= pairMaxLexeme
}

// commonLexemesSQL is the array of the common lexemes: cairn.GramWords
// stemmed by the cairn text search configuration, as the query side stems
// them (lexemeCache); one init plan per statement.
var commonLexemesSQL = `ARRAY(SELECT lexeme FROM unnest(to_tsvector('cairn', ` +
	quoteLiteral(strings.Join(cairn.GramWords, " ")) + `)))`

// pairLexemesSQL is the array of every lexeme that pairs for agent $1:
// the common lexemes and the agent's own pair words (pairWordsKey; see
// ownpairs.go), one init plan each per statement. Every statement that
// makes pairs binds $1 to the agent, and reads the list in its own
// snapshot: a write holds the agent's write lock, under which the list
// changes, so the pairs a chunk gets are those of the list its readers
// see once the write commits.
var pairLexemesSQL = `(` + commonLexemesSQL + ` || ` + ownLexemesSQL + `)`

// chunkPairsSQL is the pair postings of chunk c (a row of chunks: its tsv
// and tf) of agent $1, as rows (lexeme, tf, pos), for a LATERAL join.
var chunkPairsSQL = pairsWhere(`a.lexeme = ANY(` + pairLexemesSQL + `) OR b.lexeme = ANY(` + pairLexemesSQL + `)`)

// pairsWhere is the pair postings of chunk c whose two adjacent lexemes
// a and b meet cond (and are short enough to pair).
func pairsWhere(cond string) string {
	return `SELECT chr(31) || a.lexeme || chr(31) || b.lexeme AS lexeme,
		least(coalesce((c.tf->>a.lexeme)::real, 0), coalesce((c.tf->>b.lexeme)::real, 0)) AS tf,
		array_agg(a.p ORDER BY a.p) AS pos
	FROM (SELECT x.lexeme, p FROM unnest(c.tsv) x, unnest(x.positions) p) a
	JOIN (SELECT x.lexeme, p FROM unnest(c.tsv) x, unnest(x.positions) p) b ON b.p = a.p + 1
	WHERE (` + cond + `)
		AND octet_length(a.lexeme) <= 64 AND octet_length(b.lexeme) <= 64
	GROUP BY a.lexeme, b.lexeme`
}

// chunkPostingsSQL is every posting of chunk c: one per lexeme of its
// tsvector, with its count from the tf map and its positions, and its
// pairs.
var chunkPostingsSQL = `SELECT x.lexeme, coalesce((c.tf->>x.lexeme)::real, 0) AS tf, x.positions AS pos FROM unnest(c.tsv) x
	UNION ALL ` + chunkPairsSQL

// postingsOf is an INSERT of the postings (lexemes and pairs) of the
// indexed chunks that where (a condition on chunks c) selects, ordered by
// order when not empty.
func postingsOf(where, order string) string {
	q := `INSERT INTO postings(agent, lexeme, chunk, tf, pos)
	SELECT c.agent, y.lexeme, c.id, y.tf, y.pos FROM chunks c CROSS JOIN LATERAL (` + chunkPostingsSQL + `) y
	WHERE ` + where + ` AND NOT c.noise AND c.tsv IS NOT NULL`
	if order != "" {
		q += ` ORDER BY ` + order
	}
	return q
}

// pairPhrases turns phrases over pair postings on; TestPairPhrases and
// TestLexicalTail turn it off to compare.
var pairPhrases = true

// readOwnPairs turns phrases over the pairs of the agent's own words
// (ownpairs.go) on; TestLexicalTail's CAIRN_PG_TAIL_AB=ownpairs turns it
// off and on query by query to compare. Writes make them either way.
var readOwnPairs = true

// unit is one posting list a phrase reads: a pair or a lexeme, at its
// offset from the phrase's first lexeme.
type unit struct {
	token string
	off   int
}

// phraseUnits is the phrase of lexemes ls as posting lists: each adjacent
// pair that forms a pair token, at the offset of its first lexeme, and
// each lexeme no pair covers, at its own. A chunk holds every unit at
// x+off for some x exactly when it holds ls[k] at x+k for every k: a
// pair at x+k-1 is its two lexemes at x+k-1 and x+k. And the least of
// the units' counts is the least of the lexemes' counts (a pair counts
// the lesser of its two, and every lexeme is in some unit). The first
// unit is at offset 0.
func phraseUnits(common map[string]bool, ls []string) []unit {
	covered := make([]bool, len(ls))
	var pairs []unit
	if pairPhrases {
		for k := 1; k < len(ls); k++ {
			if pairable(common, ls[k-1], ls[k]) {
				pairs = append(pairs, unit{pairToken(ls[k-1], ls[k]), k - 1})
				covered[k-1], covered[k] = true, true
			}
		}
	}
	var out []unit
	for k, l := range ls {
		for len(pairs) > 0 && pairs[0].off <= k {
			out, pairs = append(out, pairs[0]), pairs[1:]
		}
		if !covered[k] {
			out = append(out, unit{l, k})
		}
	}
	return out
}
