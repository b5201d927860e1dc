package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// redactKey is the meta key of a corpus's redaction state.
func redactKey(corpus string) string { return "redact:" + corpus }

// RedactState returns the redaction state recorded for a corpus by
// SetRedactState: which redaction its indexed documents went through. ""
// when none was recorded (an index built before redaction, or a new corpus).
func (s *Store) RedactState(ctx context.Context, corpus string) (string, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, redactKey(corpus)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read redaction state of %s: %w", corpus, err)
	}
	return v, nil
}

// SetRedactState records a corpus's redaction state.
func (s *Store) SetRedactState(ctx context.Context, corpus, state string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	_, err = w.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, redactKey(corpus), state)
	if err != nil {
		return fmt.Errorf("write redaction state of %s: %w", corpus, err)
	}
	return nil
}
