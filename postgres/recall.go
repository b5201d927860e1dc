package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// PutNeighbours stores each list as its memory's nearest memories made by
// identity, replacing the memory's earlier list of that identity.
func (s *Store) PutNeighbours(ctx context.Context, identity string, lists []cairn.NeighbourList) error {
	if len(lists) == 0 {
		return nil
	}
	return s.write(ctx, "store memory neighbours", func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, l := range lists {
			near, err := json.Marshal(l.Near)
			if err != nil {
				return fmt.Errorf("encode neighbours of %s: %w", l.ID, err)
			}
			b.Queue(`INSERT INTO memory_neighbours(agent, id, identity, hash, near) VALUES($1, $2, $3, $4, $5)
				ON CONFLICT(agent, id, identity) DO UPDATE SET hash = excluded.hash, near = excluded.near`,
				s.agent, l.ID, identity, l.Hash, string(near))
		}
		return tx.SendBatch(ctx, b).Close()
	})
}

// Neighbours returns the lists made by identity of these memories.
func (s *Store) Neighbours(ctx context.Context, identity string, ids []string) (map[string]cairn.NeighbourList, error) {
	out := map[string]cairn.NeighbourList{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, hash, near FROM memory_neighbours WHERE agent = $1 AND identity = $2 AND id = ANY($3)`,
		s.agent, identity, ids)
	if err != nil {
		return nil, classify("read memory neighbours", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l cairn.NeighbourList
		var near string
		if err := rows.Scan(&l.ID, &l.Hash, &near); err != nil {
			return nil, classify("read memory neighbours", err)
		}
		if err := json.Unmarshal([]byte(near), &l.Near); err != nil {
			return nil, fmt.Errorf("decode neighbours of %s: %w", l.ID, err)
		}
		out[l.ID] = l
	}
	return out, classify("read memory neighbours", rows.Err())
}

// DeleteNeighbours removes the lists of these memories, of every identity.
func (s *Store) DeleteNeighbours(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.write(ctx, "delete memory neighbours", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM memory_neighbours WHERE agent = $1 AND id = ANY($2)`, s.agent, ids)
		return err
	})
}

// CountNeighbours counts the lists made by identity.
func (s *Store) CountNeighbours(ctx context.Context, identity string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM memory_neighbours WHERE agent = $1 AND identity = $2`, s.agent, identity).Scan(&n)
	return n, classify("count memory neighbours", err)
}

// MemoriesStamp changes whenever a memory or a link of the agent is
// written, changed or removed, by any process: every transaction that
// writes either (CommitWindow, ApplySleep) counts itself in agent_meta.
// (Triggers would do it on SQLite's side; on Citus a trigger on a
// distributed table runs on the shard and needs enable_unsafe_triggers.)
func (s *Store) MemoriesStamp(ctx context.Context) (int64, error) {
	v, _, err := getMeta(ctx, s.pool, s.agent, memoriesStampKey)
	if err != nil {
		return 0, classify("read memories stamp", err)
	}
	var n int64
	fmt.Sscan(v, &n)
	return n, nil
}

const memoriesStampKey = "memories_stamp"
