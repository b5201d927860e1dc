package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/cairnmemory/cairn"
)

// HasContent reports which of the hashes are stored.
func (s *Store) HasContent(ctx context.Context, hashes []string) (map[string]bool, error) {
	out := make(map[string]bool, len(hashes))
	stmt, err := s.r.PrepareContext(ctx, `SELECT 1 FROM content WHERE hash=?`)
	if err != nil {
		return nil, fmt.Errorf("look up content: %w", err)
	}
	defer stmt.Close()
	for _, h := range hashes {
		var one int
		switch err := stmt.QueryRowContext(ctx, h).Scan(&one); err {
		case nil:
			out[h] = true
		case sql.ErrNoRows:
		default:
			return nil, fmt.Errorf("look up content: %w", err)
		}
	}
	return out, nil
}

type writeStmts struct {
	content, chunk, fts, contentID, upsert, touch, remove, oldHash *sql.Stmt
	// orphans is set when the batch replaced or removed a document, so its
	// old content may be unreferenced: the commit then sets the gc marker.
	orphans bool
	// pending are the full-text rows of the batch's new chunks, written
	// after every other row (indexChunks).
	pending []ftsRow
	// prep holds the batch's pretokenized values (pretok.go), or nil.
	prep *preparedFTS
}

// ftsRow is one chunk's full-text row.
type ftsRow struct {
	id                       int64
	title, body, ident, path string
	seq                      int
	// pre are the pretokenized title, body and identifier text (pre[1]
	// nil: bind the text).
	pre [3][]byte
}

