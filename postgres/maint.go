package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// FeatureChanged reports whether Open found another feature version and
// emptied the agent's index.
func (s *Store) FeatureChanged() bool { return s.reindexed }

// Diagnose returns err as it is: PostgreSQL reports damage in its own
// logs, and the errors a user acts on (busy, unavailable) are classified
// where they happen.
func (s *Store) Diagnose(op string, err error) error { return err }

// QuickCheck reads one row of each of the agent's index tables: a server
// that answers holds a sound index as far as a client can tell (page
// checks are the server's, amcheck's and its checksums').
func (s *Store) QuickCheck(ctx context.Context) error {
	for _, t := range []string{"documents", "content", "chunks", "vectors"} {
		var one int
		err := s.pool.QueryRow(ctx, `SELECT 1 FROM `+t+` WHERE agent = $1 LIMIT 1`, s.agent).Scan(&one)
		if err != nil && err != pgx.ErrNoRows {
			return classify("check index", err)
		}
	}
	return nil
}

// CheckFTS checks that every indexed chunk has its tsvector and tf map,
// no noise chunk has one, and the postings hold one row per lexeme and
// pair (pairs.go) of those tsvectors.
func (s *Store) CheckFTS(ctx context.Context) error {
	var bad int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE agent = $1
		AND ((NOT noise AND (tsv IS NULL OR tf IS NULL)) OR (noise AND tsv IS NOT NULL))`, s.agent).Scan(&bad)
	if err != nil {
		return classify("check full-text index", err)
	}
	if bad > 0 {
		return fmt.Errorf("check full-text index: %d chunks without their lexemes: %w", bad, cairn.ErrDamaged)
	}
	// Every lexeme and pair of every indexed chunk's tsvector has its
	// posting, and no posting is left without one (counted both ways: a
	// scan of the agent's chunks and an index-only count of its postings).
	var postings, lexemes, pairs int64
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM postings WHERE agent = $1),
		(SELECT coalesce(sum(length(tsv)), 0) FROM chunks WHERE agent = $1 AND NOT noise),
		(SELECT count(*) FROM chunks c CROSS JOIN LATERAL (`+chunkPairsSQL+`) y WHERE c.agent = $1 AND NOT c.noise AND c.tsv IS NOT NULL)`,
		s.agent).Scan(&postings, &lexemes, &pairs); err != nil {
		return classify("check full-text index", err)
	}
	if postings != lexemes+pairs {
		return fmt.Errorf("check full-text index: %d postings for %d lexemes and %d pairs in the chunks' tsvectors: %w", postings, lexemes, pairs, cairn.ErrDamaged)
	}
	return nil
}

// FindStrays counts stray rows. The lexical index lives in the chunks
// rows, so it has no rows of its own to stray; an indexed chunk without
// its tsvector counts as unindexed.
func (s *Store) FindStrays(ctx context.Context) (cairn.Strays, error) {
	var st cairn.Strays
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM content c WHERE agent = $1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.agent = $1 AND d.hash = c.hash)),
		(SELECT count(*) FROM vectors v WHERE agent = $1 AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.agent = $1 AND c.id = v.chunk_id)),
		(SELECT count(*) FROM chunks WHERE agent = $1 AND NOT noise AND tsv IS NULL)`, s.agent).
		Scan(&st.Content, &st.Vectors, &st.Unindexed)
	return st, classify("find stray rows", err)
}

// DeleteStrayVectors deletes vectors whose chunk is gone.
func (s *Store) DeleteStrayVectors(ctx context.Context) (int, error) {
	var n int64
	err := s.write(ctx, "delete stray vectors", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM vectors v WHERE agent = $1
			AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.agent = $1 AND c.id = v.chunk_id)`, s.agent)
		if err != nil {
			return err
		}
		if n = tag.RowsAffected(); n > 0 {
			return addMeta(ctx, tx, s.agent, vectorsVersionKey, 1)
		}
		return nil
	})
	return int(n), err
}

