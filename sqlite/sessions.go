package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

var _ cairn.SessionStore = (*Store)(nil)

// PutSession inserts or replaces a projected session's record.
func (s *Store) PutSession(ctx context.Context, r cairn.SessionRecord) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	i := r.Info
	started := int64(0) // no start time: 0, read back as none (UnixMilli of the zero time is year 1)
	if !r.StartedAt.IsZero() {
		started = r.StartedAt.UnixMilli()
	}
	_, err = w.ExecContext(ctx, `INSERT OR REPLACE INTO sessions(corpus, path, source, session_id, provider,
		chat_type, account_id, conversation_id, cwd, title, parent_id, started_at, started_raw, transcript,
		projection_hash, projector_version, spans) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.Corpus, r.Path, i.Source, i.SessionID, i.Provider, i.ChatType, i.AccountID, i.ConversationID, i.Cwd,
		i.Title, r.ParentID, started, r.StartedAtRaw, r.Transcript, r.ProjectionHash,
		r.ProjectorVersion, r.Spans)
	if err != nil {
		return fmt.Errorf("store session %s: %w", r.Path, err)
	}
	s.gen.Add(1)
	return nil
}

// DeleteSession removes a session's record.
func (s *Store) DeleteSession(ctx context.Context, corpus, path string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, `DELETE FROM sessions WHERE corpus=? AND path=?`, corpus, path); err != nil {
		return fmt.Errorf("delete session %s: %w", path, err)
	}
	s.gen.Add(1)
	return nil
}

const sessionCols = `corpus, path, source, session_id, provider, chat_type, account_id, conversation_id,
	cwd, title, parent_id, started_at, started_raw, transcript, projection_hash, projector_version, spans`

func scanSession(sc interface{ Scan(...any) error }) (cairn.SessionRecord, error) {
	var r cairn.SessionRecord
	var ms int64
	i := &r.Info
	err := sc.Scan(&r.Corpus, &r.Path, &i.Source, &i.SessionID, &i.Provider, &i.ChatType, &i.AccountID,
		&i.ConversationID, &i.Cwd, &i.Title, &r.ParentID, &ms, &r.StartedAtRaw, &r.Transcript, &r.ProjectionHash,
		&r.ProjectorVersion, &r.Spans)
	i.ParentID = r.ParentID
	if ms != 0 {
		r.StartedAt = time.UnixMilli(ms).UTC()
		i.StartedAt = r.StartedAt.Format(time.RFC3339Nano)
	}
	return r, err
}

// Session returns one session's record or cairn.ErrNotFound.
func (s *Store) Session(ctx context.Context, corpus, path string) (cairn.SessionRecord, error) {
	r, err := scanSession(s.r.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE corpus=? AND path=?`, corpus, path))
	if errors.Is(err, sql.ErrNoRows) {
		return r, cairn.ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("read session %s: %w", path, err)
	}
	return r, nil
}

// SessionsOf lists the records of a corpus, or of one transcript file when
// transcript is not empty.
func (s *Store) SessionsOf(ctx context.Context, corpus, transcript string) ([]cairn.SessionRecord, error) {
	q, args := `SELECT `+sessionCols+` FROM sessions WHERE corpus=?`, []any{corpus}
	if transcript != "" {
		q += ` AND transcript=?`
		args = append(args, transcript)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY path`, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []cairn.SessionRecord
	for rows.Next() {
		r, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// FilterSessions returns the projection paths of the corpora's sessions that
// match f, sorted.
func (s *Store) FilterSessions(ctx context.Context, corpora []string, f cairn.SessionFilter) ([]string, error) {
	var where []string
	var args []any
	if len(corpora) > 0 {
		where = append(where, "corpus IN ("+strings.TrimSuffix(strings.Repeat("?,", len(corpora)), ",")+")")
		for _, c := range corpora {
			args = append(args, c)
		}
	}
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	// started_at 0 is a session without a start: it matches no time bound.
	if !f.StartedFrom.IsZero() {
		add("started_at != 0 AND started_at >= ?", f.StartedFrom.UnixMilli())
	}
	if !f.StartedTo.IsZero() {
		add("started_at != 0 AND started_at <= ?", f.StartedTo.UnixMilli())
	}
	if v := strings.TrimSpace(f.Provider); v != "" {
		add("lower(provider) = lower(?)", v)
	}
	if v := strings.TrimSpace(f.ChatType); v != "" {
		add("chat_type = ?", v)
	}
	if v := strings.TrimSpace(f.AccountID); v != "" {
		add("account_id = ?", v)
	}
	if v := strings.TrimSpace(f.ConversationID); v != "" {
		add("conversation_id = ?", v)
	}
	if v := strings.TrimSpace(f.Source); v != "" {
		add("source = ?", v)
	}
	if v := strings.TrimSpace(f.Cwd); v != "" {
		add("cwd = ?", v)
	}
	q := `SELECT path FROM sessions`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY path`, args...)
	if err != nil {
		return nil, fmt.Errorf("filter sessions: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("filter sessions: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// TranscriptStates returns what sync remembers of a corpus's transcript
// files, keyed by path.
func (s *Store) TranscriptStates(ctx context.Context, corpus string) (map[string]cairn.TranscriptState, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT corpus, source, path, size, mtime, hash, projector_version,
		checked_at, stats, error FROM transcript_files WHERE corpus=?`, corpus)
	if err != nil {
		return nil, fmt.Errorf("list transcripts: %w", err)
	}
	defer rows.Close()
	out := map[string]cairn.TranscriptState{}
	for rows.Next() {
		var t cairn.TranscriptState
		if err := rows.Scan(&t.Corpus, &t.Source, &t.Path, &t.Size, &t.ModTime, &t.Hash, &t.ProjectorVersion,
			&t.CheckedAt, &t.Stats, &t.Error); err != nil {
			return nil, fmt.Errorf("list transcripts: %w", err)
		}
		out[t.Path] = t
	}
	return out, rows.Err()
}

// PutTranscriptState records a transcript file's state.
func (s *Store) PutTranscriptState(ctx context.Context, t cairn.TranscriptState) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	_, err = w.ExecContext(ctx, `INSERT OR REPLACE INTO transcript_files(corpus, source, path, size, mtime, hash,
		projector_version, checked_at, stats, error) VALUES(?,?,?,?,?,?,?,?,?,?)`,
		t.Corpus, t.Source, t.Path, t.Size, t.ModTime, t.Hash, t.ProjectorVersion, t.CheckedAt, t.Stats, t.Error)
	if err != nil {
		return fmt.Errorf("record transcript %s: %w", t.Path, err)
	}
	return nil
}

// DeleteTranscriptState forgets a transcript file.
func (s *Store) DeleteTranscriptState(ctx context.Context, corpus, path string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, `DELETE FROM transcript_files WHERE corpus=? AND path=?`, corpus, path); err != nil {
		return fmt.Errorf("forget transcript %s: %w", path, err)
	}
	return nil
}