func prepareWrites(ctx context.Context, tx *sql.Tx) (*writeStmts, error) {
	var w writeStmts
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&w.content, `INSERT INTO content(hash, doc, title, created_at) VALUES(?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING`},
		{&w.chunk, `INSERT INTO chunks(cid, seq, pos, len, start_line, end_line, tokens, noise) VALUES(?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.fts, `INSERT INTO chunks_fts(rowid, title, body, ident) VALUES(?, ?, ?, ?)`},
		{&w.contentID, `SELECT id FROM content WHERE hash=?`},
		{&w.upsert, `INSERT INTO documents(corpus, path, hash, cid, size, mtime, created_at, modified_at)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(corpus, path) DO UPDATE SET hash=excluded.hash, cid=excluded.cid, size=excluded.size,
				mtime=excluded.mtime, modified_at=excluded.modified_at`},
		{&w.touch, `UPDATE documents SET size=?, mtime=? WHERE corpus=? AND path=?`},
		{&w.remove, `DELETE FROM documents WHERE corpus=? AND path=?`},
		{&w.oldHash, `SELECT hash FROM documents WHERE corpus=? AND path=?`},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			return nil, fmt.Errorf("prepare write: %w", err)
		}
		*p.dst = st
	}
	return &w, nil
}

// Apply writes one batch in a single IMMEDIATE transaction.
func (s *Store) Apply(ctx context.Context, b *cairn.Batch) error {
	return s.diagnose("write index", s.apply(ctx, b, nil))
}

// apply writes b; p, when not nil, holds its pretokenized full-text
// values (PrepareApply), used when the table's tokenizer is still the one
// that made them.
func (s *Store) apply(ctx context.Context, b *cairn.Batch, p *preparedFTS) (err error) {
	db, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	defer tx.Rollback()
	ctx, done := statementContext(ctx) // stmtctx.go: no goroutine a row
	defer done(&err)
	w, err := prepareWrites(ctx, tx)
	if err != nil {
		return err
	}
	if p != nil {
		if ok, err := p.current(ctx, tx); err != nil {
			return err
		} else if ok {
			w.prep = p
		}
	}
	now := time.Now().UnixNano()
	for i := range b.Upserts {
		if err := w.upsertDoc(ctx, b.Corpus, &b.Upserts[i], i, now); err != nil {
			return err
		}
	}
	for _, d := range b.Touch {
		if _, err := w.touch.ExecContext(ctx, d.Size, d.ModTime, b.Corpus, d.Path); err != nil {
			return fmt.Errorf("update document %s: %w", d.Path, err)
		}
	}
	for _, p := range b.Remove {
		res, err := w.remove.ExecContext(ctx, b.Corpus, p)
		if err != nil {
			return fmt.Errorf("remove document %s: %w", p, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			w.orphans = true
		}
	}
	endBulk, err := beginBulk(ctx, tx, len(w.pending)) // bulk.go
	if err != nil {
		return err
	}
	if endBulk != nil && bulkLoadHook != nil {
		if err := bulkLoadHook(ctx, tx); err != nil {
			return err
		}
	}
	if err := w.indexChunks(ctx); err != nil {
		return err
	}
	if endBulk != nil {
		if err := endBulk(); err != nil {
			return err
		}
	}
	if w.orphans {
		if err := markGC(ctx, tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit batch: %w", err)
	}
	s.wrote.Store(true)
	s.gen.Add(1)
	s.analyze(ctx, db)
	return nil
}

// analyze refreshes the query planner's statistics of tables whose size
// changed tenfold since they were last taken (PRAGMA optimize over every
// table, with SQLite's own bound on the rows it reads). Close ran it
// alone before, so a long-lived process kept the statistics its index
// had when small: after a first sync of one note, 10,000 memories
// indexed later were searched with plans that scan the chunks table per
// hit (hydrate: 200 ms against 1 ms). When nothing changed tenfold it
// costs about 0.1 ms.
//
// A connection keeps the statistics it loaded when it opened (a schema
// change did not make an open reader plan with new ones:
// TestStatisticsFollowGrowth), so when they change the idle readers are
// closed, and readers busy meanwhile are closed once readerLifetime has
// passed; new connections prepare the statements again with the new
// statistics. The batch is committed either way: a failure here is
// reported to Logf, not returned.
func (s *Store) analyze(ctx context.Context, db *sql.DB) {
	changed := false
	for _, schema := range []string{"main", durableSchema} {
		before := statsOf(ctx, db, schema)
		err := execOn(ctx, db, `PRAGMA `+schema+`.optimize=0x10002`)
		// An in-memory index has no durable store attached.
		if err != nil && s.Logf != nil && !strings.Contains(err.Error(), "unknown database") {
			s.Logf("cairn: %v", s.diagnose("refresh query statistics", err)) // names the file (a read-only memory.db)
		}
		changed = changed || err == nil && statsOf(ctx, db, schema) != before
	}
	if changed && s.r != nil {
		s.r.SetMaxIdleConns(0)
		s.r.SetMaxIdleConns(readers())
		s.r.SetConnMaxLifetime(readerLifetime)
	}
}

// readerLifetime bounds how long a reader connection that was busy when
// the statistics changed plans with the old ones.
const readerLifetime = 10 * time.Minute

// statsOf is the query statistics of a schema as one string ("" when none
// were taken).
func statsOf(ctx context.Context, db *sql.DB, schema string) string {
	var v sql.NullString
	_ = db.QueryRowContext(ctx, `SELECT group_concat(tbl || ' ' || coalesce(idx, '') || ' ' || stat, ';') FROM `+schema+`.sqlite_stat1`).Scan(&v)
	return v.String
}

func execOn(ctx context.Context, db *sql.DB, q string) error {
	_, err := db.ExecContext(ctx, q)
	return err
}

// upsertDoc writes d, the i-th document of its batch.
func (w *writeStmts) upsertDoc(ctx context.Context, corpus string, d *cairn.Document, i int, now int64) error {
	cid := int64(0)
	if d.Chunks != nil {
		id, err := w.insertContent(ctx, d, i, now)
		if err != nil {
			return err
		}
		cid = id
	}
	if cid == 0 {
		if err := w.contentID.QueryRowContext(ctx, d.Hash).Scan(&cid); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("index document %s: content %s is not stored and no chunks were given: %w", d.Path, d.Hash, err)
			}
			return fmt.Errorf("index document %s: %w", d.Path, err)
		}
	}
	var old string
	switch err := w.oldHash.QueryRowContext(ctx, corpus, d.Path).Scan(&old); {
	case err == nil:
		w.orphans = w.orphans || old != d.Hash
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("index document %s: %w", d.Path, err)
	}
	if _, err := w.upsert.ExecContext(ctx, corpus, d.Path, d.Hash, cid, d.Size, d.ModTime, now, now); err != nil {
		return fmt.Errorf("index document %s: %w", d.Path, err)
	}
	return nil
}

// insertContent stores a document's content and chunks and returns the
// content's id, or 0 when that content was stored already (with its
// chunks). d is the i-th document of the batch.
func (w *writeStmts) insertContent(ctx context.Context, d *cairn.Document, i int, now int64) (int64, error) {
	res, err := w.content.ExecContext(ctx, d.Hash, blobOf(d.Text), d.Title, now)
	if err != nil {
		return 0, fmt.Errorf("store content of %s: %w", d.Path, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, nil
	}
	cid, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("store content of %s: %w", d.Path, err)
	}
	var pre []ftsValues
	if w.prep != nil && w.prep.chunks[i] != nil {
		pre = w.prep.chunks[i]
	}
	for j, c := range d.Chunks {
		if c.Pos < 0 || c.Len < 0 || c.Pos+c.Len > len(d.Text) {
			return 0, fmt.Errorf("store chunk %d of %s: range %d+%d outside text of %d bytes", c.Seq, d.Path, c.Pos, c.Len, len(d.Text))
		}
		res, err := w.chunk.ExecContext(ctx, cid, c.Seq, c.Pos, c.Len, c.StartLine, c.EndLine, c.Tokens, c.Noise)
		if err != nil {
			return 0, fmt.Errorf("store chunk %d of %s: %w", c.Seq, d.Path, err)
		}
		if c.Noise {
			continue
		}
		id, _ := res.LastInsertId()
		row := ftsRow{id: id, title: d.Title, body: d.Text[c.Pos : c.Pos+c.Len], ident: c.Ident, path: d.Path, seq: c.Seq}
		if pre != nil && pre[j].body != nil {
			row.pre = [3][]byte{w.prep.titles[i], pre[j].body, pre[j].ident}
		}
		w.pending = append(w.pending, row)
	}
	return cid, nil
}

// blobOf is text as a BLOB argument without copying it: the driver copies
// the bytes into its own buffer before binding them, and neither writes
// them. (doc is a BLOB so that substr counts bytes, as chunk positions do.)
// A first index of the docs corpus of issue 19 copied its 19 MB of text
// once more here, on the writer's thread. Empty text is an empty BLOB, not
// NULL.
func blobOf(text string) []byte {
	if text == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(text), len(text))
}

// indexChunks writes the pending full-text rows, after the batch's other
// rows. FTS5 keeps new postings in memory and writes them out as a
// segment when a transaction commits, when they pass its hash size, and
// at every savepoint: SQLite opens one around each statement that may
// fail after writing (an insert into chunks, with its UNIQUE constraint),
// so interleaving full-text rows with chunk rows wrote one tiny segment
// per chunk and spent the batch merging them (31,631 chunks of the docs
// corpus: a quarter of the writer's CPU). Written last, the postings of a
// batch reach the segments in a few large flushes.
func (w *writeStmts) indexChunks(ctx context.Context) error {
	for _, r := range w.pending {
		var err error
		if r.pre[1] != nil {
			_, err = w.fts.ExecContext(ctx, r.id, r.pre[0], r.pre[1], r.pre[2])
		} else {
			_, err = w.fts.ExecContext(ctx, r.id, r.title, r.body, r.ident)
		}
		if err != nil {
			return fmt.Errorf("index chunk %d of %s: %w", r.seq, r.path, err)
		}
	}
	w.pending = nil
	return nil
}

// GC deletes content, chunks, full-text rows and vectors that no document
// references and returns how many content rows went. It clears the gc
// marker in the same transaction (see GCPending).
func (s *Store) GC(ctx context.Context) (int, error) {
	w, err := s.writer()
	if err != nil {
		return 0, err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin gc: %w", err)
	}
	defer tx.Rollback()
	orphans, err := orphanedContent(ctx, tx)
	if err != nil {
		return 0, err
	}
	for _, o := range orphans {
		for _, q := range []string{
			`DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE cid=?)`,
			`DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE cid=?)`,
			`DELETE FROM chunks WHERE cid=?`,
			`DELETE FROM content WHERE id=?`,
		} {
			if _, err := tx.ExecContext(ctx, q, o.id); err != nil {
				return 0, fmt.Errorf("delete orphaned content %s: %w", o.hash, err)
			}
		}
	}
	if err := setMeta(ctx, tx, gcPendingKey, "0"); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit gc: %w", err)
	}
	s.gen.Add(1)
	return len(orphans), nil
}

// orphan is a content row no document references.
type orphan struct {
	id   int64
	hash string
}

// orphanedContent lists the content rows no document references.
func orphanedContent(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) ([]orphan, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, hash FROM content
		WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.cid = content.id)`)
	if err != nil {
		return nil, fmt.Errorf("find orphaned content: %w", err)
	}
	defer rows.Close()
	var orphans []orphan
	for rows.Next() {
		var o orphan
		if err := rows.Scan(&o.id, &o.hash); err != nil {
			return nil, fmt.Errorf("find orphaned content: %w", err)
		}
		orphans = append(orphans, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find orphaned content: %w", err)
	}
	return orphans, nil
}

