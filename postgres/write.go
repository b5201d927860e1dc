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
// whatever its size (four when its text holds words not stemmed before):
// the paths' stored hashes and the contents already stored are read
// first, then every write is sent as one pipelined batch of a few
// statements, each carrying the whole batch's rows as arrays (one INSERT
// for the contents, one for their chunks, one for the documents).
func (s *Store) Apply(ctx context.Context, b *cairn.Batch) error {
	return s.writeTx(ctx, "write index", false, func(tx pgx.Tx) error {
		now := time.Now().UnixNano()
		old, stored, err := s.applyState(ctx, tx, b)
		if err != nil {
			return err
		}
		var rows contentRows
		docs := docRows{at: map[string]int{}}
		orphans, changed := false, false
		for i := range b.Upserts {
			d := &b.Upserts[i]
			switch {
			case stored[d.Hash]:
			case d.Chunks != nil:
				if err := rows.add(d); err != nil {
					return err
				}
				stored[d.Hash] = true
			default:
				return fmt.Errorf("index document %s: content %s is not stored and no chunks were given", d.Path, d.Hash)
			}
			h, ok := old[d.Path]
			orphans = orphans || ok && h != d.Hash
			changed = changed || !ok || h != d.Hash
			docs.add(d)
		}
		if err := rows.countTerms(ctx, tx, &s.lex); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		if len(rows.hash) > 0 {
			batch.Queue(insertContent, s.agent, rows.hash, rows.doc, rows.title, now)
		}
		if len(rows.chunk.hash) > 0 {
			c := &rows.chunk
			batch.Queue(insertChunks, s.agent, c.hash, c.seq, c.pos, c.len, c.sl, c.el, c.tok, c.noise, c.body, c.ident, c.title, c.tf)
			if rows.indexed > 0 {
				batch.Queue(insertPostings, s.agent, rows.hash)
			}
		}
		if len(docs.path) > 0 {
			batch.Queue(upsertDocuments, s.agent, b.Corpus, docs.path, docs.hash, docs.size, docs.mtime, now)
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
		if rows.indexed > 0 {
			batch.Queue(addMetaSQL, s.agent, "fts_rows", strconv.Itoa(rows.indexed), int64(rows.indexed))
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

const (
	insertContent = `INSERT INTO content(agent, hash, doc, title, created_at)
		SELECT $1, u.hash, u.doc, u.title, $5 FROM unnest($2::text[], $3::bytea[], $4::text[]) AS u(hash, doc, title)
		ON CONFLICT(agent, hash) DO NOTHING`
	upsertDocuments = `INSERT INTO documents(agent, corpus, path, hash, size, mtime, created_at, modified_at)
		SELECT $1, $2, u.path, u.hash, u.size, u.mtime, $7, $7 FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS u(path, hash, size, mtime)
		ON CONFLICT(agent, corpus, path) DO UPDATE SET hash = excluded.hash, size = excluded.size,
			mtime = excluded.mtime, modified_at = excluded.modified_at`
)

// docRows are a batch's document rows as columns, one row per path (a
// path upserted twice in a batch keeps its last version, as two
// statements in turn would leave it).
type docRows struct {
	at          map[string]int
	path, hash  []string
	size, mtime []int64
}

func (r *docRows) add(d *cairn.Document) {
	if i, ok := r.at[d.Path]; ok {
		r.hash[i], r.size[i], r.mtime[i] = d.Hash, d.Size, d.ModTime
		return
	}
	r.at[d.Path] = len(r.path)
	r.path, r.hash = append(r.path, d.Path), append(r.hash, d.Hash)
	r.size, r.mtime = append(r.size, d.Size), append(r.mtime, d.ModTime)
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
	reads.Queue(lockSQL, s.lockKeys("write")...)
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

// insertChunks writes a batch's chunks in one statement: each indexed
// chunk's tsvector (title A, body B, identifiers C, from the words Go
// split) and its tf map, the weighted count of each lexeme, counted in
// Go (contentRows.countTerms).
const insertChunks = `INSERT INTO chunks(agent, hash, seq, pos, len, start_line, end_line, tokens, noise, tsv, tf)
	SELECT $1, u.hash, u.seq, u.pos, u.len, u.sl, u.el, u.tok, u.noise, v.tsv, CASE WHEN u.noise THEN NULL ELSE u.tf::jsonb END
	FROM unnest($2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::int[], $7::int[], $8::int[], $9::boolean[],
		$10::text[], $11::text[], $12::text[], $13::text[])
		AS u(hash, seq, pos, len, sl, el, tok, noise, body, ident, title, tf)
	CROSS JOIN LATERAL (SELECT CASE WHEN u.noise THEN NULL::tsvector ELSE setweight(to_tsvector('cairn', u.title), 'A')
		|| setweight(to_tsvector('cairn', u.body), 'B') || setweight(to_tsvector('cairn', u.ident), 'C') END AS tsv) v`

// insertPostings writes the postings of the chunks of the given contents
// (just inserted: a content's chunks are written once, with it), one per
// lexeme of each indexed chunk's tsvector, with its count from the tf
// map and its positions, and one per pair (pairs.go). Read back from the
// chunk rows in the same statement, so the postings name exactly the
// lexemes the tsvector holds. On Citus the statement runs on the agent's
// shard (both tables are distributed by agent, co-located).
var insertPostings = postingsOf(`c.agent = $1 AND c.hash = ANY($2)`, "")

// deletePostings deletes the postings of the chunks of the given
// contents, found by the lexemes and pairs of their tsvectors (the
// postings' key: no second index on the chunk). Run before the chunks go.
var deletePostings = `DELETE FROM postings p USING chunks c CROSS JOIN LATERAL (` + chunkPostingsSQL + `) y
	WHERE c.agent = $1 AND c.hash = ANY($2) AND c.tsv IS NOT NULL
		AND p.agent = $1 AND p.lexeme = y.lexeme AND p.chunk = c.id`

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
	for _, q := range []string{deletePostings, `DELETE FROM chunks WHERE agent = $1 AND hash = ANY($2)`, `DELETE FROM content WHERE agent = $1 AND hash = ANY($2)`} {
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

// Optimize vacuums and analyzes the postings table (the engine calls it
// after a sync that wrote a fifth of the chunks or more): a search reads
// postings index-only, which skips the heap only on pages the visibility
// map marks all-visible, and a vacuum is what marks them (autovacuum
// does too, but only once a fifth of the table is new); the statistics
// let the planner start an all-words join from the rarest lexeme. On
// Citus the coordinator passes both to every shard.
//
// An agent past pairMinChunks without its own pair words gets them first
// (pairOwnWords: the pairs of every stored chunk, once).
func (s *Store) Optimize(ctx context.Context) error {
	if _, err := s.pairOwnWords(ctx); err != nil {
		return err
	}
	if _, err := s.readPairWords(ctx, s.pool); err != nil { // another process's list too
		return classify("optimize index", err)
	}
	_, err := s.pool.Exec(ctx, `VACUUM (ANALYZE) postings`, pgx.QueryExecModeSimpleProtocol)
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
