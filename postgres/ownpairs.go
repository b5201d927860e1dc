package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Pairs of an agent's own frequent words. cairn.GramWords pair for every
// agent (pairs.go); a large agent also pairs the lexemes in a fifth of its
// chunks or more (its own frequent words, outside GramWords), as SQLite
// pairs an index's own frequent terms (sqlite/pairs.go). A phrase of two
// such words ("moun recrai": 22,246 and 55,914 postings at 100k chunks,
// merge-joined for 482 matches) then reads one rare list (bench/RESULTS.md,
// issue 20, pgq: phrase p99 57.9 -> 14.9 ms at 100k).
//
// The list is the agent_meta row pairWordsKey (lexemes, one space
// between). It is chosen under the agent's write lock, in the transaction
// that writes the pairs of its new words for every stored chunk, and it
// only grows: words are added when an agent without a list grows past
// pairMinChunks (Optimize, after a large sync), when an import writes the
// postings (finishImport), and when the full-text index is rebuilt
// (RebuildFTS); never removed (a dropped index keeps it). Every statement
// that makes pairs (write, delete, import, rebuild, CheckFTS) reads it in
// its own snapshot (pairLexemesSQL), so every indexed chunk holds exactly
// the pairs of the list as committed. A reader's list may be older, and
// shorter, than the committed one: it then reads fewer pairs and finds
// the same chunks and counts (phraseUnits); never longer, since the list
// it holds was read from a commit that had written those pairs, and each
// search statement starts after that read.
const pairWordsKey = "pair_words"

// ownLexemesSQL is agent $1's own pair words as a text array.
var ownLexemesSQL = `coalesce((SELECT string_to_array(value, ' ') FROM agent_meta WHERE agent = $1 AND key = '` + pairWordsKey + `'), '{}'::text[])`

// The policy: an agent gets a list at pairMinChunks indexed chunks; the
// list holds the lexemes in pairShare of a sample of about pairSample
// chunks (every k-th by id), at most pairMaxWords. Tests lower the first.
var (
	pairMinChunks int64 = 50_000
	pairShare           = 0.2
	pairMaxWords        = 100
	pairSample    int64 = 10_000
)

type pairWords struct{ words []string }

// ownWords is the agent's pair words as last read, read through q the
// first time. A store reads them at open (Open, after register), again
// after each Optimize, import and rebuild: a list another process chose
// shows from the next of these (until then phrases read fewer pairs, with
// the same results). Not on a timer, which would add a statement to a
// search now and then (TestSearchStatements, TestMatchCounts count them).
func (s *Store) ownWords(ctx context.Context, q querier) ([]string, error) {
	if p := s.pairs.Load(); p != nil {
		return p.words, nil
	}
	return s.readPairWords(ctx, q)
}

// readPairWords reads the agent's pair words through q and keeps them.
func (s *Store) readPairWords(ctx context.Context, q querier) ([]string, error) {
	v, _, err := getMeta(ctx, q, s.agent, pairWordsKey)
	if err != nil {
		return nil, fmt.Errorf("read pair words: %w", err)
	}
	words := strings.Fields(v)
	s.pairs.Store(&pairWords{words: words})
	return words, nil
}

// PairWords returns the agent's own pair words as committed.
func (s *Store) PairWords(ctx context.Context) ([]string, error) {
	v, _, err := getMeta(ctx, s.pool, s.agent, pairWordsKey)
	return strings.Fields(v), classify("read pair words", err)
}

// frequentLexemes returns the agent's lexemes held by at least share of
// its indexed chunks, most frequent first, at most limit, cairn.GramWords's
// left out (they pair already), counted in every k-th chunk by id (about
// sample chunks). Lexemes that cannot pair (over pairMaxLexeme bytes) or
// hold a space (the list's separator; the parser splits on spaces, so
// none should) are left out.
func frequentLexemes(ctx context.Context, q querier, agent string, share float64, sample int64, limit int) ([]string, error) {
	var top int64
	if err := q.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM chunks WHERE agent = $1`, agent).Scan(&top); err != nil {
		return nil, err
	}
	stride := max(1, top/max(sample, 1))
	rows, err := q.Query(ctx, `WITH c AS (SELECT tsv FROM chunks WHERE agent = $1 AND NOT noise AND tsv IS NOT NULL AND id % $2 = 0)
		SELECT x.lexeme FROM c, unnest(c.tsv) x
		WHERE NOT x.lexeme = ANY(`+commonLexemesSQL+`) AND octet_length(x.lexeme) <= 64 AND position(' ' in x.lexeme) = 0
		GROUP BY x.lexeme HAVING count(*) >= $3::float8 * (SELECT count(*) FROM c) ORDER BY count(*) DESC, 1 LIMIT $4`, agent, stride, share, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// choosePairWords returns the agent's list after adding its frequent
// lexemes (in tx, under the write lock) to have, and the words added:
// none while the agent has fewer than pairMinChunks indexed chunks or
// the list is full.
func (s *Store) choosePairWords(ctx context.Context, tx pgx.Tx, have []string) (all, added []string, err error) {
	if len(have) >= pairMaxWords {
		return have, nil, nil
	}
	var n int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE agent = $1 AND NOT noise AND tsv IS NOT NULL`, s.agent).Scan(&n); err != nil {
		return nil, nil, fmt.Errorf("count indexed chunks: %w", err)
	}
	if n < pairMinChunks {
		return have, nil, nil
	}
	words, err := frequentLexemes(ctx, tx, s.agent, pairShare, pairSample, pairMaxWords)
	if err != nil {
		return nil, nil, fmt.Errorf("choose pair words: %w", err)
	}
	all = slices.Clone(have)
	for _, w := range words {
		if len(all) >= pairMaxWords {
			break
		}
		if !slices.Contains(all, w) {
			all, added = append(all, w), append(added, w)
		}
	}
	return all, added, nil
}