// gcPendingKey is the meta row that says a committed write may have left
// content no document references ("1"), so GC has work to do. The write
// that orphans content sets it in its own transaction and GC clears it in
// its own, so a process killed between the two (the window an update sync
// has between its last batch and its GC) leaves the marker behind, and the
// next sync collects first (engine/recover.go). A database from before the
// marker has no row: that reads as pending, and one GC settles it.
const gcPendingKey = "gc_pending"

func markGC(ctx context.Context, tx *sql.Tx) error { return setMeta(ctx, tx, gcPendingKey, "1") }

// GCPending reports whether a write since the last GC may have orphaned
// content: one row read, where looking for orphans walks every content
// row.
func (s *Store) GCPending(ctx context.Context) (bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, gcPendingKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("read gc marker: %w", err)
	}
	return v != "0", nil
}

// PruneCorpora deletes the documents of corpora not in keep; GC then frees
// their content. Every full sync asks, and nearly always nothing is to go:
// the corpora indexed are listed by seeks in the (corpus, path) index, one
// a corpus (listCorpora), and only those to prune are deleted. A plain
// DELETE ... WHERE corpus NOT IN (keep) read every document row to find
// none: 0.47 s of CPU of a no-op sync at 480,000 files.
func (s *Store) PruneCorpora(ctx context.Context, keep []string) (int, error) {
	w, err := s.writer()
	if err != nil {
		return 0, err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return 0, s.diagnose("write index", fmt.Errorf("prune unconfigured corpora: %w", err))
	}
	defer tx.Rollback()
	indexed, err := listCorpora(ctx, tx)
	if err != nil {
		return 0, s.diagnose("read index", fmt.Errorf("prune unconfigured corpora: %w", err))
	}
	var args []any
	for _, c := range indexed {
		if !slices.Contains(keep, c) {
			args = append(args, c)
		}
	}
	if len(args) == 0 {
		return 0, nil
	}
	q := `DELETE FROM documents WHERE corpus IN (` + strings.TrimSuffix(strings.Repeat("?,", len(args)), ",") + `)`
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, s.diagnose("write index", fmt.Errorf("prune unconfigured corpora: %w", err))
	}
	n, _ := res.RowsAffected()
	if n == 0 {
		return 0, nil
	}
	if err := markGC(ctx, tx); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("prune unconfigured corpora: %w", err)
	}
	s.gen.Add(1)
	return int(n), nil
}

// listCorporaQuery lists the distinct corpora of documents in order, each
// found by one seek past the one before in the (corpus, path) index.
const listCorporaQuery = `WITH RECURSIVE c(name) AS (
		SELECT min(corpus) FROM documents
		UNION ALL
		SELECT (SELECT min(corpus) FROM documents WHERE corpus > c.name) FROM c WHERE c.name IS NOT NULL)
	SELECT name FROM c WHERE name IS NOT NULL`

// listCorpora returns the corpora that have documents.
func listCorpora(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, listCorporaQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Optimize merges the full-text index into one segment: each query term is
// then one b-tree lookup instead of one per segment. Measured on 105k
// chunks: 0.6 s, and search p50 30% lower afterwards.
func (s *Store) Optimize(ctx context.Context) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')`); err != nil {
		return fmt.Errorf("optimize index: %w", err)
	}
	return nil
}

// ChunkCount returns the number of stored chunks.
func (s *Store) ChunkCount(ctx context.Context) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}
