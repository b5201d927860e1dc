package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// projectionKey is the meta key of a sessions corpus's projection settings.
func projectionKey(corpus string) string { return "projection:" + corpus }

// ProjectionKey returns the projection settings recorded for a sessions
// corpus by SetProjectionKey (what shaped its projections: projector
// version, time zone, agent name, chat types). "" when none was recorded.
func (s *Store) ProjectionKey(ctx context.Context, corpus string) (string, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, projectionKey(corpus)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read projection settings of %s: %w", corpus, err)
	}
	return v, nil
}

// SetProjectionKey records a sessions corpus's projection settings.
func (s *Store) SetProjectionKey(ctx context.Context, corpus, key string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	_, err = w.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, projectionKey(corpus), key)
	if err != nil {
		return fmt.Errorf("write projection settings of %s: %w", corpus, err)
	}
	return nil
}

// MarkStale makes the next sync read a document's file again whatever its
// size and mtime (the stored mtime becomes -1, which no file has): a session
// projection is rewritten with the session start as its mtime and often
// with the same length, so size and mtime cannot tell its new text from the
// old. The content hash still decides whether it is chunked again. A path
// not indexed yet is left alone.
func (s *Store) MarkStale(ctx context.Context, corpus, path string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, `UPDATE documents SET mtime=-1 WHERE corpus=? AND path=?`, corpus, path); err != nil {
		return fmt.Errorf("mark %s stale: %w", path, err)
	}
	return nil
}
