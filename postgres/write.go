package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// Apply writes one batch in one transaction, in three round trips
// whatever its size: the paths' stored hashes and the contents already
// stored are read first, then every write is sent as one pipelined batch.
func (s *Store) Apply(ctx context.Context, b *cairn.Batch) error {
	return s.writeTx(ctx, "write index", false, func(tx pgx.Tx) error {
		now := time.Now().UnixNano()
		old, stored, err := s.applyState(ctx, tx, b)
		if err != nil {
			return err
		}
		batch := &pgx.Batch{}
		orphans, changed := false, false
		indexed := 0
		for i := range b.Upserts {
			d := &b.Upserts[i]
			switch {
			case stored[d.Hash]:
			case d.Chunks != nil:
				n, err := s.queueContent(batch, d, now)
				if err != nil {
					return err
				}
				indexed += n
				stored[d.Hash] = true
			default:
				return fmt.Errorf("index document %s: content %s is not stored and no chunks were given", d.Path, d.Hash)
			}
			h, ok := old[d.Path]
			orphans = orphans || ok && h != d.Hash
			changed = changed || !ok || h != d.Hash
			batch.Queue(`INSERT INTO documents(agent, corpus, path, hash, size, mtime, created_at, modified_at)
				VALUES($1, $2, $3, $4, $5, $6, $7, $7)
				ON CONFLICT(agent, corpus, path) DO UPDATE SET hash = excluded.hash, size = excluded.size,
					mtime = excluded.mtime, modified_at = excluded.modified_at`,
				s.agent, b.Corpus, d.Path, d.Hash, d.Size, d.ModTime, now)
		}
		for _, d := range b.Touch {
			batch.Queue(`UPDATE documents SET size = $1, mtime = $2 WHERE agent = $3 AND corpus = $4 AND path = $5`,
				d.Size, d.ModTime, s.agent, b.Corpus, d.Path)
		}
		if len(b.Remove) > 0 {
			// Known before the writes: what the removal deletes (the
			// agent's lock is held, so nothing changes meanwhile).
			var n int64
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM documents WHERE agent = $1 AND corpus = $2 AND path = ANY($3)`,
				s.agent, b.Corpus, b.Remove).Scan(&n); err != nil {
				return fmt.Errorf("remove documents of %s: %w", b.Corpus, err)
			}
			batch.Queue(`DELETE FROM documents WHERE agent = $1 AND corpus = $2 AND path = ANY($3)`, s.agent, b.Corpus, b.Remove)
			orphans, changed = orphans || n > 0, changed || n > 0
		}
		if changed {
			batch.Queue(staleSQL, s.agent, time.Now().UnixMilli())
		}
		if indexed > 0 {
			batch.Queue(addMetaSQL, s.agent, "fts_rows", strconv.Itoa(indexed), int64(indexed))
		}
		if orphans {
			batch.Queue(setMetaSQL, s.agent, gcPendingKey, "1")
		}
		if batch.Len() == 0 {
			return nil
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return fmt.Errorf("write documents of %s: %w", b.Corpus, err)
		}
		return nil
	})
}

// applyState takes the agent's write lock and reads what a batch's
// writes depend on, the stored hash of each upserted path and which of
// their contents are stored, in one round trip.
func (s *Store) applyState(ctx context.Context, tx pgx.Tx, b *cairn.Batch) (map[string]string, map[string]bool, error) {
	old, stored := map[string]string{}, map[string]bool{}
	paths, hashes := make([]string, len(b.Upserts)), make([]string, len(b.Upserts))
	for i, d := range b.Upserts {
		paths[i], hashes[i] = d.Path, d.Hash
	}
	reads := &pgx.Batch{}
	reads.Queue(lockSQL, lockKey("write", s.agent))
	reads.Queue(`SELECT path, hash FROM documents WHERE agent = $1 AND corpus = $2 AND path = ANY($3)`, s.agent, b.Corpus, paths)
	reads.Queue(`SELECT hash FROM content WHERE agent = $1 AND hash = ANY($2)`, s.agent, hashes)
	br := tx.SendBatch(ctx, reads)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, nil, fmt.Errorf("take write lock: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("read documents of %s: %w", b.Corpus, err)
	}
	for rows.Next() {
		var p, h string
		if err := rows.Scan(&p, &h); err != nil {
			rows.Close()
			return nil, nil, err
		}
		old[p] = h
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("look up content: %w", err)
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("look up content: %w", err)
	}
	for _, h := range have {
		stored[h] = true
	}
	return old, stored, br.Close()
}

// insertChunks writes a document's chunks in one statement: each indexed
// chunk's tsvector (title A, body B, identifiers C, from the words Go
// split) and its tf map, the weighted count of each lexeme (A counts 2,
// as SQLite's title column weighs 2).
const insertChunks = `INSERT INTO chunks(agent, hash, seq, pos, len, start_line, end_line, tokens, noise, tsv, tf)
	SELECT $1, $2, u.seq, u.pos, u.len, u.sl, u.el, u.tok, u.noise, v.tsv,
		CASE WHEN u.noise THEN NULL ELSE (SELECT coalesce(jsonb_object_agg(x.lexeme,
			(SELECT sum(CASE w WHEN 'A' THEN 2 ELSE 1 END) FROM unnest(x.weights) w)), '{}'::jsonb) FROM unnest(v.tsv) x) END
	FROM unnest($3::int[], $4::bigint[], $5::bigint[], $6::int[], $7::int[], $8::int[], $9::boolean[], $10::text[], $11::text[])
		AS u(seq, pos, len, sl, el, tok, noise, body, ident)
	CROSS JOIN LATERAL (SELECT CASE WHEN u.noise THEN NULL::tsvector ELSE setweight(to_tsvector('cairn', $12::text), 'A')
		|| setweight(to_tsvector('cairn', u.body), 'B') || setweight(to_tsvector('cairn', u.ident), 'C') END AS tsv) v`

// queueContent queues a new content's text and chunks and returns how
// many chunks it indexes.
func (s *Store) queueContent(batch *pgx.Batch, d *cairn.Document, now int64) (int, error) {
	batch.Queue(`INSERT INTO content(agent, hash, doc, title, created_at) VALUES($1, $2, $3, $4, $5)
		ON CONFLICT(agent, hash) DO NOTHING`, s.agent, d.Hash, []byte(d.Text), cleanText(d.Title), now)
	n := len(d.Chunks)
	if n == 0 {
		return 0, nil
	}
	seq, sl, el, tok := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	pos, ln := make([]int64, n), make([]int64, n)
	noise := make([]bool, n)
	body, ident := make([]string, n), make([]string, n)
	indexed := 0
	for i, c := range d.Chunks {
		if c.Pos < 0 || c.Len < 0 || c.Pos+c.Len > len(d.Text) {
			return 0, fmt.Errorf("store chunk %d of %s: range %d+%d outside text of %d bytes", c.Seq, d.Path, c.Pos, c.Len, len(d.Text))
		}
		seq[i], pos[i], ln[i], sl[i], el[i], tok[i], noise[i] = int32(c.Seq), int64(c.Pos), int64(c.Len),
			int32(c.StartLine), int32(c.EndLine), int32(c.Tokens), c.Noise
		if !c.Noise {
			body[i], ident[i] = plain(d.Text[c.Pos:c.Pos+c.Len]), plain(c.Ident)
			indexed++
		}
	}
	batch.Queue(insertChunks, s.agent, d.Hash, seq, pos, ln, sl, el, tok, noise, body, ident, plain(d.Title))
	return indexed, nil
}

// cleanText makes s storable as PostgreSQL text: valid UTF-8 without NUL.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// GC deletes content no document references, with its chunks and
// vectors, and clears the gc marker, in one transaction.
func (s *Store) GC(ctx context.Context) (int, error) {
	n := 0
	err := s.write(ctx, "collect garbage", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT hash FROM content c WHERE agent = $1
			AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.agent = $1 AND d.hash = c.hash)`, s.agent)
		if err != nil {
			return fmt.Errorf("find orphaned content: %w", err)
		}
		orphans, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("find orphaned content: %w", err)
		}
		n = len(orphans)
		if n > 0 {
			if err := s.deleteContent(ctx, tx, orphans); err != nil {
				return err
			}
		}
		return setMeta(ctx, tx, s.agent, gcPendingKey, "0")
	})
	return n, err
}

