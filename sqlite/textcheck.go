package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// CheckTexts hashes every stored text again and calls fn with each
// document whose text no longer matches: its content row's text has
// another sha256 than the hash it was stored under (bytes changed on disk
// inside a row: integrity_check reads the b-tree's structure, not what a
// row holds, and FTS5's integrity-check of a contentless table cannot see
// the text either), or the document names a hash its content row does not
// have, or no content row at all. why says which, in words. A content
// row shared by several documents (the same text in two files) names each
// of them. It returns how many texts it read and their bytes: every
// stored text once (at 1M chunks, 480,000 texts of 457 MB).
func (s *Store) CheckTexts(ctx context.Context, fn func(corpus, path, why string)) (texts int, bytes int64, err error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, hash, doc FROM content`)
	if err != nil {
		return 0, 0, s.diagnose("check stored texts", err)
	}
	var bad []int64
	var sum [sha256.Size]byte
	var hexSum [2 * sha256.Size]byte
	for rows.Next() {
		var id int64
		var hash string
		var doc []byte
		if err := rows.Scan(&id, &hash, &doc); err != nil {
			rows.Close()
			return texts, bytes, s.diagnose("check stored texts", err)
		}
		texts++
		bytes += int64(len(doc))
		sum = sha256.Sum256(doc)
		hex.Encode(hexSum[:], sum[:])
		if string(hexSum[:]) != hash {
			bad = append(bad, id)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return texts, bytes, s.diagnose("check stored texts", err)
	}
	rows.Close()
	for _, id := range bad {
		if err := s.eachDocument(ctx, `SELECT corpus, path FROM documents WHERE cid=? ORDER BY corpus, path`, id,
			"stored text no longer matches its hash", fn); err != nil {
			return texts, bytes, err
		}
	}
	// documents_content makes the join a seek a document; the hash
	// compared is the one the no-op check trusts (docstates.go).
	err = s.eachDocument(ctx, `SELECT d.corpus, d.path FROM documents d LEFT JOIN content ct ON ct.id = d.cid
		WHERE ct.hash IS NULL OR ct.hash != d.hash ORDER BY d.corpus, d.path`, nil,
		"stored text missing or under another hash", fn)
	return texts, bytes, err
}

func (s *Store) eachDocument(ctx context.Context, q string, arg any, why string, fn func(corpus, path, why string)) error {
	var args []any
	if arg != nil {
		args = append(args, arg)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return s.diagnose("check stored texts", err)
	}
	defer rows.Close()
	for rows.Next() {
		var corpus, path string
		if err := rows.Scan(&corpus, &path); err != nil {
			return s.diagnose("check stored texts", err)
		}
		fn(corpus, path, why)
	}
	return s.diagnose("check stored texts", rows.Err())
}

// ForgetText makes the next sync index a document again from its source:
// the document no longer points at its stored text (it keeps its corpus
// and path, with no hash and the mtime -1 of MarkStale, so the sync reads
// the file whatever its size and mtime and finds its hash changed), and
// the text it pointed at, with its chunks, full-text rows and vectors, is
// left to GC once no other document points at it. A path not indexed is
// left alone. Until that sync the document is in no search.
func (s *Store) ForgetText(ctx context.Context, corpus, path string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return s.diagnose("write index", fmt.Errorf("forget the text of %s: %w", path, err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE documents SET hash='', cid=0, mtime=-1 WHERE corpus=? AND path=?`, corpus, path); err != nil {
		return s.diagnose("write index", fmt.Errorf("forget the text of %s: %w", path, err))
	}
	if err := markGC(ctx, tx); err != nil {
		return s.diagnose("write index", err)
	}
	if err := tx.Commit(); err != nil {
		return s.diagnose("write index", fmt.Errorf("forget the text of %s: %w", path, err))
	}
	s.gen.Add(1)
	return nil
}