// fillOwnPairsSQL writes the pair postings of agent $1's indexed chunks
// with ids in [$2, $3) that pair a lexeme of $4 (words just added to the
// list), in the key's order; pairs held already (the other lexeme is
// common or listed before) are left as they are.
var fillOwnPairsSQL = `INSERT INTO postings(agent, lexeme, chunk, tf, pos)
	SELECT c.agent, y.lexeme, c.id, y.tf, y.pos FROM chunks c CROSS JOIN LATERAL (` + pairsWhere(`a.lexeme = ANY($4) OR b.lexeme = ANY($4)`) + `) y
	WHERE c.agent = $1 AND c.id >= $2 AND c.id < $3 AND NOT c.noise AND c.tsv IS NOT NULL
	ORDER BY y.lexeme COLLATE "C", c.id
	ON CONFLICT DO NOTHING`

// addPairWords records the list all and writes, for every stored chunk of
// the agent, the pairs of added (its new words), in tx, which holds the
// write lock. It returns the pair postings written.
func (s *Store) addPairWords(ctx context.Context, tx pgx.Tx, all, added []string) (int64, error) {
	if err := setMeta(ctx, tx, s.agent, pairWordsKey, strings.Join(all, " ")); err != nil {
		return 0, err
	}
	var lo, hi int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(min(id), 0), coalesce(max(id), -1) FROM chunks WHERE agent = $1`, s.agent).Scan(&lo, &hi); err != nil {
		return 0, err
	}
	var written int64
	for from := lo; from <= hi; from += pairBatch {
		tag, err := tx.Exec(ctx, fillOwnPairsSQL, s.agent, from, from+pairBatch, added)
		if err != nil {
			return written, fmt.Errorf("write pair postings: %w", err)
		}
		written += tag.RowsAffected()
	}
	return written, nil
}

// pairOwnWords gives an agent without a list, past pairMinChunks, its
// list and the pairs of its stored chunks, in one transaction under the
// write lock (minutes at 100k chunks: on a first large sync, once). It
// reports whether it wrote any.
func (s *Store) pairOwnWords(ctx context.Context) (bool, error) {
	if s.readOnly {
		return false, nil
	}
	if v, ok, err := getMeta(ctx, s.pool, s.agent, pairWordsKey); err != nil || ok && v != "" {
		return false, classify("read pair words", err)
	}
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT value::bigint FROM agent_meta WHERE agent = $1 AND key = 'fts_rows'), 0)`, s.agent).Scan(&n); err != nil {
		return false, classify("count indexed chunks", err)
	}
	if n < pairMinChunks {
		return false, nil
	}
	var all, added []string
	start := time.Now()
	var written int64
	err := s.write(ctx, "pair frequent words", func(tx pgx.Tx) error {
		v, _, err := getMeta(ctx, tx, s.agent, pairWordsKey)
		if err != nil {
			return err
		}
		if all, added, err = s.choosePairWords(ctx, tx, strings.Fields(v)); err != nil || len(added) == 0 {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
			return err
		}
		if s.logf != nil {
			s.logf("postgres: agent %q: pairing its %d most frequent words (%s) for phrases: writing their pair postings (one transaction, minutes at 100,000 chunks)",
				s.agent, len(added), strings.Join(added, " "))
		}
		written, err = s.addPairWords(ctx, tx, all, added)
		return err
	})
	if err != nil || len(added) == 0 {
		return false, err
	}
	s.pairs.Store(&pairWords{words: all})
	if s.logf != nil {
		s.logf("postgres: agent %q: %d pair postings of %d words written in %s", s.agent, written, len(added), time.Since(start).Round(time.Second))
	}
	return true, nil
}