// deleteContent deletes contents with their chunks and vectors, keeping
// the counters.
func (s *Store) deleteContent(ctx context.Context, tx pgx.Tx, hashes []string) error {
	var indexed int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE agent = $1 AND hash = ANY($2) AND NOT noise`, s.agent, hashes).Scan(&indexed); err != nil {
		return fmt.Errorf("delete orphaned content: %w", err)
	}
	tag, err := tx.Exec(ctx, `DELETE FROM vectors WHERE agent = $1 AND chunk_id IN (SELECT id FROM chunks WHERE agent = $1 AND hash = ANY($2))`, s.agent, hashes)
	if err != nil {
		return fmt.Errorf("delete orphaned vectors: %w", err)
	}
	for _, q := range []string{`DELETE FROM chunks WHERE agent = $1 AND hash = ANY($2)`, `DELETE FROM content WHERE agent = $1 AND hash = ANY($2)`} {
		if _, err := tx.Exec(ctx, q, s.agent, hashes); err != nil {
			return fmt.Errorf("delete orphaned content: %w", err)
		}
	}
	if indexed > 0 {
		if err := addMeta(ctx, tx, s.agent, "fts_rows", -indexed); err != nil {
			return err
		}
	}
	if tag.RowsAffected() > 0 {
		return addMeta(ctx, tx, s.agent, vectorsVersionKey, 1)
	}
	return nil
}

// gcPendingKey is the agent_meta row that says a committed write may have
// left content no document references (see sqlite's marker of the same
// name): set by the write, cleared by GC, missing reads as pending.
const gcPendingKey = "gc_pending"

// vectorsVersionKey counts every change to the agent's vectors.
const vectorsVersionKey = "vectors_version"

// GCPending reports whether a write since the last GC may have orphaned
// content.
func (s *Store) GCPending(ctx context.Context) (bool, error) {
	v, ok, err := getMeta(ctx, s.pool, s.agent, gcPendingKey)
	if err != nil {
		return false, classify("read gc marker", err)
	}
	return !ok || v != "0", nil
}

// PruneCorpora deletes the documents of every corpus not in keep.
func (s *Store) PruneCorpora(ctx context.Context, keep []string) (int, error) {
	var n int64
	err := s.write(ctx, "prune unconfigured corpora", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM documents WHERE agent = $1 AND NOT (corpus = ANY($2))`, s.agent, append([]string{}, keep...))
		if err != nil {
			return err
		}
		if n = tag.RowsAffected(); n > 0 {
			if err := s.markStale(ctx, tx); err != nil {
				return err
			}
			return setMeta(ctx, tx, s.agent, gcPendingKey, "1")
		}
		return nil
	})
	return int(n), err
}

