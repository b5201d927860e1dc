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

// PutSession inserts or replaces a projected session's record.
func (s *Store) PutSession(ctx context.Context, r cairn.SessionRecord) error {
	i := r.Info
	started := int64(0) // no start time: 0, read back as none
	if !r.StartedAt.IsZero() {
		started = r.StartedAt.UnixMilli()
	}
	return s.write(ctx, "store session "+r.Path, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO sessions(agent, corpus, path, source, session_id, provider, chat_type, account_id,
			conversation_id, cwd, title, parent_id, started_at, started_raw, transcript, projection_hash, projector_version, spans)
			VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18)
			ON CONFLICT(agent, corpus, path) DO UPDATE SET source = excluded.source, session_id = excluded.session_id,
				provider = excluded.provider, chat_type = excluded.chat_type, account_id = excluded.account_id,
				conversation_id = excluded.conversation_id, cwd = excluded.cwd, title = excluded.title,
				parent_id = excluded.parent_id, started_at = excluded.started_at, started_raw = excluded.started_raw,
				transcript = excluded.transcript, projection_hash = excluded.projection_hash,
				projector_version = excluded.projector_version, spans = excluded.spans`,
			s.agent, r.Corpus, r.Path, i.Source, i.SessionID, i.Provider, i.ChatType, i.AccountID, i.ConversationID, i.Cwd,
			cleanText(i.Title), r.ParentID, started, r.StartedAtRaw, r.Transcript, r.ProjectionHash, r.ProjectorVersion, cleanText(r.Spans))
		return err
	})
}

// DeleteSession removes a session's record.
func (s *Store) DeleteSession(ctx context.Context, corpus, path string) error {
	return s.write(ctx, "delete session "+path, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM sessions WHERE agent = $1 AND corpus = $2 AND path = $3`, s.agent, corpus, path)
		return err
	})
}

const sessionCols = `corpus, path, source, session_id, provider, chat_type, account_id, conversation_id,
	cwd, title, parent_id, started_at, started_raw, transcript, projection_hash, projector_version, spans`

func scanSession(sc pgx.Row) (cairn.SessionRecord, error) {
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
	r, err := scanSession(s.pool.QueryRow(ctx, `SELECT `+sessionCols+` FROM sessions WHERE agent = $1 AND corpus = $2 AND path = $3`,
		s.agent, corpus, path))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, cairn.ErrNotFound
	}
	return r, classify("read session "+path, err)
}

// SessionsOf lists the records of a corpus, or of one transcript.
func (s *Store) SessionsOf(ctx context.Context, corpus, transcript string) ([]cairn.SessionRecord, error) {
	q, args := `SELECT `+sessionCols+` FROM sessions WHERE agent = $1 AND corpus = $2`, []any{s.agent, corpus}
	if transcript != "" {
		q += ` AND transcript = $3`
		args = append(args, transcript)
	}
	rows, err := s.pool.Query(ctx, q+` ORDER BY path COLLATE "C"`, args...)
	if err != nil {
		return nil, classify("list sessions", err)
	}
	defer rows.Close()
	var out []cairn.SessionRecord
	for rows.Next() {
		r, err := scanSession(rows)
		if err != nil {
			return nil, classify("list sessions", err)
		}
		out = append(out, r)
	}
	return out, classify("list sessions", rows.Err())
}

