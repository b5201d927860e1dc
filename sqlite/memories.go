package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// memoriesSchema is the migration that adds consolidated memories: one row
// per memory (lists and provenance as JSON), the records each
// consolidation pass has done per thread (the checkpoint), and one row per
// committed window.
const memoriesSchema = `CREATE TABLE memories(
		id TEXT PRIMARY KEY,
		kind TEXT NOT NULL,
		title TEXT NOT NULL DEFAULT '',
		summary TEXT NOT NULL DEFAULT '',
		body TEXT NOT NULL DEFAULT '',
		about TEXT NOT NULL DEFAULT '',
		corpus TEXT NOT NULL,
		thread TEXT NOT NULL,
		told_at INTEGER NOT NULL DEFAULT 0,
		event_date TEXT NOT NULL DEFAULT '',
		start_date TEXT NOT NULL DEFAULT '',
		end_date TEXT NOT NULL DEFAULT '',
		status TEXT NOT NULL DEFAULT 'active',
		superseded_by TEXT NOT NULL DEFAULT '',
		data TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE INDEX memories_kind ON memories(kind, status, told_at);
	CREATE INDEX memories_thread ON memories(corpus, thread);
	CREATE TABLE consolidated_records(
		corpus TEXT NOT NULL,
		thread TEXT NOT NULL,
		pass TEXT NOT NULL,
		uid TEXT NOT NULL,
		window_id INTEGER NOT NULL,
		PRIMARY KEY(corpus, thread, pass, uid)
	);
	CREATE TABLE consolidation_windows(
		id INTEGER PRIMARY KEY,
		corpus TEXT NOT NULL,
		thread TEXT NOT NULL,
		pass TEXT NOT NULL,
		records INTEGER NOT NULL,
		memories INTEGER NOT NULL,
		summary TEXT NOT NULL DEFAULT '',
		tokens_in INTEGER NOT NULL DEFAULT 0,
		tokens_out INTEGER NOT NULL DEFAULT 0,
		created_at INTEGER NOT NULL
	);`

// recordHashes is the migration that lets a record be read again when its
// text changes: the checkpoint keeps each record's content hash, and each
// memory the window that wrote it (filled for existing memories from the
// checkpoint of their first source record), so reading a window again
// replaces exactly its memories.
const recordHashes = `ALTER TABLE consolidated_records ADD COLUMN hash TEXT NOT NULL DEFAULT '';
	ALTER TABLE memories ADD COLUMN window_id INTEGER NOT NULL DEFAULT 0;
	UPDATE memories SET window_id = COALESCE(
		(SELECT cr.window_id FROM consolidated_records cr WHERE cr.corpus=memories.corpus AND cr.thread=memories.thread
			AND cr.pass=(CASE WHEN memories.kind='observation' THEN 'observations' ELSE 'main' END)
			AND cr.uid=json_extract(memories.data, '$.provenance[0].record')),
		(SELECT cr.window_id FROM consolidated_records cr WHERE cr.corpus=memories.corpus AND cr.thread=memories.thread
			AND cr.pass='main' AND cr.uid=json_extract(memories.data, '$.provenance[0].record')),
		0);
	CREATE INDEX memories_window ON memories(window_id);
	CREATE INDEX consolidated_records_window ON consolidated_records(window_id);`

var _ cairn.MemoryStore = (*Store)(nil)

// CommitWindow writes a window's memories and marks its records done in one
// transaction: a window counts as consolidated only once its memories are
// stored. A memory whose id exists is replaced, keeping its created time,
// so consolidating a window twice adds nothing. When some of the window's
// records were done before in this pass (a record changed, so its window
// is read again), the earlier windows are replaced: their memories that
// this window does not write again are removed and returned, and their
// records that this window does not read become pending.
// A write the durable store refuses names it (Diagnose).
func (s *Store) CommitWindow(ctx context.Context, w cairn.WindowCommit) (cairn.Committed, error) {
	c, err := s.commitWindow(ctx, w)
	return c, s.diagnose("write memories", err)
}

