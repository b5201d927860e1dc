package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// contentIDs (schema 12) keys chunks and documents by an integer content
// id instead of the content's sha256. Before it, three b-trees were
// ordered by hash: chunks UNIQUE(hash, seq), content's primary key and
// documents_hash, so every insert landed on a random leaf. In a 1M-chunk
// index a batch of 512 files (about 1,070 chunks) dirtied about 2,100
// distinct leaf pages, each written to the WAL at commit and again at
// checkpoint: the same 20,000 notes took 11.0-13.5 s CPU into that index
// against 9.6-10.2 s into an empty one, with twice the page writes and
// 2.5 times the page reads (bench/RESULTS.md, "Indexing growth").
//
// Now content has an INTEGER PRIMARY KEY given in insertion order and the
// hash only in a unique index (the deduplication lookup, one entry a
// document); chunks are keyed by (cid, seq) and documents point at their
// content by cid (documents_content). New content takes the largest id,
// so the chunks' and documents' index entries of a batch are appended at
// the right edge instead of scattered. documents keeps its hash column:
// the no-op check compares it (docstates.go) and the curation triggers
// watch it. Content ids are never seen outside the store (the portable
// form and the API still name content by hash).
//
// The migration copies content (its text included) and chunks into new
// tables, keeping every chunk id (the full-text rowids and vectors stay
// valid), and fills documents.cid. The pages of the old tables go to the
// free list and are reused by later writes. A database whose recorded
// version was set back (as the migration tests do) has cid already: then
// it does nothing.
func contentIDs(ctx context.Context, s *Store, tx *sql.Tx) error {
	if done, err := hasColumn(ctx, tx, "chunks", "cid"); err != nil || done {
		return err
	}
	start := time.Now()
	var docs, chunks int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)`).Scan(&docs, &chunks); err != nil {
		return fmt.Errorf("count rows: %w", err)
	}
	if s.Logf != nil && docs+chunks > 0 {
		// Said before the work, whatever the size: at 1M chunks it runs
		// about 4 minutes on a loaded machine, and a first search that
		// prints nothing for that long looks hung.
		s.Logf("cairn: upgrading the index to schema 12 (keyed by content id): %d documents, %d chunks; this runs once and may take minutes on a big index", docs, chunks)
	}
	stats, err := renamedStats(ctx, tx)
	if err != nil {
		return interrupted(ctx, err)
	}
	// The copies are written without their indexes, which are built after
	// from sorted keys: inserting 480,000 hashes one by one into a b-tree
	// is the random write this migration removes.
	for _, q := range []string{
		`CREATE TABLE content_new(
			id INTEGER PRIMARY KEY,
			hash TEXT NOT NULL,
			doc BLOB NOT NULL,
			title TEXT NOT NULL DEFAULT '',
			created_at INTEGER NOT NULL
		)`,
		`INSERT INTO content_new(id, hash, doc, title, created_at)
			SELECT rowid, hash, doc, title, created_at FROM content ORDER BY rowid`,
		`CREATE TABLE chunks_new(
			id INTEGER PRIMARY KEY,
			cid INTEGER NOT NULL,
			seq INTEGER NOT NULL,
			pos INTEGER NOT NULL,
			len INTEGER NOT NULL,
			start_line INTEGER NOT NULL,
			end_line INTEGER NOT NULL,
			tokens INTEGER NOT NULL,
			noise INTEGER NOT NULL DEFAULT 0
		)`,
		// Every chunk has its content row (Apply writes content first, GC
		// deletes chunks first, in one transaction).
		`INSERT INTO chunks_new(id, cid, seq, pos, len, start_line, end_line, tokens, noise)
			SELECT c.id, ct.rowid, c.seq, c.pos, c.len, c.start_line, c.end_line, c.tokens, c.noise
			FROM chunks c JOIN content ct ON ct.hash = c.hash ORDER BY c.id`,
		`ALTER TABLE documents ADD COLUMN cid INTEGER NOT NULL DEFAULT 0`,
		`UPDATE documents SET cid = coalesce((SELECT rowid FROM content ct WHERE ct.hash = documents.hash), 0)`,
		`DROP INDEX documents_hash`,
		`DROP TABLE chunks`,
		`DROP TABLE content`,
		`ALTER TABLE chunks_new RENAME TO chunks`,
		`ALTER TABLE content_new RENAME TO content`,
		`CREATE UNIQUE INDEX content_hash ON content(hash)`,
		`CREATE UNIQUE INDEX chunks_content ON chunks(cid, seq)`,
		`CREATE INDEX documents_content ON documents(cid)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return interrupted(ctx, fmt.Errorf("key content by id: %w", err))
		}
	}
	for _, st := range stats {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES(?, ?, ?)`, st[0], st[1], st[2]); err != nil {
			return interrupted(ctx, fmt.Errorf("keep query statistics: %w", err))
		}
	}
	if s.Logf != nil && docs+chunks > 0 {
		// The done line waits for the commit (migrate runs afterCommit):
		// printed here, a kill between it and the commit claimed an
		// upgrade that was not kept. It is printed once per index, so it
		// also carries the one note on downgrades.
		s.afterCommit = append(s.afterCommit, func() {
			s.Logf("cairn: index upgraded to schema 12 in %.1f s: %d documents, %d chunks; cairn builds before this one cannot open it (cairn export writes a portable copy)",
				time.Since(start).Seconds(), docs, chunks)
		})
	}
	return nil
}

// interrupted turns an error of a cancelled migration into one that says
// so: the transaction is rolled back, the index is as it was, and the next
// open runs the migration again. It wraps ctx.Err(), so
// errors.Is(err, context.Canceled) holds; not context.Cause, which for
// signal.NotifyContext (cmd/cairn) is "interrupt signal received" and
// matches nothing.
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("upgrade index: interrupted, nothing was changed; run the command again to upgrade: %w", ctx.Err())
}

// renamedStats returns the query planner's statistics of the three
// hash-keyed indexes under the names of the id-keyed ones that replace
// them, with the same row counts (one content id a hash), so that a big
// index is not planned without statistics until the next PRAGMA optimize
// (dropping a table or index drops its rows of sqlite_stat1).
func renamedStats(ctx context.Context, tx *sql.Tx) ([][3]string, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT tbl, CASE idx
			WHEN 'sqlite_autoindex_chunks_1' THEN 'chunks_content'
			WHEN 'sqlite_autoindex_content_1' THEN 'content_hash'
			WHEN 'documents_hash' THEN 'documents_content' ELSE idx END, stat
		FROM sqlite_stat1 WHERE tbl IN ('chunks', 'content') OR idx = 'documents_hash'`)
	if err != nil {
		return nil, fmt.Errorf("read query statistics: %w", err)
	}
	defer rows.Close()
	var out [][3]string
	for rows.Next() {
		var st [3]string
		var idx sql.NullString
		if err := rows.Scan(&st[0], &idx, &st[2]); err != nil {
			return nil, fmt.Errorf("read query statistics: %w", err)
		}
		if !idx.Valid {
			continue // a table's row count without an index: ANALYZE writes it again
		}
		st[1] = idx.String
		out = append(out, st)
	}
	return out, rows.Err()
}

// hasColumn reports whether table has the column.
func hasColumn(ctx context.Context, tx *sql.Tx, table, column string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read columns of %s: %w", table, err)
	}
	return n > 0, nil
}
