package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// Lexical runs q as SQLite's store does: one pass over the matches newest
// first (at most q.MaxCandidates of them), the best q.Limit by score kept
// in the database and joined to every document that holds them; when a
// corpus or path filter leaves too few, the pass runs again with the
// filter inside, uncapped. Each pass is one statement (scan, scores and
// the join to documents and text), so it sees one snapshot and costs one
// round trip.
func (s *Store) Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error) {
	r := s.readPool()
	c, err := s.compile(ctx, r, q.Match)
	if err != nil {
		return nil, classify("search index", err)
	}
	if q.Limit <= 0 || c.tsq == "" {
		return &cairn.LexicalResult{}, nil
	}
	res, err := s.lexical(ctx, r, q, c, false)
	if err != nil {
		return nil, classify("search index", err)
	}
	if (len(q.Corpora) > 0 || q.Paths != nil) && len(res.Candidates) < q.Limit && res.Scanned >= q.Limit {
		if res, err = s.lexical(ctx, r, q, c, true); err != nil {
			return nil, classify("search index", err)
		}
	}
	return res, nil
}

func (s *Store) lexical(ctx context.Context, tx querier, q cairn.LexicalQuery, c *compiled, filterInside bool) (*cairn.LexicalResult, error) {
	res := &cairn.LexicalResult{}
	query, args := scanQuery(q, c, filterInside)
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cands []cairn.Candidate
	for rows.Next() {
		var cd cairn.Candidate
		var n, low int64
		var corpus, path, title *string
		var seq, sl, el *int
		var text []byte
		if err := rows.Scan(&cd.ChunkID, &cd.Score, &n, &low, &corpus, &path, &title, &seq, &sl, &el, &text); err != nil {
			return nil, err
		}
		res.Scanned, res.Low = int(n), low
		if !filterInside && q.MaxCandidates > 0 && n > int64(q.MaxCandidates) {
			res.Scanned, res.Capped = q.MaxCandidates, true
		}
		if corpus == nil {
			continue // a winner no document holds any more
		}
		cd.Corpus, cd.Path, cd.Title, cd.Seq, cd.StartLine, cd.EndLine = *corpus, *path, *title, *seq, *sl, *el
		cd.Text, cd.Lane = string(text), cairn.LaneLexical
		cands = append(cands, cd)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	limited := func(string) bool { return true }
	if q.PathCorpora != nil {
		limited = func(c string) bool { return slices.Contains(q.PathCorpora, c) }
	}
	for _, cd := range cands {
		if len(q.Corpora) > 0 && !slices.Contains(q.Corpora, cd.Corpus) ||
			q.Paths != nil && limited(cd.Corpus) && !slices.Contains(q.Paths, cd.Path) {
			continue
		}
		cd.Capped = res.Capped
		res.Candidates = append(res.Candidates, cd)
	}
	sort.SliceStable(res.Candidates, func(i, j int) bool {
		a, b := res.Candidates[i], res.Candidates[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Corpus != b.Corpus {
			return a.Corpus < b.Corpus
		}
		return a.Path < b.Path
	})
	if len(res.Candidates) > q.Limit {
		res.Candidates = res.Candidates[:q.Limit]
	}
	return res, nil
}

// scanQuery is one pass: the matching chunks newest first (capped: the cap
// and one more row, which only tells that the cap cut something), each
// leaf counted, scored, and the best q.Limit returned with the pass's size
// and lowest id. The matches and their counts come from the postings
// (c.rel, read index-only); only the winners visit their chunks. With
// filterInside the pass keeps only the filter's documents' chunks,
// uncapped.
func scanQuery(q cairn.LexicalQuery, c *compiled, filterInside bool) (string, []any) {
	args := append([]any(nil), c.args...)
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	var sc []string
	all := make([]int, c.leaves)
	for i := range all {
		all[i] = i
		sc = append(sc, fmt.Sprintf("%s::float8 * s.f%d * %g / (s.f%d + %g)", arg(c.weights[i]), i, k1+1, i, k1))
	}
	const ag = "$1"
	where, limit, capped := "", "", "false"
	if filterInside {
		filter := ""
		if len(q.Corpora) > 0 {
			filter += ` AND d.corpus = ANY(` + arg(q.Corpora) + `::text[])`
		}
		if q.Paths != nil {
			if q.PathCorpora != nil {
				filter += ` AND (d.corpus <> ALL(` + arg(q.PathCorpora) + `::text[]) OR d.path = ANY(` + arg(q.Paths) + `::text[]))`
			} else {
				filter += ` AND d.path = ANY(` + arg(q.Paths) + `::text[])`
			}
		}
		where = ` WHERE EXISTS (SELECT 1 FROM chunks fc JOIN documents d ON d.agent = ` + ag + ` AND d.hash = fc.hash
			WHERE fc.agent = ` + ag + ` AND fc.id = r.chunk` + filter + `)`
	}
	rel := c.rel.sql
	if !filterInside && q.MaxCandidates > 0 {
		n := arg(int64(q.MaxCandidates))
		limit = ` LIMIT ` + n + ` + 1`
		capped = `m.n > ` + n
		rel = c.rel.newest(n + ` + 1`)
	}
	// With more matches than the cap, the extra (oldest) row only tells
	// so: it is not scored, and the lowest id scored is the second lowest.
	query := `WITH s AS MATERIALIZED (SELECT r.chunk AS id, ` + columns("r", c.rel, all) + ` FROM (` + rel + `) r` + where + ` ORDER BY r.chunk DESC` + limit + `),
		m AS MATERIALIZED (SELECT count(*) AS n, min(id) AS low,
			(SELECT min(id) FROM s WHERE id > (SELECT min(id) FROM s)) AS low2 FROM s),
		top AS (SELECT s.id, (` + strings.Join(sc, " + ") + `)::float8 AS score, m.n,
			CASE WHEN ` + capped + ` THEN coalesce(m.low2, 0) ELSE coalesce(m.low, 0) END AS low
		FROM s, m WHERE NOT (` + capped + `) OR s.id > m.low
		ORDER BY score DESC, s.id DESC LIMIT ` + arg(int64(q.Limit)) + `)
		SELECT top.id, top.score, top.n, top.low, d.corpus, d.path, ct.title, c.seq, c.start_line, c.end_line,
			substring(ct.doc FROM c.pos::int + 1 FOR c.len::int)
		FROM top JOIN chunks c ON c.agent = ` + ag + ` AND c.id = top.id
			LEFT JOIN documents d ON d.agent = ` + ag + ` AND d.hash = c.hash
			LEFT JOIN content ct ON ct.agent = ` + ag + ` AND ct.hash = c.hash
		ORDER BY top.score DESC, top.id DESC` // ties keep one order whatever the join's plan (lexical sorts stably)
	return query, args
}

// MatchCount counts the chunks m matches, newest first, up to max: from
// the postings alone for terms and prefixes.
func (s *Store) MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	var mc cairn.MatchCount
	r := s.readPool()
	c, err := s.compile(ctx, r, m)
	if err != nil {
		return mc, classify("count matches", err)
	}
	if c.tsq == "" {
		return mc, nil
	}
	query, args := countQuery(c, max)
	err = r.QueryRow(ctx, query, args...).Scan(&mc.N, &mc.Low)
	return mc, classify("count matches", err)
}

// countQuery is MatchCount's statement: the newest max matches of c,
// counted, and the lowest of them.
func countQuery(c *compiled, max int) (string, []any) {
	args := append(append([]any(nil), c.args...), int64(max))
	n := fmt.Sprintf("$%d", len(args))
	return fmt.Sprintf(`SELECT count(*), coalesce(min(chunk), 0) FROM (SELECT r.chunk FROM (%s) r
		ORDER BY r.chunk DESC LIMIT %s) x`, c.rel.newest(n), n), args
}

// MatchCounts is MatchCount of each of ms in one round trip and one
// statement (plus one that stems the words not seen before, all of them
// at once): search.Searcher counts every term of a query before its
// pass, and one statement a term was a round trip a term, on Citus each
// also a hop from the coordinator to the worker (bench/RESULTS.md, issue
// 20, pgq). The counts are MatchCount's, read in one snapshot.
func (s *Store) MatchCounts(ctx context.Context, ms []cairn.Match, max int) ([]cairn.MatchCount, error) {
	out := make([]cairn.MatchCount, len(ms))
	r := s.readPool()
	query, args, err := s.countsQuery(ctx, r, ms, max)
	if err != nil {
		return nil, classify("count matches", err)
	}
	if query == "" {
		return out, nil
	}
	rows, err := r.Query(ctx, query, args...)
	if err != nil {
		return nil, classify("count matches", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k int
		var mc cairn.MatchCount
		if err := rows.Scan(&k, &mc.N, &mc.Low); err != nil {
			return nil, classify("count matches", err)
		}
		out[k] = mc
	}
	return out, classify("count matches", rows.Err())
}

// countsQuery is MatchCounts's statement: a row (k, n, low) for each
// match k of ms that can match, countQuery's count of it; "" when none
// can.
func (s *Store) countsQuery(ctx context.Context, q querier, ms []cairn.Match, max int) (string, []any, error) {
	if len(ms) == 0 {
		return "", nil, nil
	}
	c, lex, err := s.compiler(ctx, q, ms...)
	if err != nil {
		return "", nil, err
	}
	n := c.arg(int64(max))
	var parts []string
	for k, m := range ms {
		if tsq, rel := c.build(m, lex); tsq != "" {
			parts = append(parts, fmt.Sprintf(`SELECT %d AS k, count(*) AS n, coalesce(min(chunk), 0) AS low FROM (SELECT r.chunk FROM (%s) r
		ORDER BY r.chunk DESC LIMIT %s) x%d`, k, rel.newest(n), n, k))
		}
	}
	if len(parts) == 0 {
		return "", nil, nil
	}
	return strings.Join(parts, " UNION ALL "), c.args, nil
}

// Span reports the indexed chunks (a counter kept with every write, so no
// count runs) and the range of chunk ids.
func (s *Store) Span(ctx context.Context) (cairn.IndexSpan, error) {
	var sp cairn.IndexSpan
	err := s.readPool().QueryRow(ctx, `SELECT coalesce((SELECT value::bigint FROM agent_meta WHERE agent = $1 AND key = 'fts_rows'), 0),
		coalesce((SELECT min(id) FROM chunks WHERE agent = $1), 0), coalesce((SELECT max(id) FROM chunks WHERE agent = $1), 0)`,
		s.agent).Scan(&sp.Rows, &sp.MinID, &sp.MaxID)
	return sp, classify("read index span", err)
}

// DocStates returns the documents of a corpus keyed by path.
func (s *Store) DocStates(ctx context.Context, corpus string) (map[string]cairn.DocState, error) {
	rows, err := s.pool.Query(ctx, `SELECT path, hash, size, mtime FROM documents WHERE agent = $1 AND corpus = $2`, s.agent, corpus)
	if err != nil {
		return nil, classify("list documents of "+corpus, err)
	}
	defer rows.Close()
	out := map[string]cairn.DocState{}
	for rows.Next() {
		var d cairn.DocState
		if err := rows.Scan(&d.Path, &d.Hash, &d.Size, &d.ModTime); err != nil {
			return nil, classify("list documents of "+corpus, err)
		}
		out[d.Path] = d
	}
	return out, classify("list documents of "+corpus, rows.Err())
}

// HasContent reports which of the hashes are stored.
func (s *Store) HasContent(ctx context.Context, hashes []string) (map[string]bool, error) {
	out := make(map[string]bool, len(hashes))
	if len(hashes) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT hash FROM content WHERE agent = $1 AND hash = ANY($2)`, s.agent, hashes)
	if err != nil {
		return nil, classify("look up content", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, classify("look up content", err)
		}
		out[h] = true
	}
	return out, classify("look up content", rows.Err())
}

// DocumentText returns one document's text or cairn.ErrNotFound.
func (s *Store) DocumentText(ctx context.Context, corpus, path string) (string, error) {
	var doc []byte
	err := s.pool.QueryRow(ctx, `SELECT ct.doc FROM documents d JOIN content ct ON ct.agent = d.agent AND ct.hash = d.hash
		WHERE d.agent = $1 AND d.corpus = $2 AND d.path = $3`, s.agent, corpus, path).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", cairn.ErrNotFound
	}
	if err != nil {
		return "", classify("read document "+path, err)
	}
	return string(doc), nil
}

// Stats counts the agent's documents, contents and chunks; Bytes is the
// size of its rows (pg_column_size summed), not of the shared files.
func (s *Store) Stats(ctx context.Context) (cairn.IndexStats, error) {
	var st cairn.IndexStats
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM documents WHERE agent = $1), (SELECT count(*) FROM content WHERE agent = $1),
		(SELECT count(*) FROM chunks WHERE agent = $1),
		coalesce((SELECT sum(pg_column_size(c.*)) FROM content c WHERE agent = $1), 0)
		+ coalesce((SELECT sum(pg_column_size(c.*)) FROM chunks c WHERE agent = $1), 0)
		+ coalesce((SELECT sum(pg_column_size(v.*)) FROM vectors v WHERE agent = $1), 0)
		+ coalesce((SELECT sum(pg_column_size(d.*)) FROM documents d WHERE agent = $1), 0)`, s.agent).
		Scan(&st.Documents, &st.Contents, &st.Chunks, &st.Bytes)
	return st, classify("read index stats", err)
}

// ChunkCount counts the stored chunks.
func (s *Store) ChunkCount(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE agent = $1`, s.agent).Scan(&n)
	return n, classify("count chunks", err)
}