func (s *Store) commitWindow(ctx context.Context, w cairn.WindowCommit) (cairn.Committed, error) {
	var c cairn.Committed
	if len(w.Hashes) != 0 && len(w.Hashes) != len(w.Records) {
		return c, fmt.Errorf("commit window of %s: %d hashes for %d records", w.Thread, len(w.Hashes), len(w.Records))
	}
	db, err := s.writer()
	if err != nil {
		return c, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return c, fmt.Errorf("begin window commit: %w", err)
	}
	defer tx.Rollback()
	now := time.Now()
	res, err := tx.ExecContext(ctx, `INSERT INTO consolidation_windows(corpus, thread, pass, records, memories, summary,
		tokens_in, tokens_out, created_at) VALUES(?,?,?,?,?,?,?,?,?)`, w.Corpus, w.Thread, w.Pass, len(w.Records),
		len(w.Memories), w.Summary, w.TokensIn, w.TokensOut, now.UnixMilli())
	if err != nil {
		return c, fmt.Errorf("record window of %s: %w", w.Thread, err)
	}
	win, _ := res.LastInsertId()
	if c, err = replaceWindows(ctx, tx, w, now); err != nil {
		return c, err
	}
	for i := range w.Memories {
		if err := putMemory(ctx, tx, &w.Memories[i], win, now); err != nil {
			return c, err
		}
	}
	for i, uid := range w.Records {
		hash := ""
		if len(w.Hashes) > 0 {
			hash = w.Hashes[i]
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO consolidated_records(corpus, thread, pass, uid, window_id, hash)
			VALUES(?,?,?,?,?,?)`, w.Corpus, w.Thread, w.Pass, uid, win, hash); err != nil {
			return c, fmt.Errorf("mark record %s done: %w", uid, err)
		}
	}
	if err := clearFailures(ctx, tx, w); err != nil {
		return c, err
	}
	if err := tx.Commit(); err != nil {
		return c, fmt.Errorf("commit window of %s: %w", w.Thread, err)
	}
	s.wrote.Store(true)
	return c, nil
}

// replaceWindows undoes the earlier windows of this pass that read any of
// w's records, and those w.Replaces names: it deletes their memories that
// w does not write again and their checkpoint rows. It also undoes the
// sleep decisions involving any memory removed or about to be written
// again.
func replaceWindows(ctx context.Context, tx *sql.Tx, w cairn.WindowCommit, now time.Time) (cairn.Committed, error) {
	var c cairn.Committed
	old := map[int64]bool{}
	for _, win := range w.Replaces {
		old[win] = true
	}
	for _, uid := range w.Records {
		var win int64
		err := tx.QueryRowContext(ctx, `SELECT window_id FROM consolidated_records WHERE corpus=? AND thread=? AND pass=? AND uid=?`,
			w.Corpus, w.Thread, w.Pass, uid).Scan(&win)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return c, fmt.Errorf("read checkpoint of %s: %w", uid, err)
		default:
			old[win] = true
		}
	}
	keep := map[string]bool{}
	for _, m := range w.Memories {
		keep[m.ID] = true
	}
	var gone []string
	for _, win := range slices.Sorted(maps.Keys(old)) {
		ms, err := queryMemories(ctx, tx, `SELECT data FROM memories WHERE window_id=? ORDER BY id`, win)
		if err != nil {
			return c, err
		}
		for _, m := range ms {
			if !keep[m.ID] {
				c.Removed = append(c.Removed, m)
				gone = append(gone, m.ID)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM consolidated_records WHERE corpus=? AND thread=? AND pass=? AND window_id=?`,
			w.Corpus, w.Thread, w.Pass, win); err != nil {
			return c, fmt.Errorf("reopen window %d of %s: %w", win, w.Thread, err)
		}
	}
	for _, id := range append(slices.Sorted(maps.Keys(keep)), gone...) {
		touched, err := release(ctx, tx, id, now)
		if err != nil {
			return c, err
		}
		for _, t := range touched {
			if !keep[t] && !slices.Contains(gone, t) && !slices.Contains(c.Touched, t) {
				c.Touched = append(c.Touched, t)
			}
		}
	}
	for _, id := range gone {
		if err := deleteMemory(ctx, tx, id); err != nil {
			return c, err
		}
	}
	return c, nil
}

