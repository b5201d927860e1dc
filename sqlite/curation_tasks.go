package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
)

const taskCols = `id, type, corpus, path, reason, content_fingerprint, detail, resolution_note, status, created_at, updated_at`

func scanTask(sc interface{ Scan(...any) error }) (cairn.MaintenanceTask, error) {
	var t cairn.MaintenanceTask
	var created, updated int64
	err := sc.Scan(&t.ID, &t.Type, &t.Corpus, &t.Path, &t.Reason, &t.Fingerprint, &t.Detail, &t.Note, &t.Status, &created, &updated)
	t.CreatedAt, t.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return t, err
}

// PutMaintenanceTask inserts a pending task or, when its unique key is
// there already, refreshes the detail of a pending one; a closed task is
// left alone (never reopened for the same content). One transaction of
// the durable store.
func (s *Store) PutMaintenanceTask(ctx context.Context, t cairn.MaintenanceTask) (cairn.MaintenanceTask, error) {
	w, err := s.writer()
	if err != nil {
		return t, err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return t, fmt.Errorf("add maintenance task: %w", err)
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	if !t.CreatedAt.IsZero() {
		now = t.CreatedAt.UnixMilli()
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO durable.maintenance_tasks(`+taskCols+`)
		VALUES(?, ?, ?, ?, ?, ?, ?, '', 'pending', ?, ?)
		ON CONFLICT(type, corpus, path, reason, content_fingerprint) DO UPDATE
		SET detail = excluded.detail, updated_at = excluded.updated_at
		WHERE maintenance_tasks.status = 'pending' AND maintenance_tasks.detail <> excluded.detail`,
		t.ID, t.Type, t.Corpus, t.Path, t.Reason, t.Fingerprint, t.Detail, now, now)
	if err != nil {
		return t, s.diagnose("add maintenance task", fmt.Errorf("add maintenance task: %w", err))
	}
	got, err := scanTask(tx.QueryRowContext(ctx, `SELECT `+taskCols+` FROM durable.maintenance_tasks
		WHERE type = ? AND corpus = ? AND path = ? AND reason = ? AND content_fingerprint = ?`,
		t.Type, t.Corpus, t.Path, t.Reason, t.Fingerprint))
	if err != nil {
		return t, fmt.Errorf("add maintenance task: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return t, fmt.Errorf("add maintenance task: %w", err)
	}
	return got, nil
}

// MaintenanceTask reads one task, or cairn.ErrNotFound.
func (s *Store) MaintenanceTask(ctx context.Context, id string) (cairn.MaintenanceTask, error) {
	t, err := scanTask(s.r.QueryRowContext(ctx, `SELECT `+taskCols+` FROM durable.maintenance_tasks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("read maintenance task %s: %w", id, cairn.ErrNotFound)
	}
	if err != nil {
		return t, s.diagnose("read maintenance task", fmt.Errorf("read maintenance task %s: %w", id, err))
	}
	return t, nil
}

// MaintenanceTasks reads the tasks f selects by created_at, then id.
func (s *Store) MaintenanceTasks(ctx context.Context, f cairn.TaskFilter) ([]cairn.MaintenanceTask, error) {
	all, corpora := f.Corpora == nil, "[]"
	if !all {
		b, _ := json.Marshal(f.Corpora)
		corpora = string(b)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+taskCols+` FROM durable.maintenance_tasks
		WHERE (? = '' OR status = ?) AND (? = '' OR type = ?)
		AND (? OR corpus COLLATE NOCASE IN (SELECT value FROM json_each(?))) ORDER BY created_at, id`, f.Status, f.Status, f.Type, f.Type, all, corpora)
	if err != nil {
		return nil, s.diagnose("read maintenance tasks", fmt.Errorf("read maintenance tasks: %w", err))
	}
	defer rows.Close()
	var out []cairn.MaintenanceTask
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("read maintenance tasks: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// UpdateMaintenanceTask sets the status and note and upserts the
// annotation in one transaction of the durable store.
func (s *Store) UpdateMaintenanceTask(ctx context.Context, u cairn.TaskUpdate) (cairn.MaintenanceTask, error) {
	w, err := s.writer()
	if err != nil {
		return cairn.MaintenanceTask{}, err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return cairn.MaintenanceTask{}, fmt.Errorf("update maintenance task: %w", err)
	}
	defer tx.Rollback()
	at := u.At
	if at.IsZero() {
		at = time.Now()
	}
	res, err := tx.ExecContext(ctx, `UPDATE durable.maintenance_tasks SET status = ?, resolution_note = ?, updated_at = ? WHERE id = ?`,
		u.Status, u.Note, at.UnixMilli(), u.ID)
	if err != nil {
		return cairn.MaintenanceTask{}, s.diagnose("update maintenance task", fmt.Errorf("update maintenance task %s: %w", u.ID, err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return cairn.MaintenanceTask{}, fmt.Errorf("update maintenance task %s: %w", u.ID, cairn.ErrNotFound)
	}
	if a := u.Annotation; a != nil {
		_, err := tx.ExecContext(ctx, `INSERT INTO durable.temporal_annotations(corpus, path, content_fingerprint, event_time,
			basis, evidence, chunk_hash, chunk_seq, created_at, updated_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(corpus, path, content_fingerprint) DO UPDATE SET event_time = excluded.event_time,
			basis = excluded.basis, evidence = excluded.evidence, chunk_hash = excluded.chunk_hash,
			chunk_seq = excluded.chunk_seq, updated_at = excluded.updated_at`,
			a.Corpus, a.Path, a.Fingerprint, a.EventTime.UnixMilli(), a.Basis, a.Evidence, a.Chunk.Hash, a.Chunk.Seq,
			at.UnixMilli(), at.UnixMilli())
		if err != nil {
			return cairn.MaintenanceTask{}, fmt.Errorf("write event-date annotation for %s: %w", a.Path, err)
		}
	}
	t, err := scanTask(tx.QueryRowContext(ctx, `SELECT `+taskCols+` FROM durable.maintenance_tasks WHERE id = ?`, u.ID))
	if err != nil {
		return t, fmt.Errorf("update maintenance task %s: %w", u.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return t, fmt.Errorf("update maintenance task %s: %w", u.ID, err)
	}
	return t, nil
}

// TemporalAnnotations reads every annotation by corpus, path and
// fingerprint.
func (s *Store) TemporalAnnotations(ctx context.Context) ([]cairn.TemporalAnnotation, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT corpus, path, content_fingerprint, event_time, basis, evidence,
		chunk_hash, chunk_seq, created_at, updated_at FROM durable.temporal_annotations ORDER BY corpus, path, content_fingerprint`)
	if err != nil {
		return nil, s.diagnose("read event-date annotations", fmt.Errorf("read event-date annotations: %w", err))
	}
	defer rows.Close()
	var out []cairn.TemporalAnnotation
	for rows.Next() {
		var a cairn.TemporalAnnotation
		var event, created, updated int64
		if err := rows.Scan(&a.Corpus, &a.Path, &a.Fingerprint, &event, &a.Basis, &a.Evidence, &a.Chunk.Hash, &a.Chunk.Seq,
			&created, &updated); err != nil {
			return nil, fmt.Errorf("read event-date annotations: %w", err)
		}
		a.EventTime = time.UnixMilli(event).UTC()
		a.CreatedAt, a.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}

// CachedJudgment reads a cached judgment.
func (s *Store) CachedJudgment(ctx context.Context, policy, key string) (string, bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM durable.judgments WHERE policy = ? AND key = ?`, policy, key).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, s.diagnose("read cached judgment", fmt.Errorf("read cached judgment: %w", err))
	}
	return v, true, nil
}

// PutCachedJudgment stores a judgment, replacing any under the same key.
func (s *Store) PutCachedJudgment(ctx context.Context, policy, key, value string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	_, err = w.ExecContext(ctx, `INSERT INTO durable.judgments(policy, key, value, created_at) VALUES(?, ?, ?, ?)
		ON CONFLICT(policy, key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
		policy, key, value, time.Now().UnixMilli())
	if err != nil {
		return s.diagnose("cache judgment", fmt.Errorf("cache judgment: %w", err))
	}
	return nil
}
