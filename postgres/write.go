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

// Apply writes one batch in one transaction.
func (s *Store) Apply(ctx context.Context, b *cairn.Batch) error {
	return s.write(ctx, "write index", func(tx pgx.Tx) error {
		now := time.Now().UnixNano()
		orphans, changed := false, false
		indexed := 0
		for i := range b.Upserts {
			n, replaced, isNew, err := s.upsertDoc(ctx, tx, b.Corpus, &b.Upserts[i], now)
			if err != nil {
				return err
			}
			indexed += n
			orphans = orphans || replaced
			changed = changed || replaced || isNew
		}
		for _, d := range b.Touch {
			if _, err := tx.Exec(ctx, `UPDATE documents SET size = $1, mtime = $2 WHERE agent = $3 AND corpus = $4 AND path = $5`,
				d.Size, d.ModTime, s.agent, b.Corpus, d.Path); err != nil {
				return fmt.Errorf("update document %s: %w", d.Path, err)
			}
		}
		if len(b.Remove) > 0 {
			tag, err := tx.Exec(ctx, `DELETE FROM documents WHERE agent = $1 AND corpus = $2 AND path = ANY($3)`, s.agent, b.Corpus, b.Remove)
			if err != nil {
				return fmt.Errorf("remove documents of %s: %w", b.Corpus, err)
			}
			orphans = orphans || tag.RowsAffected() > 0
			changed = changed || tag.RowsAffected() > 0
		}
		if changed {
			if err := s.markStale(ctx, tx); err != nil {
				return err
			}
		}
		if indexed > 0 {
			if err := addMeta(ctx, tx, s.agent, "fts_rows", int64(indexed)); err != nil {
				return err
			}
		}
		if orphans {
			return setMeta(ctx, tx, s.agent, gcPendingKey, "1")
		}
		return nil
	})
}

// upsertDoc stores a document (its content and chunks when they are new)
// and returns how many chunks it indexed, whether it replaced other
// content at its path and whether the path is new.
func (s *Store) upsertDoc(ctx context.Context, tx pgx.Tx, corpus string, d *cairn.Document, now int64) (int, bool, bool, error) {
	indexed := 0
	if d.Chunks != nil {
		n, err := s.insertContent(ctx, tx, d, now)
		if err != nil {
			return 0, false, false, err
		}
		indexed = n
	} else {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM content WHERE agent = $1 AND hash = $2`, s.agent, d.Hash).Scan(&one); err != nil {
			return 0, false, false, fmt.Errorf("index document %s: content %s is not stored and no chunks were given: %w", d.Path, d.Hash, err)
		}
	}
	var old string
	replaced, isNew := false, false
	switch err := tx.QueryRow(ctx, `SELECT hash FROM documents WHERE agent = $1 AND corpus = $2 AND path = $3`,
		s.agent, corpus, d.Path).Scan(&old); {
	case err == nil:
		replaced = old != d.Hash
	case errors.Is(err, pgx.ErrNoRows):
		isNew = true
	default:
		return 0, false, false, fmt.Errorf("index document %s: %w", d.Path, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO documents(agent, corpus, path, hash, size, mtime, created_at, modified_at)
		VALUES($1, $2, $3, $4, $5, $6, $7, $7)
		ON CONFLICT(agent, corpus, path) DO UPDATE SET hash = excluded.hash, size = excluded.size,
			mtime = excluded.mtime, modified_at = excluded.modified_at`,
		s.agent, corpus, d.Path, d.Hash, d.Size, d.ModTime, now); err != nil {
		return 0, false, false, fmt.Errorf("index document %s: %w", d.Path, err)
	}
	return indexed, replaced, isNew, nil
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

// insertContent stores a document's text and chunks unless its content is
// stored already; it returns how many chunks it indexed.
func (s *Store) insertContent(ctx context.Context, tx pgx.Tx, d *cairn.Document, now int64) (int, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO content(agent, hash, doc, title, created_at) VALUES($1, $2, $3, $4, $5)
		ON CONFLICT(agent, hash) DO NOTHING`, s.agent, d.Hash, []byte(d.Text), cleanText(d.Title), now)
	if err != nil {
		return 0, fmt.Errorf("store content of %s: %w", d.Path, err)
	}
	if tag.RowsAffected() == 0 || len(d.Chunks) == 0 {
		return 0, nil // already stored with its chunks
	}
	n := len(d.Chunks)
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
	if _, err := tx.Exec(ctx, insertChunks, s.agent, d.Hash, seq, pos, ln, sl, el, tok, noise, body, ident, plain(d.Title)); err != nil {
		return 0, fmt.Errorf("store chunks of %s: %w", d.Path, err)
	}
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

func setMeta(ctx context.Context, tx pgx.Tx, agent, key, value string) error {
	_, err := tx.Exec(ctx, `INSERT INTO agent_meta(agent, key, value) VALUES($1, $2, $3)
		ON CONFLICT(agent, key) DO UPDATE SET value = excluded.value`, agent, key, value)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}

// addMeta adds delta to a counter row.
func addMeta(ctx context.Context, tx pgx.Tx, agent, key string, delta int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO agent_meta(agent, key, value) VALUES($1, $2, $3)
		ON CONFLICT(agent, key) DO UPDATE SET value = (agent_meta.value::bigint + $4)::text`, agent, key, strconv.FormatInt(max(delta, 0), 10), delta)
	if err != nil {
		return fmt.Errorf("count %s: %w", key, err)
	}
	return nil
}