// Optimize merges the GIN index's pending list into the index (what a
// batch of inserts leaves there until autovacuum does it). On Citus the
// shards' indexes are their own and autovacuum keeps them.
func (s *Store) Optimize(ctx context.Context) error {
	if s.citus {
		return nil
	}
	_, err := s.pool.Exec(ctx, `SELECT gin_clean_pending_list('chunks_tsv'::regclass)`)
	return classify("optimize index", err)
}

func getMeta(ctx context.Context, q querier, agent, key string) (string, bool, error) {
	var v string
	err := q.QueryRow(ctx, `SELECT value FROM agent_meta WHERE agent = $1 AND key = $2`, agent, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

const (
	setMetaSQL = `INSERT INTO agent_meta(agent, key, value) VALUES($1, $2, $3)
		ON CONFLICT(agent, key) DO UPDATE SET value = excluded.value`
	addMetaSQL = `INSERT INTO agent_meta(agent, key, value) VALUES($1, $2, $3)
		ON CONFLICT(agent, key) DO UPDATE SET value = (agent_meta.value::bigint + $4)::text`
	staleSQL = `UPDATE analysis_runs SET stale_at = $2 WHERE agent = $1 AND stale_at IS NULL`
)

func setMeta(ctx context.Context, tx pgx.Tx, agent, key, value string) error {
	_, err := tx.Exec(ctx, setMetaSQL, agent, key, value)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}

// addMeta adds delta to a counter row.
func addMeta(ctx context.Context, tx pgx.Tx, agent, key string, delta int64) error {
	_, err := tx.Exec(ctx, addMetaSQL, agent, key, strconv.FormatInt(max(delta, 0), 10), delta)
	if err != nil {
		return fmt.Errorf("count %s: %w", key, err)
	}
	return nil
}