// deleteMemory removes a memory.
func deleteMemory(ctx context.Context, tx *sql.Tx, id string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id=?`, id); err != nil {
		return fmt.Errorf("remove memory %s: %w", id, err)
	}
	return nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryMemories decodes the data column of a query's rows.
func queryMemories(ctx context.Context, q querier, query string, args ...any) ([]cairn.Memory, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	defer rows.Close()
	out := []cairn.Memory{}
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("list memories: %w", err)
		}
		var m cairn.Memory
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return nil, fmt.Errorf("decode memory: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func putMemory(ctx context.Context, tx *sql.Tx, m *cairn.Memory, window int64, now time.Time) error {
	var created int64
	switch err := tx.QueryRowContext(ctx, `SELECT created_at FROM memories WHERE id=?`, m.ID).Scan(&created); {
	case errors.Is(err, sql.ErrNoRows):
		created = now.UnixMilli()
	case err != nil:
		return fmt.Errorf("look up memory %s: %w", m.ID, err)
	}
	m.CreatedAt = time.UnixMilli(created).UTC()
	if m.Status == "" {
		m.Status = cairn.StatusActive
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode memory %s: %w", m.ID, err)
	}
	corpus, thread, _ := strings.Cut(m.Thread, "/")
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO memories(id, kind, title, summary, body, about, corpus, thread,
		told_at, event_date, start_date, end_date, status, superseded_by, data, created_at, updated_at, window_id)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, m.ID, m.Kind, m.Title, m.Summary, m.Body, m.About, corpus, thread,
		unixMilli(m.ToldAt), m.EventDate, m.StartDate, m.EndDate, m.Status, m.SupersededBy, string(data), created,
		now.UnixMilli(), window)
	if err != nil {
		return fmt.Errorf("store memory %s: %w", m.ID, err)
	}
	return nil
}

func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// DoneRecords returns the records of a thread that a pass has consolidated,
// with the hash each had when it was read and the window that read it.
func (s *Store) DoneRecords(ctx context.Context, corpus, thread, pass string) (map[string]cairn.DoneRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT uid, hash, window_id FROM consolidated_records WHERE corpus=? AND thread=? AND pass=?`,
		corpus, thread, pass)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint of %s: %w", thread, err)
	}
	defer rows.Close()
	out := map[string]cairn.DoneRecord{}
	for rows.Next() {
		var uid string
		var d cairn.DoneRecord
		if err := rows.Scan(&uid, &d.Hash, &d.Window); err != nil {
			return nil, fmt.Errorf("read checkpoint of %s: %w", thread, err)
		}
		out[uid] = d
	}
	return out, rows.Err()
}

// Memories lists memories matching f, newest told first (then by id).
func (s *Store) Memories(ctx context.Context, f cairn.MemoryFilter) ([]cairn.Memory, error) {
	q, args, err := memoriesQuery("data", f)
	if err != nil || q == "" {
		return nil, err
	}
	return queryMemories(ctx, s.r, q, args...)
}

