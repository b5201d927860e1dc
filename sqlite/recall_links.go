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

// LinksOfKind lists every link of one kind, without what its decision
// added (explore needs the pairs only).
func (s *Store) LinksOfKind(ctx context.Context, kind string) ([]cairn.MemoryLink, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT from_id, to_id, kind, reason, created_at FROM memory_links WHERE kind=?`, kind)
	if err != nil {
		return nil, fmt.Errorf("list %s links: %w", kind, err)
	}
	defer rows.Close()
	out := []cairn.MemoryLink{}
	for rows.Next() {
		var l cairn.MemoryLink
		var created int64
		if err := rows.Scan(&l.From, &l.To, &l.Kind, &l.Reason, &created); err != nil {
			return nil, fmt.Errorf("list %s links: %w", kind, err)
		}
		l.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}

// neighboursSchema is the migration that adds explore's nearest-neighbour
// lists: one row per memory and embedder identity, the memory's nearest
// memories by key vector as JSON, best first, with the hash of the
// document they were computed from. Derived state: it lives in the index
// and a rebuild drops it (explore computes the lists again).
const neighboursSchema = `CREATE TABLE IF NOT EXISTS memory_neighbours(
		memory_id TEXT NOT NULL,
		identity TEXT NOT NULL,
		hash TEXT NOT NULL,
		near TEXT NOT NULL,
		PRIMARY KEY(memory_id, identity)
	);
	CREATE INDEX IF NOT EXISTS memory_neighbours_identity ON memory_neighbours(identity);`

// memoriesStamp is the durable migration that counts every change to the
// memories and their links (one counter in durable_meta, kept by
// triggers), so a concept graph cached by a long-lived process knows when
// another process changed them.
const memoriesStamp = `INSERT OR IGNORE INTO durable.durable_meta(key, value) VALUES('memories_stamp', '0');
	CREATE TRIGGER durable.memories_stamp_insert AFTER INSERT ON memories BEGIN
		UPDATE durable_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'memories_stamp'; END;
	CREATE TRIGGER durable.memories_stamp_update AFTER UPDATE ON memories BEGIN
		UPDATE durable_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'memories_stamp'; END;
	CREATE TRIGGER durable.memories_stamp_delete AFTER DELETE ON memories BEGIN
		UPDATE durable_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'memories_stamp'; END;
	CREATE TRIGGER durable.links_stamp_insert AFTER INSERT ON memory_links BEGIN
		UPDATE durable_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'memories_stamp'; END;
	CREATE TRIGGER durable.links_stamp_update AFTER UPDATE ON memory_links BEGIN
		UPDATE durable_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'memories_stamp'; END;
	CREATE TRIGGER durable.links_stamp_delete AFTER DELETE ON memory_links BEGIN
		UPDATE durable_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'memories_stamp'; END;`

var _ cairn.RecallStore = (*Store)(nil)

// nearRow is a neighbour as the near column stores it.
type nearRow struct {
	ID string  `json:"id"`
	S  float64 `json:"s"`
}

// PutNeighbours stores nearest-neighbour lists in one transaction.
func (s *Store) PutNeighbours(ctx context.Context, identity string, lists []cairn.NeighbourList) error {
	db, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin neighbours write: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO memory_neighbours(memory_id, identity, hash, near) VALUES(?,?,?,?)`)
	if err != nil {
		return fmt.Errorf("store neighbours: %w", err)
	}
	defer stmt.Close()
	for _, l := range lists {
		rows := make([]nearRow, len(l.Near))
		for i, n := range l.Near {
			rows[i] = nearRow{n.ID, n.Similarity}
		}
		near, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("encode neighbours of %s: %w", l.ID, err)
		}
		if _, err := stmt.ExecContext(ctx, l.ID, identity, l.Hash, string(near)); err != nil {
			return fmt.Errorf("store neighbours of %s: %w", l.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit neighbours: %w", err)
	}
	return nil
}

// Neighbours reads the lists of these memories made by identity.
func (s *Store) Neighbours(ctx context.Context, identity string, ids []string) (map[string]cairn.NeighbourList, error) {
	out := make(map[string]cairn.NeighbourList, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	rows, err := s.r.QueryContext(ctx, `SELECT memory_id, hash, near FROM memory_neighbours
		WHERE identity = ? AND memory_id IN (SELECT value FROM json_each(?))`, identity, string(list))
	if err != nil {
		return nil, fmt.Errorf("read neighbours: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l cairn.NeighbourList
		var near string
		if err := rows.Scan(&l.ID, &l.Hash, &near); err != nil {
			return nil, fmt.Errorf("read neighbours: %w", err)
		}
		var rs []nearRow
		if err := json.Unmarshal([]byte(near), &rs); err != nil {
			return nil, fmt.Errorf("decode neighbours of %s: %w", l.ID, err)
		}
		l.Near = make([]cairn.MemoryNeighbour, len(rs))
		for i, r := range rs {
			l.Near[i] = cairn.MemoryNeighbour{ID: r.ID, Similarity: r.S}
		}
		out[l.ID] = l
	}
	return out, rows.Err()
}

// DeleteNeighbours removes the lists of these memories.
func (s *Store) DeleteNeighbours(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	db, err := s.writer()
	if err != nil {
		return err
	}
	list, _ := json.Marshal(ids)
	if _, err := db.ExecContext(ctx, `DELETE FROM memory_neighbours WHERE memory_id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
		return fmt.Errorf("delete neighbours: %w", err)
	}
	return nil
}

// CountNeighbours counts the lists made by identity.
func (s *Store) CountNeighbours(ctx context.Context, identity string) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM memory_neighbours WHERE identity = ?`, identity).Scan(&n); err != nil {
		return 0, fmt.Errorf("count neighbours: %w", err)
	}
	return n, nil
}

// MemoriesStamp reads the durable counter of memory and link changes.
func (s *Store) MemoriesStamp(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM durable.durable_meta WHERE key = 'memories_stamp'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read memories stamp: %w", err)
	}
	return v, nil
}
