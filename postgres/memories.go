package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// CommitWindow writes a window's memories and marks its records done in
// one transaction, replacing the earlier windows that read any of its
// records (see cairn.MemoryStore; the same rules as package sqlite).
func (s *Store) CommitWindow(ctx context.Context, w cairn.WindowCommit) (cairn.Committed, error) {
	var c cairn.Committed
	if len(w.Hashes) != 0 && len(w.Hashes) != len(w.Records) {
		return c, fmt.Errorf("commit window of %s: %d hashes for %d records", w.Thread, len(w.Hashes), len(w.Records))
	}
	err := s.write(ctx, "commit window of "+w.Thread, func(tx pgx.Tx) error {
		c = cairn.Committed{}
		now := time.Now()
		var win int64
		if err := tx.QueryRow(ctx, `INSERT INTO consolidation_windows(agent, corpus, thread, pass, records, memories, summary,
			tokens_in, tokens_out, created_at) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING id`, s.agent, w.Corpus, w.Thread, w.Pass,
			len(w.Records), len(w.Memories), cleanText(w.Summary), w.TokensIn, w.TokensOut, now.UnixMilli()).Scan(&win); err != nil {
			return fmt.Errorf("record window of %s: %w", w.Thread, err)
		}
		var err error
		if c, err = s.replaceWindows(ctx, tx, w, now); err != nil {
			return err
		}
		for i := range w.Memories {
			if err := s.putMemory(ctx, tx, &w.Memories[i], win, now); err != nil {
				return err
			}
		}
		for i, uid := range w.Records {
			hash := ""
			if len(w.Hashes) > 0 {
				hash = w.Hashes[i]
			}
			if _, err := tx.Exec(ctx, `INSERT INTO consolidated_records(agent, corpus, thread, pass, uid, window_id, hash)
				VALUES($1,$2,$3,$4,$5,$6,$7) ON CONFLICT(agent, corpus, thread, pass, uid) DO UPDATE SET
				window_id = excluded.window_id, hash = excluded.hash`, s.agent, w.Corpus, w.Thread, w.Pass, uid, win, hash); err != nil {
				return fmt.Errorf("mark record %s done: %w", uid, err)
			}
		}
		if len(w.Records) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM consolidation_failures WHERE agent = $1 AND corpus = $2 AND thread = $3 AND pass = $4
				AND uid = ANY($5)`, s.agent, w.Corpus, w.Thread, w.Pass, w.Records); err != nil {
				return fmt.Errorf("clear failures of %s: %w", w.Thread, err)
			}
		}
		return addMeta(ctx, tx, s.agent, memoriesStampKey, 1)
	})
	return c, err
}

// replaceWindows undoes the earlier windows of the pass that read any of
// w's records, and those w.Replaces names.
func (s *Store) replaceWindows(ctx context.Context, tx pgx.Tx, w cairn.WindowCommit, now time.Time) (cairn.Committed, error) {
	var c cairn.Committed
	old := map[int64]bool{}
	for _, win := range w.Replaces {
		old[win] = true
	}
	if len(w.Records) > 0 {
		rows, err := tx.Query(ctx, `SELECT window_id FROM consolidated_records WHERE agent = $1 AND corpus = $2 AND thread = $3
			AND pass = $4 AND uid = ANY($5)`, s.agent, w.Corpus, w.Thread, w.Pass, w.Records)
		if err != nil {
			return c, fmt.Errorf("read checkpoint of %s: %w", w.Thread, err)
		}
		wins, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return c, fmt.Errorf("read checkpoint of %s: %w", w.Thread, err)
		}
		for _, win := range wins {
			old[win] = true
		}
	}
	keep := map[string]bool{}
	for _, m := range w.Memories {
		keep[m.ID] = true
	}
	var gone []string
	for _, win := range slices.Sorted(maps.Keys(old)) {
		ms, err := s.queryMemories(ctx, tx, `SELECT data FROM memories WHERE agent = $1 AND window_id = $2 ORDER BY id COLLATE "C"`, win)
		if err != nil {
			return c, err
		}
		for _, m := range ms {
			if !keep[m.ID] {
				c.Removed = append(c.Removed, m)
				gone = append(gone, m.ID)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM consolidated_records WHERE agent = $1 AND corpus = $2 AND thread = $3 AND pass = $4
			AND window_id = $5`, s.agent, w.Corpus, w.Thread, w.Pass, win); err != nil {
			return c, fmt.Errorf("reopen window %d of %s: %w", win, w.Thread, err)
		}
	}
	for _, id := range append(slices.Sorted(maps.Keys(keep)), gone...) {
		touched, err := s.release(ctx, tx, id, now)
		if err != nil {
			return c, err
		}
		for _, t := range touched {
			if !keep[t] && !slices.Contains(gone, t) && !slices.Contains(c.Touched, t) {
				c.Touched = append(c.Touched, t)
			}
		}
	}
	if len(gone) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM memories WHERE agent = $1 AND id = ANY($2)`, s.agent, gone); err != nil {
			return c, fmt.Errorf("remove memories: %w", err)
		}
	}
	return c, nil
}

// queryMemories decodes the data column of a query's rows; the query's
// first parameter is the agent.
func (s *Store) queryMemories(ctx context.Context, q querier, query string, args ...any) ([]cairn.Memory, error) {
	rows, err := q.Query(ctx, query, append([]any{s.agent}, args...)...)
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

func (s *Store) putMemory(ctx context.Context, tx pgx.Tx, m *cairn.Memory, window int64, now time.Time) error {
	var created int64
	switch err := tx.QueryRow(ctx, `SELECT created_at FROM memories WHERE agent = $1 AND id = $2`, s.agent, m.ID).Scan(&created); {
	case errors.Is(err, pgx.ErrNoRows):
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
	_, err = tx.Exec(ctx, `INSERT INTO memories(agent, id, kind, title, summary, body, about, corpus, thread, told_at, event_date,
		start_date, end_date, status, superseded_by, data, created_at, updated_at, window_id)
		VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)
		ON CONFLICT(agent, id) DO UPDATE SET kind = excluded.kind, title = excluded.title, summary = excluded.summary,
			body = excluded.body, about = excluded.about, corpus = excluded.corpus, thread = excluded.thread,
			told_at = excluded.told_at, event_date = excluded.event_date, start_date = excluded.start_date,
			end_date = excluded.end_date, status = excluded.status, superseded_by = excluded.superseded_by,
			data = excluded.data, created_at = excluded.created_at, updated_at = excluded.updated_at, window_id = excluded.window_id`,
		s.agent, m.ID, m.Kind, cleanText(m.Title), cleanText(m.Summary), cleanText(m.Body), cleanText(m.About), corpus, thread,
		unixMilli(m.ToldAt), m.EventDate, m.StartDate, m.EndDate, m.Status, m.SupersededBy, string(data), created, now.UnixMilli(), window)
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

// DoneRecords returns a thread's checkpoint in a pass.
func (s *Store) DoneRecords(ctx context.Context, corpus, thread, pass string) (map[string]cairn.DoneRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT uid, hash, window_id FROM consolidated_records WHERE agent = $1 AND corpus = $2
		AND thread = $3 AND pass = $4`, s.agent, corpus, thread, pass)
	if err != nil {
		return nil, classify("read checkpoint of "+thread, err)
	}
	defer rows.Close()
	out := map[string]cairn.DoneRecord{}
	for rows.Next() {
		var uid string
		var d cairn.DoneRecord
		if err := rows.Scan(&uid, &d.Hash, &d.Window); err != nil {
			return nil, classify("read checkpoint of "+thread, err)
		}
		out[uid] = d
	}
	return out, classify("read checkpoint of "+thread, rows.Err())
}

