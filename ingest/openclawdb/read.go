package openclawdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/klauspost/compress/zstd"
)

// errColdStorage fails a window whose events cold storage moved out of
// transcript_events (§3.7) into an archive Cairn could not read (cold.go),
// so that its earlier projection is kept.
var errColdStorage = errors.New("history is in a cold archive that could not be read")

// maxEventBytes bounds a compressed event's decoded size (the store's CHECK).
const maxEventBytes = 4 << 20

// required lists the tables and columns ReadDB reads; optional ones are read
// when the table exists, and a present optional table missing a column is
// refused too (an unknown major change, spec §3.3).
var (
	required = map[string][]string{
		"transcript_events": {"session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes", "created_at"},
		"session_windows":   {"session_id", "created_at", "started_at", "chat_type", "channel", "account_id", "primary_conversation_id", "display_name"},
		"conversations":     {"conversation_id", "channel", "peer_id", "native_channel_id", "native_direct_user_id", "label"},
	}
	optional = map[string][]string{
		"schema_meta":                      {"meta_key", "role", "agent_id"},
		"session_transcript_active_events": {"session_id", "active_position", "event_seq"},
		"session_transcript_cold_archives": {"session_id", "generation", "archive_name", "storage"},
	}
)

type reader struct {
	ctx     context.Context
	tx      *sql.Tx
	path    string
	has     map[string]bool // optional tables present
	coldHas map[string]bool // columns of session_transcript_cold_archives
	agentID string
}

func (r *reader) schemaErr(format string, args ...any) error {
	return &cairn.Error{Op: "read openclaw store", Path: r.path,
		Err:  fmt.Errorf("%w: %s: %w", errSchema, fmt.Sprintf(format, args...), cairn.ErrInvalid),
		Hint: "this OpenClaw version's store is not supported by this Cairn; upgrade Cairn"}
}

// checkSchema checks capability (tables and columns), not a version number.
func (r *reader) checkSchema() error {
	r.has = map[string]bool{}
	for _, set := range []struct {
		tables map[string][]string
		must   bool
	}{{required, true}, {optional, false}} {
		for table, cols := range set.tables {
			have, err := r.columns(table)
			if err != nil {
				return fmt.Errorf("read openclaw store %s schema: %w", r.path, err)
			}
			if len(have) == 0 && !set.must {
				continue
			}
			if len(have) == 0 {
				return r.schemaErr("missing table %s", table)
			}
			for _, c := range cols {
				if !have[c] {
					return r.schemaErr("table %s has no column %s", table, c)
				}
			}
			r.has[table] = true
		}
	}
	if r.has["session_transcript_cold_archives"] {
		cols, err := r.columns("session_transcript_cold_archives")
		if err != nil {
			return fmt.Errorf("read openclaw store %s schema: %w", r.path, err)
		}
		r.coldHas = cols
	}
	if r.has["schema_meta"] {
		var role, agent sql.NullString
		err := r.tx.QueryRowContext(r.ctx, `SELECT role, agent_id FROM schema_meta WHERE meta_key = 'primary'`).Scan(&role, &agent)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read openclaw store %s schema_meta: %w", r.path, err)
		}
		if role.Valid && role.String != "agent" {
			return r.schemaErr("schema_meta role is %q, not an agent store", role.String)
		}
		r.agentID = agent.String
	}
	return nil
}

func (r *reader) columns(table string) (map[string]bool, error) {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[name] = true
	}
	return cols, rows.Err()
}

// window is one session window row with its conversation (§3.6 mapping).
type window struct {
	id                                        string
	created, started                          sql.NullInt64
	chatType, provider, account, conversation sql.NullString
	label, title                              sql.NullString
}

const windowsQuery = `
SELECT w.session_id, w.created_at, w.started_at, w.chat_type,
       COALESCE(w.channel, c.channel), w.account_id,
       COALESCE(c.native_channel_id, c.native_direct_user_id, c.peer_id, w.primary_conversation_id),
       c.label, w.display_name
FROM session_windows w
LEFT JOIN conversations c ON c.conversation_id = w.primary_conversation_id
ORDER BY COALESCE(w.started_at, w.created_at), w.session_id`