// MemoryRefs lists the id and kind of the memories matching f, in the
// order of Memories. It decodes no JSON: at 10,000 memories a filtered
// memory search spent half its time decoding the memories it needed
// only the paths of (TestRecallLatency).
func (s *Store) MemoryRefs(ctx context.Context, f cairn.MemoryFilter) ([]cairn.MemoryRef, error) {
	q, args, err := memoriesQuery("id, kind", f)
	if err != nil || q == "" {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	defer rows.Close()
	out := []cairn.MemoryRef{}
	for rows.Next() {
		var r cairn.MemoryRef
		if err := rows.Scan(&r.ID, &r.Kind); err != nil {
			return nil, fmt.Errorf("list memories: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// MemoriesByID reads the memories with these ids in one query.
func (s *Store) MemoriesByID(ctx context.Context, ids []string) (map[string]cairn.Memory, error) {
	out := make(map[string]cairn.Memory, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	ms, err := queryMemories(ctx, s.r, `SELECT data FROM memories WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// memoriesQuery is the statement listing cols of the memories f keeps,
// newest told first; "" when f keeps none.
func memoriesQuery(cols string, f cairn.MemoryFilter) (string, []any, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if f.Kind != "" {
		add("kind = ?", f.Kind)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.Thread != "" {
		corpus, thread, _ := strings.Cut(f.Thread, "/")
		add("corpus = ?", corpus)
		add("thread = ?", thread)
	}
	if len(f.Kinds) > 0 {
		list, _ := json.Marshal(f.Kinds)
		add("kind IN (SELECT value FROM json_each(?))", string(list))
	}
	if f.Scope != "" {
		add("json_extract(data, '$.scope') = ?", f.Scope)
	}
	if f.Threads != nil {
		if len(f.Threads) == 0 {
			return "", nil, nil
		}
		list, _ := json.Marshal(f.Threads)
		add("corpus || '/' || thread IN (SELECT value FROM json_each(?))", string(list))
	}
	if !f.ToldFrom.IsZero() {
		add("told_at >= ?", f.ToldFrom.UnixMilli())
	}
	if !f.ToldTo.IsZero() {
		add("told_at <= ?", f.ToldTo.UnixMilli())
	}
	if f.EventFrom != "" || f.EventTo != "" {
		// Bounds as day strings (cairn.DateBounds): an open end is a
		// string before or after every date.
		lo, hi := "", "9999-99-99"
		var ok bool
		if f.EventFrom != "" {
			if lo, _, ok = cairn.DateBounds(f.EventFrom); !ok {
				return "", nil, cairn.Invalidf("event from %q: allowed YYYY, YYYY-MM or YYYY-MM-DD", f.EventFrom)
			}
		}
		if f.EventTo != "" {
			if _, hi, ok = cairn.DateBounds(f.EventTo); !ok {
				return "", nil, cairn.Invalidf("event to %q: allowed YYYY, YYYY-MM or YYYY-MM-DD", f.EventTo)
			}
		}
		// A memory's event date covers its first to last day at its
		// precision; its span runs from its start's first day (open
		// without a start) to its end's last day (open without an end).
		where = append(where, `((event_date != '' AND `+firstDay("event_date")+` <= ? AND `+lastDay("event_date")+` >= ?)
			OR ((start_date != '' OR end_date != '') AND (start_date = '' OR `+firstDay("start_date")+` <= ?)
				AND (end_date = '' OR `+lastDay("end_date")+` >= ?)))`)
		args = append(args, hi, lo, hi, lo)
	}
	q := `SELECT ` + cols + ` FROM memories`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY told_at DESC, id`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return q, args, nil
}

// firstDay and lastDay are cairn.DateBounds in SQL, for a column holding
// YYYY, YYYY-MM or YYYY-MM-DD.
func firstDay(col string) string {
	return `(CASE length(` + col + `) WHEN 4 THEN ` + col + ` || '-01-01' WHEN 7 THEN ` + col + ` || '-01' ELSE ` + col + ` END)`
}

func lastDay(col string) string {
	return `(CASE length(` + col + `) WHEN 4 THEN ` + col + ` || '-12-31' WHEN 7 THEN ` + col + ` || '-31' ELSE ` + col + ` END)`
}

// Memory returns one memory or cairn.ErrNotFound.
func (s *Store) Memory(ctx context.Context, id string) (cairn.Memory, error) {
	var m cairn.Memory
	var data string
	err := s.r.QueryRowContext(ctx, `SELECT data FROM memories WHERE id=?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return m, cairn.ErrNotFound
	}
	if err != nil {
		return m, fmt.Errorf("read memory %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return m, fmt.Errorf("decode memory %s: %w", id, err)
	}
	return m, nil
}

// KnownNames returns up to limit distinct names that observations of other
// threads are about, most frequent first.
func (s *Store) KnownNames(ctx context.Context, excludeThread string, limit int) ([]string, error) {
	corpus, thread, _ := strings.Cut(excludeThread, "/")
	rows, err := s.r.QueryContext(ctx, `SELECT about FROM memories WHERE kind=? AND about != ''
		AND NOT (corpus=? AND thread=?) GROUP BY about ORDER BY count(*) DESC, about LIMIT ?`,
		cairn.MemoryObservation, corpus, thread, limit)
	if err != nil {
		return nil, fmt.Errorf("list known names: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list known names: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// HasMemories reports whether any memory is stored.
func (s *Store) HasMemories(ctx context.Context) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM memories LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up memories: %w", err)
	}
	return true, nil
}
