package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

// bm25Weights weights the FTS columns title, body, ident.
const bm25Weights = "2.0, 1.0, 1.0"

// Lexical runs an FTS5 query and returns the best chunks of indexed
// documents. The ranking step reads only the full-text index (capped at a
// multiple of the limit); documents and text are joined for the winners.
// When a corpus filter leaves too few of the capped winners, the query runs
// again with the filter inside the ranking step. With q.MaxCandidates set
// and more matches than that, only the newest MaxCandidates matches (highest
// rowids: the most recently indexed content) are scored.
func (s *Store) Lexical(ctx context.Context, q cairn.LexicalQuery) ([]cairn.Candidate, error) {
	floor, err := s.capFloor(ctx, q)
	if err != nil {
		return nil, err
	}
	out, n, err := s.lexical(ctx, q, q.Limit, floor, false)
	if err != nil || len(q.Corpora) == 0 && q.Paths == nil || len(out) >= q.Limit || n < q.Limit {
		return out, err
	}
	// The filter dropped some of the best matches: rank inside the corpora,
	// uncapped (the cap counts matches of every corpus).
	out, _, err = s.lexical(ctx, q, q.Limit, 0, true)
	return out, err
}

// capFloor returns the smallest rowid to score when the query matches more
// than q.MaxCandidates chunks, else 0. Walking a doclist backwards without
// scoring is cheap (tens of nanoseconds a row).
func (s *Store) capFloor(ctx context.Context, q cairn.LexicalQuery) (int64, error) {
	if q.MaxCandidates <= 0 {
		return 0, nil
	}
	var floor int64
	st, err := s.readStmt(ctx, `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?
		ORDER BY rowid DESC LIMIT 1 OFFSET ?`)
	if err != nil {
		return 0, err
	}
	err = st.QueryRowContext(ctx, q.Match, q.MaxCandidates-1).Scan(&floor)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, queryError(err)
	}
	return floor, nil
}

func (s *Store) lexical(ctx context.Context, q cairn.LexicalQuery, fetch int, floor int64, filterInside bool) ([]cairn.Candidate, int, error) {
	args := []any{q.Match, floor}
	filter := ""
	if len(q.Corpora) > 0 && filterInside {
		filter = " AND d.corpus IN (" + strings.TrimSuffix(strings.Repeat("?,", len(q.Corpora)), ",") + ")"
	}
	var paths map[string]bool
	if q.Paths != nil {
		paths = make(map[string]bool, len(q.Paths))
		for _, p := range q.Paths {
			paths[p] = true
		}
		if filterInside {
			filter += " AND d.path IN (SELECT value FROM json_each(?))"
		}
	}
	var query string
	if filterInside {
		query = `SELECT c.id, d.corpus, d.path, ct.title, c.seq, c.start_line, c.end_line,
				substr(ct.doc, c.pos + 1, c.len), bm25(chunks_fts, ` + bm25Weights + `) AS s
			FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
			JOIN documents d ON d.hash = c.hash JOIN content ct ON ct.hash = c.hash
			WHERE chunks_fts MATCH ? AND chunks_fts.rowid >= ?` + filter + ` ORDER BY s, d.corpus, d.path LIMIT ?`
	} else {
		query = `WITH top AS (
				SELECT rowid AS id, bm25(chunks_fts, ` + bm25Weights + `) AS s FROM chunks_fts
				WHERE chunks_fts MATCH ? AND rowid >= ? ORDER BY s LIMIT ?)
			SELECT c.id, d.corpus, d.path, ct.title, c.seq, c.start_line, c.end_line,
				substr(ct.doc, c.pos + 1, c.len), top.s
			FROM top JOIN chunks c ON c.id = top.id
			JOIN documents d ON d.hash = c.hash JOIN content ct ON ct.hash = c.hash
			ORDER BY top.s, d.corpus, d.path`
		args = append(args, fetch)
	}
	want := map[string]bool{}
	for _, c := range q.Corpora {
		want[c] = true
		if filterInside {
			args = append(args, c)
		}
	}
	if filterInside && q.Paths != nil {
		list, _ := json.Marshal(q.Paths)
		args = append(args, string(list))
	}
	if filterInside {
		args = append(args, fetch)
	}
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return nil, 0, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, 0, queryError(err)
	}
	defer rows.Close()
	var out []cairn.Candidate
	n := 0 // rows before the corpus filter
	for rows.Next() {
		c := cairn.Candidate{Capped: floor > 0}
		var text []byte
		if err := rows.Scan(&c.ChunkID, &c.Corpus, &c.Path, &c.Title, &c.Seq, &c.StartLine, &c.EndLine, &text, &c.BM25); err != nil {
			return nil, 0, queryError(err)
		}
		n++
		if len(want) > 0 && !want[c.Corpus] || paths != nil && !paths[c.Path] || len(out) == q.Limit {
			continue
		}
		c.Text = string(text)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, queryError(err)
	}
	return out, n, nil
}

// readStmt returns a prepared statement on the reader pool, preparing it
// once per store (database/sql prepares it again on each connection as
// needed). Search statements vary only with the number of corpora.
func (s *Store) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.smu.Lock()
	defer s.smu.Unlock()
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	st, err := s.r.PrepareContext(ctx, query)
	if err != nil {
		return nil, queryError(err)
	}
	if s.stmts == nil {
		s.stmts = make(map[string]*sql.Stmt)
	}
	s.stmts[query] = st
	return st, nil
}

// queryError turns FTS5 syntax errors into ErrInvalid.
func queryError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "fts5: syntax error") || strings.Contains(msg, "unterminated string") || strings.Contains(msg, "no such column") {
		return fmt.Errorf("%w: search query: %s", cairn.ErrInvalid, msg)
	}
	return fmt.Errorf("search index: %w", err)
}

// MatchCount counts chunks matching an FTS5 expression, stopping at max.
func (s *Store) MatchCount(ctx context.Context, match string, max int) (int, error) {
	var n int
	st, err := s.readStmt(ctx, `SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)`)
	if err != nil {
		return 0, err
	}
	if err := st.QueryRowContext(ctx, match, max).Scan(&n); err != nil {
		return 0, queryError(err)
	}
	return n, nil
}

// DocumentText returns the indexed text snapshot of one document.
func (s *Store) DocumentText(ctx context.Context, corpus, path string) (string, error) {
	var doc []byte
	err := s.r.QueryRowContext(ctx, `SELECT ct.doc FROM documents d JOIN content ct ON ct.hash = d.hash
		WHERE d.corpus=? AND d.path=?`, corpus, path).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return "", cairn.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read document %s: %w", path, err)
	}
	return string(doc), nil
}

// Stats counts what the index holds.
type Stats struct {
	Documents int
	Contents  int
	Chunks    int
	Bytes     int64 // database file size including WAL
}

// Stats reports index counts and size on disk.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM content),
		(SELECT count(*) FROM chunks)`).Scan(&st.Documents, &st.Contents, &st.Chunks)
	if err != nil {
		return st, fmt.Errorf("read index stats: %w", err)
	}
	st.Bytes = fileSize(s.Path) + fileSize(s.Path+"-wal")
	return st, nil
}
