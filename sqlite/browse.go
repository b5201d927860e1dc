package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairnmemory/cairn"
)

// Reads for the web pages' browsing (engine/browse.go): aggregates and
// pages in SQL, so a corpus of 50,000 documents costs one aggregate scan and
// one page of rows, not a listing of every document.

// CorpusTotals returns, per corpus, how many documents it holds and
// their bytes: one scan of the documents table in storage order (through
// the (corpus, path) index each row would cost a lookup of the table, 2.5
// times the CPU at 70,000 documents).
func (s *Store) CorpusTotals(ctx context.Context) (map[string][2]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT corpus, count(*), coalesce(sum(size), 0) FROM documents NOT INDEXED GROUP BY corpus`)
	if err != nil {
		return nil, s.diagnose("read index", fmt.Errorf("count documents: %w", err))
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var c string
		var n, bytes int64
		if err := rows.Scan(&c, &n, &bytes); err != nil {
			return nil, fmt.Errorf("count documents: %w", err)
		}
		out[c] = [2]int64{n, bytes}
	}
	return out, rows.Err()
}

// DocPage returns up to limit documents of a corpus in path order, after
// skipping offset of them: a walk of the (corpus, path) index.
func (s *Store) DocPage(ctx context.Context, corpus string, offset, limit int) ([]cairn.DocState, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT path, hash, size, mtime FROM documents WHERE corpus=?
		ORDER BY path LIMIT ? OFFSET ?`, corpus, limit, offset)
	if err != nil {
		return nil, s.diagnose("read index", fmt.Errorf("list documents of %s: %w", corpus, err))
	}
	defer rows.Close()
	out := make([]cairn.DocState, 0, limit)
	for rows.Next() {
		var d cairn.DocState
		if err := rows.Scan(&d.Path, &d.Hash, &d.Size, &d.ModTime); err != nil {
			return nil, fmt.Errorf("list documents of %s: %w", corpus, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// SessionsByPath reads the records of these projection paths of a corpus
// in one query, in the order of paths; a path without a record is left
// out.
func (s *Store) SessionsByPath(ctx context.Context, corpus string, paths []string) ([]cairn.SessionRecord, error) {
	list, err := json.Marshal(paths)
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionCols+` FROM (SELECT key AS k, value AS v FROM json_each(?)) AS p
		JOIN sessions ON sessions.corpus=? AND sessions.path=p.v ORDER BY p.k`, string(list), corpus)
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	defer rows.Close()
	out := make([]cairn.SessionRecord, 0, len(paths))
	for rows.Next() {
		r, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