// FilterSessions returns the sorted projection paths of the corpora's
// sessions that match f.
func (s *Store) FilterSessions(ctx context.Context, corpora []string, f cairn.SessionFilter) ([]string, error) {
	args := []any{s.agent}
	where := []string{"agent = $1"}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
	}
	if len(corpora) > 0 {
		add("corpus = ANY(?)", corpora)
	}
	// started_at 0 is a session without a start: it matches no time bound.
	if !f.StartedFrom.IsZero() {
		add("started_at <> 0 AND started_at >= ?", f.StartedFrom.UnixMilli())
	}
	if !f.StartedTo.IsZero() {
		add("started_at <> 0 AND started_at <= ?", f.StartedTo.UnixMilli())
	}
	for _, c := range []struct{ cond, v string }{
		{"lower(provider) = lower(?)", f.Provider}, {"chat_type = ?", f.ChatType}, {"account_id = ?", f.AccountID},
		{"conversation_id = ?", f.ConversationID}, {"source = ?", f.Source}, {"cwd = ?", f.Cwd},
	} {
		if v := strings.TrimSpace(c.v); v != "" {
			add(c.cond, v)
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT path FROM sessions WHERE `+strings.Join(where, " AND ")+` ORDER BY path COLLATE "C"`, args...)
	if err != nil {
		return nil, classify("filter sessions", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if out == nil {
		out = []string{}
	}
	return out, classify("filter sessions", err)
}

// TranscriptStates returns what sync remembers of a corpus's transcripts.
func (s *Store) TranscriptStates(ctx context.Context, corpus string) (map[string]cairn.TranscriptState, error) {
	rows, err := s.pool.Query(ctx, `SELECT corpus, source, path, size, mtime, hash, projector_version, checked_at, stats, error
		FROM transcript_files WHERE agent = $1 AND corpus = $2`, s.agent, corpus)
	if err != nil {
		return nil, classify("list transcripts", err)
	}
	defer rows.Close()
	out := map[string]cairn.TranscriptState{}
	for rows.Next() {
		var t cairn.TranscriptState
		if err := rows.Scan(&t.Corpus, &t.Source, &t.Path, &t.Size, &t.ModTime, &t.Hash, &t.ProjectorVersion,
			&t.CheckedAt, &t.Stats, &t.Error); err != nil {
			return nil, classify("list transcripts", err)
		}
		out[t.Path] = t
	}
	return out, classify("list transcripts", rows.Err())
}

// PutTranscriptState records a transcript file's state.
func (s *Store) PutTranscriptState(ctx context.Context, t cairn.TranscriptState) error {
	return s.write(ctx, "record transcript "+t.Path, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO transcript_files(agent, corpus, source, path, size, mtime, hash, projector_version,
			checked_at, stats, error) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)
			ON CONFLICT(agent, corpus, path) DO UPDATE SET source = excluded.source, size = excluded.size, mtime = excluded.mtime,
				hash = excluded.hash, projector_version = excluded.projector_version, checked_at = excluded.checked_at,
				stats = excluded.stats, error = excluded.error`,
			s.agent, t.Corpus, t.Source, t.Path, t.Size, t.ModTime, t.Hash, t.ProjectorVersion, t.CheckedAt, cleanText(t.Stats), cleanText(t.Error))
		return err
	})
}

// DeleteTranscriptState forgets a transcript file.
func (s *Store) DeleteTranscriptState(ctx context.Context, corpus, path string) error {
	return s.write(ctx, "forget transcript "+path, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM transcript_files WHERE agent = $1 AND corpus = $2 AND path = $3`, s.agent, corpus, path)
		return err
	})
}

// RenameTranscript moves a transcript's state and its sessions' transcript
// column from one path to another in one transaction; a state stored under
// the new path is replaced.
func (s *Store) RenameTranscript(ctx context.Context, corpus, from, to string) error {
	return s.write(ctx, "rename transcript", func(tx pgx.Tx) error {
		if from == to {
			return nil
		}
		for _, q := range []string{
			`DELETE FROM transcript_files WHERE agent = $1 AND corpus = $2 AND path = $4 AND EXISTS
				(SELECT 1 FROM transcript_files o WHERE o.agent = $1 AND o.corpus = $2 AND o.path = $3)`,
			`UPDATE transcript_files SET path = $4, error = replace(error, $3, $4), stats = replace(stats, $3, $4)
				WHERE agent = $1 AND corpus = $2 AND path = $3`,
			`UPDATE sessions SET transcript = $4 WHERE agent = $1 AND corpus = $2 AND transcript = $3`,
		} {
			if _, err := tx.Exec(ctx, q, s.agent, corpus, from, to); err != nil {
				return err
			}
		}
		return nil
	})
}

// ProjectionKey returns the projection settings of a sessions corpus.
func (s *Store) ProjectionKey(ctx context.Context, corpus string) (string, error) {
	v, _, err := getMeta(ctx, s.pool, s.agent, "projection:"+corpus)
	return v, classify("read projection settings of "+corpus, err)
}

// SetProjectionKey records a sessions corpus's projection settings.
func (s *Store) SetProjectionKey(ctx context.Context, corpus, key string) error {
	return s.write(ctx, "write projection settings of "+corpus, func(tx pgx.Tx) error {
		return setMeta(ctx, tx, s.agent, "projection:"+corpus, key)
	})
}

// RedactState returns the redaction state recorded for a corpus.
func (s *Store) RedactState(ctx context.Context, corpus string) (string, error) {
	v, _, err := getMeta(ctx, s.pool, s.agent, "redact:"+corpus)
	return v, classify("read redaction state of "+corpus, err)
}

// SetRedactState records a corpus's redaction state.
func (s *Store) SetRedactState(ctx context.Context, corpus, state string) error {
	return s.write(ctx, "write redaction state of "+corpus, func(tx pgx.Tx) error {
		return setMeta(ctx, tx, s.agent, "redact:"+corpus, state)
	})
}

// MarkStale makes the next sync read a document's file again (mtime -1,
// which no file has).
func (s *Store) MarkStale(ctx context.Context, corpus, path string) error {
	return s.write(ctx, "mark "+path+" stale", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE documents SET mtime = -1 WHERE agent = $1 AND corpus = $2 AND path = $3`, s.agent, corpus, path)
		return err
	})
}
