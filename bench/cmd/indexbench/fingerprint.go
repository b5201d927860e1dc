package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// writeFingerprint writes the chunks, a digest of each chunk's postings and
// the hits of c.queries queries to c.fingerprint. The queries are terms of
// the index itself (every k-th term found in 2 to 1,000 chunks, and pairs
// of them), so they hit on any corpus.
func writeFingerprint(ctx context.Context, eng *engine.Engine, c *config) error {
	// The driver the sqlite package registers (with the cairn tokenizer
	// and ranking functions), read only.
	db, err := sql.Open("cairn_sqlite3", "file:"+filepath.Join(c.index, engine.DBFile)+"?mode=ro")
	if err != nil {
		return fmt.Errorf("open index: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the temp vocabulary table lives on one connection
	f, err := os.Create(c.fingerprint)
	if err != nil {
		return fmt.Errorf("create fingerprint: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	if err := writeChunks(ctx, db, w); err != nil {
		return err
	}
	terms, err := pickTerms(ctx, db, c.queries)
	if err != nil {
		return err
	}
	if err := writeHits(ctx, eng, w, terms); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write fingerprint: %w", err)
	}
	return f.Close()
}

// writeChunks writes one line per chunk of every document, in path order,
// with an FNV digest of its full-text postings in term order.
func writeChunks(ctx context.Context, db *sql.DB, w *bufio.Writer) error {
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, chunks_fts, instance)`); err != nil {
		return fmt.Errorf("create vocabulary table: %w", err)
	}
	digests := map[int64]uint64{}
	rows, err := db.QueryContext(ctx, `SELECT term, doc, col, offset FROM temp.vocab`)
	if err != nil {
		return fmt.Errorf("read postings: %w", err)
	}
	for rows.Next() {
		var term, col string
		var doc, off int64
		if err := rows.Scan(&term, &doc, &col, &off); err != nil {
			rows.Close()
			return fmt.Errorf("read postings: %w", err)
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%d|%s|%s|%d", digests[doc], term, col, off)
		digests[doc] = h.Sum64()
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read postings: %w", err)
	}
	rows.Close()
	// Chunks name their content by id from schema 12 (sqlite/contentid.go),
	// by hash before; this file is also built into older trees.
	join := "c.hash = d.hash"
	var byID int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('chunks') WHERE name = 'cid'`).Scan(&byID); err == nil && byID > 0 {
		join = "c.cid = d.cid"
	}
	rows, err = db.QueryContext(ctx, `SELECT d.path, d.hash, c.id, c.seq, c.pos, c.len, c.start_line, c.end_line, c.tokens, c.noise
		FROM documents d JOIN chunks c ON `+join+` ORDER BY d.path, c.seq`)
	if err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var path, hash string
		var id, seq, pos, n, sl, el, tokens, noise int64
		if err := rows.Scan(&path, &hash, &id, &seq, &pos, &n, &sl, &el, &tokens, &noise); err != nil {
			return fmt.Errorf("read chunks: %w", err)
		}
		fmt.Fprintf(w, "chunk %s %s %d %d+%d %d-%d %d %d %016x\n", path, hash[:12], seq, pos, n, sl, el, tokens, noise, digests[id])
	}
	return rows.Err()
}

// pickTerms returns n query terms: every k-th plain word of the index found
// in 2 to 1,000 chunks.
func pickTerms(ctx context.Context, db *sql.DB, n int) ([]string, error) {
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.rowvocab USING fts5vocab(main, chunks_fts, row)`); err != nil {
		return nil, fmt.Errorf("create vocabulary table: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT term FROM temp.rowvocab WHERE doc BETWEEN 2 AND 1000 ORDER BY term`)
	if err != nil {
		return nil, fmt.Errorf("read terms: %w", err)
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("read terms: %w", err)
		}
		if len(t) >= 3 && !strings.ContainsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) {
			all = append(all, t)
		}
	}
	if err := rows.Err(); err != nil || len(all) == 0 {
		return nil, err
	}
	step := max(1, len(all)/n)
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += step {
		out = append(out, all[i])
	}
	return out, nil
}

// writeHits searches each term, and each pair of neighbouring terms, and
// writes the hits with their scores. A query the search refuses as bad
// input (cairn.ErrInvalid: an index term such as "some" is a stop word of
// the query parser, so a query of it alone has nothing to search for) is
// written as refused and the list goes on; any other error stops it.
func writeHits(ctx context.Context, eng *engine.Engine, w *bufio.Writer, terms []string) error {
	var queries []string
	for i, t := range terms {
		queries = append(queries, t)
		if i > 0 {
			queries = append(queries, terms[i-1]+" "+t)
		}
	}
	for _, q := range queries {
		hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: "lexical"})
		if errors.Is(err, cairn.ErrInvalid) {
			fmt.Fprintf(w, "query %q refused\n", q)
			continue
		}
		if err != nil {
			return fmt.Errorf("search %q: %w", q, err)
		}
		fmt.Fprintf(w, "query %q %d\n", q, len(hits))
		for _, h := range hits {
			fmt.Fprintf(w, "  %s %d-%d %.6f\n", h.Path, h.StartLine, h.EndLine, h.Score)
		}
	}
	return nil
}