func (r *reader) windows() ([]window, error) {
	rows, err := r.tx.QueryContext(r.ctx, windowsQuery)
	if err != nil {
		return nil, fmt.Errorf("read openclaw session windows %s: %w", r.path, err)
	}
	defer rows.Close()
	var out []window
	for rows.Next() {
		var w window
		if err := rows.Scan(&w.id, &w.created, &w.started, &w.chatType, &w.provider, &w.account,
			&w.conversation, &w.label, &w.title); err != nil {
			return nil, fmt.Errorf("read openclaw session windows %s: %w", r.path, err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

func (r *reader) readAll(agentID string) ([]cairn.Session, error) {
	wins, err := r.windows()
	if err != nil {
		return nil, err
	}
	var sessions []cairn.Session
	failed := &FailedSessions{Path: r.path}
	for _, w := range wins {
		s, ok, err := r.session(w, agentID)
		var ee *ingest.OpenClawEventError
		switch {
		case errors.As(err, &ee) || errors.Is(err, errColdStorage):
			failed.Sessions = append(failed.Sessions, SessionFailure{SessionID: w.id, Err: err})
		case err != nil:
			return nil, err
		case ok:
			sessions = append(sessions, s)
		}
	}
	if len(failed.Sessions) > 0 {
		return sessions, failed
	}
	return sessions, nil
}

// session reads one window's events, its cold archives' first (cold.go),
// and projects them. A window without events is left out (ok false); one
// whose cold archive cannot be read fails, so the engine keeps its
// projection.
func (r *reader) session(w window, agentID string) (cairn.Session, bool, error) {
	s := cairn.Session{
		Source: cairn.SourceOpenClaw, ID: w.id, AgentID: agentID,
		Provider: w.provider.String, ChatType: w.chatType.String, AccountID: w.account.String,
		ConversationID: w.conversation.String, Label: w.label.String, Title: w.title.String,
	}
	start := w.started
	if !start.Valid {
		start = w.created
	}
	if start.Valid {
		s.StartedAt, s.StartedAtRaw = time.UnixMilli(start.Int64).UTC(), strconv.FormatInt(start.Int64, 10)
	}
	events, err := r.events(w.id, &s.Stats)
	if err != nil {
		return s, false, err
	}
	cold, err := r.coldEvents(w.id, &s.Stats)
	if err != nil {
		return s, false, err
	}
	events = mergeCold(cold, events)
	if len(events) == 0 {
		return s, false, nil
	}
	var active []int64
	if len(cold) == 0 { // the materialized branch lists live rows only: with cold events, walk parentId
		if active, err = r.active(w.id); err != nil {
			return s, false, err
		}
	}
	s, err = ingest.OpenClawSession(s, events, active)
	return s, err == nil, err
}

func (r *reader) events(sessionID string, stats *cairn.ParseStats) ([]ingest.OpenClawEvent, error) {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT seq, event_json, event_zstd, event_utf8_bytes, created_at
FROM transcript_events WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read openclaw events %s: %w", r.path, err)
	}
	defer rows.Close()
	var out []ingest.OpenClawEvent
	for rows.Next() {
		var seq int64
		var text sql.NullString
		var blob []byte
		var size, created sql.NullInt64
		if err := rows.Scan(&seq, &text, &blob, &size, &created); err != nil {
			return nil, fmt.Errorf("read openclaw events %s: %w", r.path, err)
		}
		stats.Lines++
		data, err := eventBytes(text, blob, size)
		if err != nil {
			// like a malformed line in any transcript: skipped and
			// counted, the rest of the session is read
			stats.Skip("undecodable event")
			continue
		}
		ev := ingest.OpenClawEvent{Seq: seq, JSON: data}
		if created.Valid {
			ev.CreatedAt = time.UnixMilli(created.Int64).UTC()
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

// eventBytes returns a row's event JSON: event_json, else event_zstd
// decoded, whose length must equal event_utf8_bytes (spec §3.3).
func eventBytes(text sql.NullString, blob []byte, size sql.NullInt64) ([]byte, error) {
	switch {
	case text.Valid && blob != nil:
		return nil, errors.New("row has both event_json and event_zstd")
	case text.Valid:
		return []byte(text.String), nil
	case blob == nil:
		return nil, errors.New("row has neither event_json nor event_zstd")
	case !size.Valid || size.Int64 < 1 || size.Int64 > maxEventBytes:
		return nil, fmt.Errorf("compressed event: event_utf8_bytes %v out of range", size.Int64)
	}
	dec, err := decoder()
	if err != nil {
		return nil, err
	}
	data, err := dec.DecodeAll(blob, make([]byte, 0, size.Int64))
	if err != nil {
		return nil, fmt.Errorf("decode compressed event: %w", err)
	}
	if int64(len(data)) != size.Int64 {
		return nil, fmt.Errorf("compressed event: decoded length %d, event_utf8_bytes says %d", len(data), size.Int64)
	}
	return data, nil
}

// decoder is one shared zstd decoder (DecodeAll is safe for concurrent use).
var decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(2*maxEventBytes))
})

// active returns the materialized active branch (seqs in active_position
// order), or nil when the table is absent or has no rows for the session.
func (r *reader) active(sessionID string) ([]int64, error) {
	if !r.has["session_transcript_active_events"] {
		return nil, nil
	}
	rows, err := r.tx.QueryContext(r.ctx, `SELECT event_seq FROM session_transcript_active_events
WHERE session_id = ? ORDER BY active_position`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read openclaw active events %s: %w", r.path, err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, fmt.Errorf("read openclaw active events %s: %w", r.path, err)
		}
		seqs = append(seqs, seq)
	}
	return seqs, rows.Err()
}

func sortedPaths(p []string) []string {
	sort.Strings(p)
	return p
}