// RebuildFTS computes every indexed chunk's tsvector and tf map again from
// its text, and its postings from them, in one transaction, and recounts
// the indexed rows; the agent's own pair words gain its frequent lexemes
// not listed yet (choosePairWords).
func (s *Store) RebuildFTS(ctx context.Context) error {
	var picked []string
	err := s.write(ctx, "rebuild full-text index", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT c.id, ct.title, substring(ct.doc FROM c.pos::int + 1 FOR c.len::int) FROM chunks c
			JOIN content ct ON ct.agent = c.agent AND ct.hash = c.hash WHERE c.agent = $1 AND NOT c.noise`, s.agent)
		if err != nil {
			return err
		}
		var ids []int64
		var titles, bodies, idents []string
		for rows.Next() {
			var id int64
			var title string
			var body []byte
			if err := rows.Scan(&id, &title, &body); err != nil {
				rows.Close()
				return err
			}
			ident := ""
			if s.ident != nil {
				ident = s.ident(string(body))
			}
			ids, titles, bodies, idents = append(ids, id), append(titles, plain(title)), append(bodies, plain(string(body))), append(idents, plain(ident))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE chunks c SET tsv = v.tsv, tf = (SELECT coalesce(jsonb_object_agg(x.lexeme,
				(SELECT sum(CASE w WHEN 'A' THEN 2 ELSE 1 END) FROM unnest(x.weights) w)), '{}'::jsonb) FROM unnest(v.tsv) x)
			FROM (SELECT u.id, setweight(to_tsvector('cairn', u.title), 'A') || setweight(to_tsvector('cairn', u.body), 'B')
				|| setweight(to_tsvector('cairn', u.ident), 'C') AS tsv
				FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(id, title, body, ident)) v
			WHERE c.agent = $1 AND c.id = v.id`, s.agent, ids, titles, bodies, idents); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE chunks SET tsv = NULL, tf = NULL WHERE agent = $1 AND noise`, s.agent); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM postings WHERE agent = $1`, s.agent); err != nil {
			return err
		}
		// New pair words come only here and with an import (the list
		// grows: ownpairs.go); the postings below pair the whole list.
		v, _, err := getMeta(ctx, tx, s.agent, pairWordsKey)
		if err != nil {
			return err
		}
		all, added, err := s.choosePairWords(ctx, tx, strings.Fields(v))
		if err != nil {
			return err
		}
		if len(added) > 0 {
			if err := setMeta(ctx, tx, s.agent, pairWordsKey, strings.Join(all, " ")); err != nil {
				return err
			}
			picked = all
		}
		if _, err := tx.Exec(ctx, agentPostingsSQL, s.agent); err != nil {
			return err
		}
		return setMeta(ctx, tx, s.agent, "fts_rows", fmt.Sprint(len(ids)))
	})
	if err == nil && picked != nil {
		s.pairs.Store(&pairWords{words: picked})
	}
	return err
}

// CheckDurable counts the agent's memories, links and windows: the
// durable state shares the database with the index, so there is no file
// of its own to check.
func (s *Store) CheckDurable(ctx context.Context) cairn.Finding {
	n, err := s.durableCounts(ctx)
	if err != nil {
		return cairn.Finding{Problem: true, Detail: err.Error(), Fix: durableFix}
	}
	return cairn.Finding{Detail: fmt.Sprintf("agent %q: %d memories, %d links, %d consolidation windows readable", s.agent, n[0], n[1], n[2])}
}

func (s *Store) durableCounts(ctx context.Context) ([3]int, error) {
	var n [3]int
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories WHERE agent = $1), (SELECT count(*) FROM memory_links WHERE agent = $1),
		(SELECT count(*) FROM consolidation_windows WHERE agent = $1)`, s.agent).Scan(&n[0], &n[1], &n[2])
	return n, classify("count memories", err)
}

const durableFix = "not repaired: doctor never changes the memories; restore the database from a backup (pg_dump, or the server's base backup and WAL)"

// vacuumPostings vacuums and analyzes the postings table: a search reads
// postings index-only, which skips the heap only on pages the visibility
// map marks all-visible, and a vacuum is what marks them (autovacuum does
// too, but only once a fifth of the table has changed, and later); the
// statistics let the planner start an all-words join from the rarest
// lexeme. On Citus the coordinator passes both to every shard. VACUUM
// runs outside a transaction, so q is a connection or the pool.
func vacuumPostings(ctx context.Context, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}) error {
	_, err := q.Exec(ctx, `VACUUM (ANALYZE) postings`, pgx.QueryExecModeSimpleProtocol)
	return err
}
