package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

const taskCols = `id, type, corpus, path, reason, content_fingerprint, detail, resolution_note, status, created_at, updated_at`

func scanTask(sc pgx.Row) (cairn.MaintenanceTask, error) {
	var t cairn.MaintenanceTask
	var created, updated int64
	err := sc.Scan(&t.ID, &t.Type, &t.Corpus, &t.Path, &t.Reason, &t.Fingerprint, &t.Detail, &t.Note, &t.Status, &created, &updated)
	t.CreatedAt, t.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return t, err
}

// PutMaintenanceTask inserts a pending task or refreshes the detail of a
// pending one with the same key; a closed task is never reopened.
func (s *Store) PutMaintenanceTask(ctx context.Context, t cairn.MaintenanceTask) (cairn.MaintenanceTask, error) {
	var got cairn.MaintenanceTask
	err := s.write(ctx, "add maintenance task", func(tx pgx.Tx) error {
		now := time.Now().UnixMilli()
		if !t.CreatedAt.IsZero() {
			now = t.CreatedAt.UnixMilli()
		}
		if _, err := tx.Exec(ctx, `INSERT INTO maintenance_tasks AS mt(agent, `+taskCols+`)
			VALUES($1, $2, $3, $4, $5, $6, $7, $8, '', 'pending', $9, $9)
			ON CONFLICT(agent, type, corpus, path, reason, content_fingerprint) DO UPDATE
			SET detail = excluded.detail, updated_at = excluded.updated_at
			WHERE mt.status = 'pending' AND mt.detail <> excluded.detail`,
			s.agent, t.ID, t.Type, t.Corpus, t.Path, t.Reason, t.Fingerprint, cleanText(t.Detail), now); err != nil {
			return err
		}
		var err error
		got, err = scanTask(tx.QueryRow(ctx, `SELECT `+taskCols+` FROM maintenance_tasks WHERE agent = $1 AND type = $2 AND corpus = $3
			AND path = $4 AND reason = $5 AND content_fingerprint = $6`, s.agent, t.Type, t.Corpus, t.Path, t.Reason, t.Fingerprint))
		return err
	})
	if err != nil {
		return t, err
	}
	return got, nil
}

// MaintenanceTask reads one task, or cairn.ErrNotFound.
func (s *Store) MaintenanceTask(ctx context.Context, id string) (cairn.MaintenanceTask, error) {
	t, err := scanTask(s.pool.QueryRow(ctx, `SELECT `+taskCols+` FROM maintenance_tasks WHERE agent = $1 AND id = $2`, s.agent, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("read maintenance task %s: %w", id, cairn.ErrNotFound)
	}
	return t, classify("read maintenance task "+id, err)
}

// MaintenanceTasks reads the tasks f selects by created_at, then id.
func (s *Store) MaintenanceTasks(ctx context.Context, f cairn.TaskFilter) ([]cairn.MaintenanceTask, error) {
	var corpora []string // nil: every corpus; a grant's corpora match ignoring case
	for _, c := range f.Corpora {
		corpora = append(corpora, strings.ToLower(c))
	}
	if f.Corpora != nil && corpora == nil {
		corpora = []string{}
	}
	rows, err := s.pool.Query(ctx, `SELECT `+taskCols+` FROM maintenance_tasks
		WHERE agent = $1 AND ($2 = '' OR status = $2) AND ($3 = '' OR type = $3)
		AND ($4::text[] IS NULL OR lower(corpus) = ANY($4)) ORDER BY created_at, id COLLATE "C"`, s.agent, f.Status, f.Type, corpora)
	if err != nil {
		return nil, classify("read maintenance tasks", err)
	}
	defer rows.Close()
	var out []cairn.MaintenanceTask
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, classify("read maintenance tasks", err)
		}
		out = append(out, t)
	}
	return out, classify("read maintenance tasks", rows.Err())
}

