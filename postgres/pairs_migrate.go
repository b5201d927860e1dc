package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// pairBatch is how many chunk ids one statement of the pair migration
// covers, its postings sorted by key in the transaction's work memory
// (19.6 pairs a chunk at 100k chunks: about 196,000 a statement).
var pairBatch int64 = 10_000

// fillPairsSQL writes the pair postings of agent $1's indexed chunks with
// ids in [$2, $3), in the key's order (each pair's postings then go in at
// the right end of its key range, page after page).
var fillPairsSQL = `INSERT INTO postings(agent, lexeme, chunk, tf, pos)
	SELECT c.agent, y.lexeme, c.id, y.tf, y.pos FROM chunks c CROSS JOIN LATERAL (` + chunkPairsSQL + `) y
	WHERE c.agent = $1 AND c.id >= $2 AND c.id < $3 AND NOT c.noise AND c.tsv IS NOT NULL
	ORDER BY y.lexeme COLLATE "C", c.id
	ON CONFLICT DO NOTHING`

// fillPairs is migration 5: the pair postings of every stored chunk of
// every agent, agent by agent in ranges of pairBatch chunk ids (on Citus
// each statement runs on the agent's shard), all in one transaction that
// also sets the schema version to to: an interrupted migration (Ctrl-C, a
// lost connection, a kill) keeps nothing, and the next open runs it
// again. It runs under migrate's advisory lock, and says when it starts
// (on a database with chunks) and when it has committed.
func fillPairs(ctx context.Context, c *pgx.Conn, schema string, to int, logf func(string, ...any)) error {
	var chunks int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE NOT noise AND tsv IS NOT NULL`).Scan(&chunks); err != nil {
		return err
	}
	if chunks == 0 {
		return nil // a new database, or one without indexed chunks: nothing to write
	}
	say := func(f string, a ...any) {
		if logf != nil {
			logf(f, a...)
		}
	}
	say("postgres: schema %s: upgrading to version %d: writing the phrase pair postings of %d chunks (minutes a 100,000 chunks: 7.5 at a load of 40 on 2 cores; "+
		"one transaction: if interrupted, nothing is changed and the next open starts again)", schema, to, chunks)
	start := time.Now()
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT agent FROM agents ORDER BY agent`)
	if err != nil {
		return err
	}
	agents, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	var done, written int64
	next := chunks / 10
	for _, a := range agents {
		var lo, hi, n int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(min(id), 0), coalesce(max(id), -1), count(*) FROM chunks
			WHERE agent = $1 AND NOT noise AND tsv IS NOT NULL`, a).Scan(&lo, &hi, &n); err != nil {
			return err
		}
		for from := lo; from <= hi; from += pairBatch {
			tag, err := tx.Exec(ctx, fillPairsSQL, a, from, from+pairBatch)
			if err != nil {
				return err
			}
			written += tag.RowsAffected()
			// The agent's chunks so far, estimated from the id range.
			sofar := done + n*(min(from+pairBatch, hi+1)-lo)/(hi-lo+1)
			if sofar >= next && sofar < chunks {
				say("postgres: schema %s: pair postings of about %d of %d chunks written (%s)", schema, sofar, chunks, time.Since(start).Round(time.Second))
				next = sofar + chunks/10
			}
		}
		done += n
	}
	if done != chunks {
		// Chunks of an agent without its agents row: a damaged database.
		return fmt.Errorf("%d of %d indexed chunks belong to a registered agent", done, chunks)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO cairn_meta(key, value) VALUES('schema_version', $1)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, strconv.Itoa(to)); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	say("postgres: schema %s: upgraded to version %d: %d pair postings for %d chunks in %s (committed; builds before it cannot open this schema)",
		schema, to, written, chunks, time.Since(start).Round(time.Second))
	return nil
}
