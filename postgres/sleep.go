package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// JudgedPairs returns every pair the sleep pass has judged, smaller id
// first.
func (s *Store) JudgedPairs(ctx context.Context) (map[[2]string]bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT a, b FROM sleep_pairs WHERE agent = $1`, s.agent)
	if err != nil {
		return nil, classify("read judged pairs", err)
	}
	defer rows.Close()
	out := map[[2]string]bool{}
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, classify("read judged pairs", err)
		}
		out[p] = true
	}
	return out, classify("read judged pairs", rows.Err())
}

// ApplySleep writes one group's decisions in one transaction; it fails
// with cairn.ErrNotFound, changing nothing, when a member is gone, no
// longer active, or rewritten since it was judged.
func (s *Store) ApplySleep(ctx context.Context, c cairn.SleepChange) error {
	return s.write(ctx, "apply sleep", func(tx pgx.Tx) error {
		for _, id := range c.Members {
			var status, data string
			err := tx.QueryRow(ctx, `SELECT status, data FROM memories WHERE agent = $1 AND id = $2 FOR UPDATE`, s.agent, id).Scan(&status, &data)
			if errors.Is(err, pgx.ErrNoRows) || err == nil && status != cairn.StatusActive {
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
			if err := s.updateMemory(ctx, tx, &c.Updates[i], now); err != nil {
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
			if _, err := tx.Exec(ctx, `INSERT INTO memory_links(agent, from_id, to_id, kind, reason, added, created_at)
				VALUES($1,$2,$3,$4,$5,$6,$7) ON CONFLICT(agent, from_id, to_id, kind) DO UPDATE SET reason = excluded.reason,
				added = excluded.added, created_at = excluded.created_at`,
				s.agent, l.From, l.To, l.Kind, cleanText(l.Reason), cleanText(added), now.UnixMilli()); err != nil {
				return fmt.Errorf("link memory %s to %s: %w", l.From, l.To, err)
			}
		}
		for i, a := range c.Members {
			for _, b := range c.Members[i+1:] {
				if _, err := tx.Exec(ctx, `INSERT INTO sleep_pairs(agent, a, b) VALUES($1,$2,$3) ON CONFLICT DO NOTHING`,
					s.agent, min(a, b), max(a, b)); err != nil {
					return fmt.Errorf("mark pair %s %s judged: %w", a, b, err)
				}
			}
		}
		return addMeta(ctx, tx, s.agent, memoriesStampKey, 1)
	})
}

// MemoryLinks lists the links from or to a memory, oldest first.
func (s *Store) MemoryLinks(ctx context.Context, id string) ([]cairn.MemoryLink, error) {
	ls, err := s.queryLinks(ctx, s.pool, id)
	return ls, classify("read links of "+id, err)
}

func (s *Store) queryLinks(ctx context.Context, q querier, id string) ([]cairn.MemoryLink, error) {
	rows, err := q.Query(ctx, `SELECT from_id, to_id, kind, reason, added, created_at FROM memory_links
		WHERE agent = $1 AND (from_id = $2 OR to_id = $2)
		ORDER BY created_at, kind COLLATE "C", from_id COLLATE "C", to_id COLLATE "C"`, s.agent, id)
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

// LinksOfKind lists every link of one kind, without what its decision
// added.
func (s *Store) LinksOfKind(ctx context.Context, kind string) ([]cairn.MemoryLink, error) {
	rows, err := s.pool.Query(ctx, `SELECT from_id, to_id, kind, reason, created_at FROM memory_links WHERE agent = $1 AND kind = $2`, s.agent, kind)
	if err != nil {
		return nil, classify("list "+kind+" links", err)
	}
	defer rows.Close()
	out := []cairn.MemoryLink{}
	for rows.Next() {
		var l cairn.MemoryLink
		var created int64
		if err := rows.Scan(&l.From, &l.To, &l.Kind, &l.Reason, &created); err != nil {
			return nil, classify("list "+kind+" links", err)
		}
		l.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, l)
	}
	return out, classify("list "+kind+" links", rows.Err())
}

// release undoes the sleep decisions involving a memory that consolidation
// writes again or removes, and returns the other memories it changed.
func (s *Store) release(ctx context.Context, tx pgx.Tx, id string, now time.Time) ([]string, error) {
	links, err := s.queryLinks(ctx, tx, id)
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
		ms, err := s.queryMemories(ctx, tx, `SELECT data FROM memories WHERE agent = $1 AND id = $2`, other)
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			continue
		}
		m := ms[0]
		if l.From == id { // id replaced other: other comes back
			if m.SupersededBy != id {
				continue
			}
			m.Status, m.SupersededBy = cairn.StatusActive, ""
		} else { // other absorbed or replaced id: take back what id added
			m.Subtract(l.Added)
		}
		if err := s.updateMemory(ctx, tx, &m, now); err != nil {
			return nil, err
		}
		if !slices.Contains(touched, other) {
			touched = append(touched, other)
		}
	}
	for _, q := range []string{`DELETE FROM memory_links WHERE agent = $1 AND (from_id = $2 OR to_id = $2)`,
		`DELETE FROM sleep_pairs WHERE agent = $1 AND (a = $2 OR b = $2)`} {
		if _, err := tx.Exec(ctx, q, s.agent, id); err != nil {
			return nil, fmt.Errorf("release memory %s: %w", id, err)
		}
	}
	return touched, nil
}

// updateMemory rewrites a stored memory's content and status, keeping its
// window and created time.
func (s *Store) updateMemory(ctx context.Context, tx pgx.Tx, m *cairn.Memory, now time.Time) error {
	if m.Status == "" {
		m.Status = cairn.StatusActive
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode memory %s: %w", m.ID, err)
	}
	tag, err := tx.Exec(ctx, `UPDATE memories SET title = $3, summary = $4, body = $5, about = $6, status = $7, superseded_by = $8,
		data = $9, updated_at = $10 WHERE agent = $1 AND id = $2`, s.agent, m.ID, cleanText(m.Title), cleanText(m.Summary),
		cleanText(m.Body), cleanText(m.About), m.Status, m.SupersededBy, string(data), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("update memory %s: %w", m.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("update memory %s: %w", m.ID, cairn.ErrNotFound)
	}
	return nil
}
