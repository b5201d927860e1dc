package postgres

import (
	"context"
	"strings"
	"sync"
	"unicode"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"
)

// Words are split in Go, as SQLite's unicode61 tokenizer (with
// remove_diacritics 2) splits them: a word is a run of letters, numbers
// and private-use characters; everything else separates; letters fold to
// lower case and lose their diacritics. PostgreSQL's own parser would
// read "sqlite/read.go" as one file token and "foo-bar" as three, so the
// text it is given is the words alone, one space apart, and it only stems
// them (the cairn text search configuration).

// words returns the words of s.
func words(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			// a combining mark: a diacritic of the letter before, dropped
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r):
			foldInto(&b, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// foldInto writes r lower-cased without its diacritics.
func foldInto(b *strings.Builder, r rune) {
	r = unicode.ToLower(r)
	if r < 0x80 {
		b.WriteRune(r)
		return
	}
	for _, d := range norm.NFD.String(string(r)) {
		if !unicode.Is(unicode.Mn, d) {
			b.WriteRune(unicode.ToLower(d))
		}
	}
}

// plain is s as the text search configuration is given it: its words,
// one space apart.
func plain(s string) string { return strings.Join(words(s), " ") }

// lexemeCache maps a word to the lexemes PostgreSQL stems it into (one,
// or several when its parser still splits the word), in order. Stemming
// is a pure function of the word, so entries never go stale; the cache is
// dropped whole past maxLexemes.
type lexemeCache struct {
	mu sync.Mutex
	m  map[string][]string
}

const maxLexemes = 100_000

// lexemes returns the lexemes of each word, asking the database once for
// the words not cached.
func (c *lexemeCache) lexemes(ctx context.Context, q querier, ws []string) (map[string][]string, error) {
	out := make(map[string][]string, len(ws))
	var missing []string
	c.mu.Lock()
	for _, w := range ws {
		if l, ok := c.m[w]; ok {
			out[w] = l
		} else if _, seen := out[w]; !seen {
			out[w] = nil
			missing = append(missing, w)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT w, coalesce((SELECT array_agg(u.lexeme ORDER BY p)
			FROM unnest(to_tsvector('cairn', w)) u, unnest(u.positions) p), '{}')
		FROM unnest($1::text[]) w`, missing)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
		w string
		l []string
	}, error) {
		var v struct {
			w string
			l []string
		}
		err := r.Scan(&v.w, &v.l)
		return v, err
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > maxLexemes {
		c.m = make(map[string][]string)
	}
	for _, g := range got {
		c.m[g.w] = g.l
		out[g.w] = g.l
	}
	return out, nil
}

// querier is what reads need of a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
