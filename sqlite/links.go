package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cairnmemory/cairn"
)

// linksSchema is the migration for the sleep pass: links between memories
// (related both ways; supersedes and merged from the newer or kept memory,
// with what the decision added to it) and the pairs of memories already
// judged, so a pair is judged once.
const linksSchema = `CREATE TABLE memory_links(
		from_id TEXT NOT NULL,
		to_id TEXT NOT NULL,
		kind TEXT NOT NULL,
		reason TEXT NOT NULL DEFAULT '',
		added TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		PRIMARY KEY(from_id, to_id, kind)
	);
	CREATE INDEX memory_links_to ON memory_links(to_id);
	CREATE TABLE sleep_pairs(
		a TEXT NOT NULL,
		b TEXT NOT NULL,
		PRIMARY KEY(a, b)
	);
	CREATE INDEX sleep_pairs_b ON sleep_pairs(b);`

var _ cairn.SleepStore = (*Store)(nil)

// JudgedPairs returns every pair the sleep pass has judged, smaller id
// first.
func (s *Store) JudgedPairs(ctx context.Context) (map[[2]string]bool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT a, b FROM sleep_pairs`)
	if err != nil {
		return nil, fmt.Errorf("read judged pairs: %w", err)
	}
	defer rows.Close()
	out := map[[2]string]bool{}
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, fmt.Errorf("read judged pairs: %w", err)
		}
		out[p] = true
	}
	return out, rows.Err()
}

// ApplySleep writes one group's decisions in one transaction: the
// rewritten members, the links and the judged pairs. It fails with
// cairn.ErrNotFound, changing nothing, when a member is gone, no longer
// active, or rewritten since the judge read it (c.Seen): a consolidation
// ran meanwhile. A write the durable store refuses names it (Diagnose).
func (s *Store) ApplySleep(ctx context.Context, c cairn.SleepChange) error {
	return s.diagnose("apply sleep", s.applySleep(ctx, c))
}

func (s *Store) applySleep(ctx context.Context, c cairn.SleepChange) error {
	db, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin sleep: %w", err)
	}
	defer tx.Rollback()
	for _, id := range c.Members {
		var status, data string
		err := tx.QueryRowContext(ctx, `SELECT status, data FROM memories WHERE id=?`, id).Scan(&status, &data)
		if errors.Is(err, sql.ErrNoRows) || err == nil && status != cairn.StatusActive {
			return fmt.Errorf("apply sleep to memory %s: no longer active: %w", id, cairn.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("apply sleep to memory %s: %w", id, err)
		}
		if seen, ok := c.Seen[id]; ok {
			var m cairn.Memory
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				return fmt.Errorf("decode memory %s: %w", id, err)
			}
			if cairn.MemoryFingerprint(m) != seen {
				return fmt.Errorf("apply sleep to memory %s: rewritten since it was judged: %w", id, cairn.ErrNotFound)
			}
		}
	}
	now := time.Now()
	for i := range c.Updates {
		if err := updateMemory(ctx, tx, &c.Updates[i], now); err != nil {
			return err
		}
	}
	for _, l := range c.Links {
		added := ""
		if l.Added != nil {
			b, err := json.Marshal(l.Added)
			if err != nil {
				return fmt.Errorf("encode link %s to %s: %w", l.From, l.To, err)
			}
			added = string(b)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO memory_links(from_id, to_id, kind, reason, added, created_at)
			VALUES(?,?,?,?,?,?)`, l.From, l.To, l.Kind, l.Reason, added, now.UnixMilli()); err != nil {
			return fmt.Errorf("link memory %s to %s: %w", l.From, l.To, err)
		}
	}
	for i, a := range c.Members {
		for _, b := range c.Members[i+1:] {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sleep_pairs(a, b) VALUES(?,?)`, min(a, b), max(a, b)); err != nil {
				return fmt.Errorf("mark pair %s %s judged: %w", a, b, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit sleep: %w", err)
	}
	s.wrote.Store(true)
	return nil
}

// MemoryLinks lists the links from or to a memory, oldest first.
func (s *Store) MemoryLinks(ctx context.Context, id string) ([]cairn.MemoryLink, error) {
	return queryLinks(ctx, s.r, id)
}

func queryLinks(ctx context.Context, q querier, id string) ([]cairn.MemoryLink, error) {
	rows, err := q.QueryContext(ctx, `SELECT from_id, to_id, kind, reason, added, created_at FROM memory_links
		WHERE from_id=? OR to_id=? ORDER BY created_at, kind, from_id, to_id`, id, id)
	if err != nil {
		return nil, fmt.Errorf("read links of %s: %w", id, err)
	}
	defer rows.Close()
	out := []cairn.MemoryLink{}
	for rows.Next() {
		var l cairn.MemoryLink
		var added string
		var created int64
		if err := rows.Scan(&l.From, &l.To, &l.Kind, &l.Reason, &added, &created); err != nil {
			return nil, fmt.Errorf("read links of %s: %w", id, err)
		}
		if added != "" {
			l.Added = &cairn.MemoryAddition{}
			if err := json.Unmarshal([]byte(added), l.Added); err != nil {
				return nil, fmt.Errorf("decode link %s to %s: %w", l.From, l.To, err)
			}
		}
		l.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}

// release undoes the sleep decisions involving a memory that consolidation
// is about to write again or remove: what it superseded or absorbed comes
// back active, what absorbed or superseded it loses what that added, and
// its links and judged pairs go. It returns the other memories it changed.
func release(ctx context.Context, tx *sql.Tx, id string, now time.Time) ([]string, error) {
	links, err := queryLinks(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	var touched []string
	for _, l := range links {
		if l.Kind == cairn.LinkRelated {
			continue
		}
		other := l.To
		if l.To == id {
			other = l.From
		}
		m, err := loadMemory(ctx, tx, other)
		if errors.Is(err, cairn.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if l.From == id { // id replaced other: other comes back
			if m.SupersededBy != id {
				continue
			}
			m.Status, m.SupersededBy = cairn.StatusActive, ""
		} else { // other absorbed or replaced id: take back what id added
			m.Subtract(l.Added)
		}
		if err := updateMemory(ctx, tx, &m, now); err != nil {
			return nil, err
		}
		if !slices.Contains(touched, other) {
			touched = append(touched, other)
		}
	}
	for _, q := range []string{`DELETE FROM memory_links WHERE from_id=? OR to_id=?`, `DELETE FROM sleep_pairs WHERE a=? OR b=?`} {
		if _, err := tx.ExecContext(ctx, q, id, id); err != nil {
			return nil, fmt.Errorf("release memory %s: %w", id, err)
		}
	}
	return touched, nil
}

func loadMemory(ctx context.Context, q querier, id string) (cairn.Memory, error) {
	ms, err := queryMemories(ctx, q, `SELECT data FROM memories WHERE id=?`, id)
	if err != nil {
		return cairn.Memory{}, err
	}
	if len(ms) == 0 {
		return cairn.Memory{}, fmt.Errorf("read memory %s: %w", id, cairn.ErrNotFound)
	}
	return ms[0], nil
}

// updateMemory rewrites a stored memory's content and status, keeping the
// window that wrote it and its created time.
func updateMemory(ctx context.Context, tx *sql.Tx, m *cairn.Memory, now time.Time) error {
	if m.Status == "" {
		m.Status = cairn.StatusActive
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode memory %s: %w", m.ID, err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE memories SET title=?, summary=?, body=?, about=?, status=?, superseded_by=?, data=?,
		updated_at=? WHERE id=?`, m.Title, m.Summary, m.Body, m.About, m.Status, m.SupersededBy, string(data), now.UnixMilli(), m.ID)
	if err != nil {
		return fmt.Errorf("update memory %s: %w", m.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("update memory %s: %w", m.ID, cairn.ErrNotFound)
	}
	return nil
}
