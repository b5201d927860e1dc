package sqlite

import (
	"context"
	"fmt"
)

// RenameTranscript moves what the index keeps of a transcript from one
// stored path to another, in one transaction: its state in
// transcript_files (the path, and the path where its last error or stats
// quote it) and the transcript column of its sessions. The engine uses it
// to replace a path that holds a secret with its redacted key; with
// secure_delete on, the old text does not stay in freed pages. A state
// already stored under the new path is replaced.
func (s *Store) RenameTranscript(ctx context.Context, corpus, from, to string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rename transcript: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{
		`UPDATE OR REPLACE transcript_files SET path=?2, error=replace(error, ?1, ?2), stats=replace(stats, ?1, ?2)
			WHERE corpus=?3 AND path=?1`,
		`UPDATE sessions SET transcript=?2 WHERE corpus=?3 AND transcript=?1`,
	} {
		if _, err := tx.ExecContext(ctx, q, from, to, corpus); err != nil {
			return fmt.Errorf("rename transcript: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rename transcript: %w", err)
	}
	s.gen.Add(1)
	return nil
}