// UpdateMaintenanceTask sets a task's status and note and upserts the
// annotation, in one transaction.
func (s *Store) UpdateMaintenanceTask(ctx context.Context, u cairn.TaskUpdate) (cairn.MaintenanceTask, error) {
	var t cairn.MaintenanceTask
	err := s.write(ctx, "update maintenance task "+u.ID, func(tx pgx.Tx) error {
		at := u.At
		if at.IsZero() {
			at = time.Now()
		}
		tag, err := tx.Exec(ctx, `UPDATE maintenance_tasks SET status = $3, resolution_note = $4, updated_at = $5 WHERE agent = $1 AND id = $2`,
			s.agent, u.ID, u.Status, cleanText(u.Note), at.UnixMilli())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("update maintenance task %s: %w", u.ID, cairn.ErrNotFound)
		}
		if a := u.Annotation; a != nil {
			if _, err := tx.Exec(ctx, `INSERT INTO temporal_annotations(agent, corpus, path, content_fingerprint, event_time,
				basis, evidence, chunk_hash, chunk_seq, created_at, updated_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
				ON CONFLICT(agent, corpus, path, content_fingerprint) DO UPDATE SET event_time = excluded.event_time,
				basis = excluded.basis, evidence = excluded.evidence, chunk_hash = excluded.chunk_hash,
				chunk_seq = excluded.chunk_seq, updated_at = excluded.updated_at`,
				s.agent, a.Corpus, a.Path, a.Fingerprint, a.EventTime.UnixMilli(), a.Basis, cleanText(a.Evidence), a.Chunk.Hash, a.Chunk.Seq,
				at.UnixMilli()); err != nil {
				return fmt.Errorf("write event-date annotation for %s: %w", a.Path, err)
			}
		}
		t, err = scanTask(tx.QueryRow(ctx, `SELECT `+taskCols+` FROM maintenance_tasks WHERE agent = $1 AND id = $2`, s.agent, u.ID))
		return err
	})
	return t, err
}

// TemporalAnnotations reads every annotation by corpus, path and
// fingerprint.
func (s *Store) TemporalAnnotations(ctx context.Context) ([]cairn.TemporalAnnotation, error) {
	rows, err := s.pool.Query(ctx, `SELECT corpus, path, content_fingerprint, event_time, basis, evidence,
		chunk_hash, chunk_seq, created_at, updated_at FROM temporal_annotations WHERE agent = $1
		ORDER BY corpus COLLATE "C", path COLLATE "C", content_fingerprint COLLATE "C"`, s.agent)
	if err != nil {
		return nil, classify("read event-date annotations", err)
	}
	defer rows.Close()
	var out []cairn.TemporalAnnotation
	for rows.Next() {
		var a cairn.TemporalAnnotation
		var event, created, updated int64
		if err := rows.Scan(&a.Corpus, &a.Path, &a.Fingerprint, &event, &a.Basis, &a.Evidence, &a.Chunk.Hash, &a.Chunk.Seq,
			&created, &updated); err != nil {
			return nil, classify("read event-date annotations", err)
		}
		a.EventTime = time.UnixMilli(event).UTC()
		a.CreatedAt, a.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
		out = append(out, a)
	}
	return out, classify("read event-date annotations", rows.Err())
}

// CachedJudgment reads a cached judgment.
func (s *Store) CachedJudgment(ctx context.Context, policy, key string) (string, bool, error) {
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value FROM judgments WHERE agent = $1 AND policy = $2 AND key = $3`, s.agent, policy, key).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, classify("read cached judgment", err)
	}
	return v, true, nil
}

// PutCachedJudgment stores a judgment, replacing any under the same key.
func (s *Store) PutCachedJudgment(ctx context.Context, policy, key, value string) error {
	return s.write(ctx, "cache judgment", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO judgments(agent, policy, key, value, created_at) VALUES($1, $2, $3, $4, $5)
			ON CONFLICT(agent, policy, key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
			s.agent, policy, key, cleanText(value), time.Now().UnixMilli())
		return err
	})
}