// Memories lists memories matching f, newest told first, then by id.
func (s *Store) Memories(ctx context.Context, f cairn.MemoryFilter) ([]cairn.Memory, error) {
	q, args, none, err := memoryQuery("data", f)
	if err != nil || none {
		return nil, err
	}
	ms, err := s.queryMemories(ctx, s.pool, q, args...)
	return ms, classify("list memories", err)
}

// MemoryRefs lists the id and kind of what Memories(f) returns, in order.
func (s *Store) MemoryRefs(ctx context.Context, f cairn.MemoryFilter) ([]cairn.MemoryRef, error) {
	q, args, none, err := memoryQuery("id, kind", f)
	if err != nil || none {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, append([]any{s.agent}, args...)...)
	if err != nil {
		return nil, classify("list memories", err)
	}
	defer rows.Close()
	var out []cairn.MemoryRef
	for rows.Next() {
		var r cairn.MemoryRef
		if err := rows.Scan(&r.ID, &r.Kind); err != nil {
			return nil, classify("list memories", err)
		}
		out = append(out, r)
	}
	return out, classify("list memories", rows.Err())
}

// MemoriesByID returns the memories with these ids, by id.
func (s *Store) MemoriesByID(ctx context.Context, ids []string) (map[string]cairn.Memory, error) {
	out := map[string]cairn.Memory{}
	if len(ids) == 0 {
		return out, nil
	}
	ms, err := s.queryMemories(ctx, s.pool, `SELECT data FROM memories WHERE agent = $1 AND id = ANY($2)`, ids)
	if err != nil {
		return nil, classify("read memories", err)
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// memoryQuery is the statement selecting cols of the memories f keeps
// (its parameters after the agent, $1); none: f keeps nothing.
func memoryQuery(cols string, f cairn.MemoryFilter) (q string, args []any, none bool, err error) {
	var where []string
	add := func(cond string, vs ...any) {
		for _, v := range vs {
			args = append(args, v)
			cond = strings.Replace(cond, "?", fmt.Sprintf("$%d", len(args)+1), 1)
		}
		where = append(where, cond)
	}
	if f.Kind != "" {
		add("kind = ?", f.Kind)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.Thread != "" {
		corpus, thread, _ := strings.Cut(f.Thread, "/")
		add("corpus = ? AND thread = ?", corpus, thread)
	}
	if len(f.Kinds) > 0 {
		add("kind = ANY(?)", f.Kinds)
	}
	if f.Scope != "" {
		add("(data::jsonb)->>'scope' = ?", f.Scope)
	}
	if f.Threads != nil {
		if len(f.Threads) == 0 {
			return "", nil, true, nil
		}
		add("corpus || '/' || thread = ANY(?)", f.Threads)
	}
	if !f.ToldFrom.IsZero() {
		add("told_at >= ?", f.ToldFrom.UnixMilli())
	}
	if !f.ToldTo.IsZero() {
		add("told_at <= ?", f.ToldTo.UnixMilli())
	}
	if f.EventFrom != "" || f.EventTo != "" {
		lo, hi := "", "9999-99-99"
		var ok bool
		if f.EventFrom != "" {
			if lo, _, ok = cairn.DateBounds(f.EventFrom); !ok {
				return "", nil, false, cairn.Invalidf("event from %q: allowed YYYY, YYYY-MM or YYYY-MM-DD", f.EventFrom)
			}
		}
		if f.EventTo != "" {
			if _, hi, ok = cairn.DateBounds(f.EventTo); !ok {
				return "", nil, false, cairn.Invalidf("event to %q: allowed YYYY, YYYY-MM or YYYY-MM-DD", f.EventTo)
			}
		}
		add(`((event_date <> '' AND `+firstDay("event_date")+` <= ? AND `+lastDay("event_date")+` >= ?)
			OR ((start_date <> '' OR end_date <> '') AND (start_date = '' OR `+firstDay("start_date")+` <= ?)
				AND (end_date = '' OR `+lastDay("end_date")+` >= ?)))`, hi, lo, hi, lo)
	}
	q = `SELECT ` + cols + ` FROM memories WHERE agent = $1`
	for _, w := range where {
		q += " AND " + w
	}
	q += ` ORDER BY told_at DESC, id COLLATE "C"`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return q, args, false, nil
}

// firstDay and lastDay are cairn.DateBounds in SQL, for a column holding
// YYYY, YYYY-MM or YYYY-MM-DD; comparisons use the "C" collation, the
// byte order the bounds assume.
func firstDay(col string) string {
	return `(CASE length(` + col + `) WHEN 4 THEN ` + col + ` || '-01-01' WHEN 7 THEN ` + col + ` || '-01' ELSE ` + col + ` END) COLLATE "C"`
}

func lastDay(col string) string {
	return `(CASE length(` + col + `) WHEN 4 THEN ` + col + ` || '-12-31' WHEN 7 THEN ` + col + ` || '-31' ELSE ` + col + ` END) COLLATE "C"`
}

// Memory returns one memory or cairn.ErrNotFound.
func (s *Store) Memory(ctx context.Context, id string) (cairn.Memory, error) {
	ms, err := s.queryMemories(ctx, s.pool, `SELECT data FROM memories WHERE agent = $1 AND id = $2`, id)
	if err != nil {
		return cairn.Memory{}, classify("read memory "+id, err)
	}
	if len(ms) == 0 {
		return cairn.Memory{}, cairn.ErrNotFound
	}
	return ms[0], nil
}

// KnownNames returns up to limit names other threads' observations are
// about, most frequent first.
func (s *Store) KnownNames(ctx context.Context, excludeThread string, limit int) ([]string, error) {
	corpus, thread, _ := strings.Cut(excludeThread, "/")
	rows, err := s.pool.Query(ctx, `SELECT about FROM memories WHERE agent = $1 AND kind = $2 AND about <> ''
		AND NOT (corpus = $3 AND thread = $4) GROUP BY about ORDER BY count(*) DESC, about COLLATE "C" LIMIT $5`,
		s.agent, cairn.MemoryObservation, corpus, thread, limit)
	if err != nil {
		return nil, classify("list known names", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, classify("list known names", err)
}

// HasMemories reports whether any memory is stored.
func (s *Store) HasMemories(ctx context.Context) (bool, error) {
	var ok bool
	err := s.readPool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE agent = $1)`, s.agent).Scan(&ok)
	return ok, classify("look up memories", err)
}

// RecordFailure counts one more failed run for each of a window's records
// and returns the window's tries.
func (s *Store) RecordFailure(ctx context.Context, f cairn.FailureCommit) (int, error) {
	if len(f.Hashes) != 0 && len(f.Hashes) != len(f.Records) {
		return 0, fmt.Errorf("record failure of %s: %d hashes for %d records", f.Thread, len(f.Hashes), len(f.Records))
	}
	tries := 0
	err := s.write(ctx, "record failure of "+f.Thread, func(tx pgx.Tx) error {
		tries = 0
		now := time.Now().UnixMilli()
		for i, uid := range f.Records {
			hash := ""
			if len(f.Hashes) > 0 {
				hash = f.Hashes[i]
			}
			var n int
			if err := tx.QueryRow(ctx, `INSERT INTO consolidation_failures AS cf(agent, corpus, thread, pass, uid, hash, tries, reason, updated_at)
				VALUES($1,$2,$3,$4,$5,$6,1,$7,$8)
				ON CONFLICT(agent, corpus, thread, pass, uid) DO UPDATE SET
					tries = CASE WHEN cf.hash = excluded.hash THEN cf.tries + 1 ELSE 1 END,
					hash = excluded.hash, reason = excluded.reason, updated_at = excluded.updated_at
				RETURNING tries`, s.agent, f.Corpus, f.Thread, f.Pass, uid, hash, cleanText(f.Reason), now).Scan(&n); err != nil {
				return fmt.Errorf("record failure of %s: %w", uid, err)
			}
			tries = max(tries, n)
		}
		return nil
	})
	return tries, err
}

// FailedRecords returns the failure state of a thread's records in a pass.
func (s *Store) FailedRecords(ctx context.Context, corpus, thread, pass string) (map[string]cairn.FailedRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT uid, hash, tries, reason FROM consolidation_failures WHERE agent = $1 AND corpus = $2
		AND thread = $3 AND pass = $4`, s.agent, corpus, thread, pass)
	if err != nil {
		return nil, classify("read failures of "+thread, err)
	}
	defer rows.Close()
	out := map[string]cairn.FailedRecord{}
	for rows.Next() {
		var uid string
		var f cairn.FailedRecord
		if err := rows.Scan(&uid, &f.Hash, &f.Tries, &f.Reason); err != nil {
			return nil, classify("read failures of "+thread, err)
		}
		out[uid] = f
	}
	return out, classify("read failures of "+thread, rows.Err())
}
