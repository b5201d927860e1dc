package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
)

var _ cairn.SyncLocker = (*Store)(nil)

// lockPoll bounds the wait between tries of a held sync lock; trying
// (pg_try_advisory_lock) rather than blocking keeps the wait cancellable.
const lockPoll = 200 * time.Millisecond

// trySyncSQL takes both sync lock keys (lockKeys("sync")) or neither:
// the schema's and agent's exclusive, then the agent's shared, letting the
// first go again when the second is held (CASE evaluates in order).
const trySyncSQL = `SELECT CASE WHEN NOT pg_try_advisory_lock($1) THEN false
	WHEN pg_try_advisory_lock_shared($2) THEN true
	ELSE NOT pg_advisory_unlock($1) END`

// LockSync takes the agent's sync lock: session advisory locks held on a
// connection of their own until unlock, so one sync at a time indexes the
// agent's corpora in this schema across every server process on the
// database (lockKeys: another schema's store of the same agent name does
// not wait). A process that dies loses its connection and with it the
// lock.
func (s *Store) LockSync(ctx context.Context) (func() error, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, classify("take sync lock", err)
	}
	keys := s.lockKeys("sync")
	told := false
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, lockPoll) {
		var ok bool
		if err := c.QueryRow(ctx, trySyncSQL, keys...).Scan(&ok); err != nil {
			c.Release()
			return nil, classify("take sync lock", err)
		}
		if ok {
			break
		}
		if !told && s.logf != nil {
			s.logf("cairn: waiting for another server's sync of agent %q in schema %q", s.agent, s.schemaName())
			told = true
		}
		select {
		case <-ctx.Done():
			c.Release()
			return nil, fmt.Errorf("wait for sync lock of agent %q: %w", s.agent, ctx.Err())
		case <-time.After(delay):
		}
	}
	return func() error {
		defer c.Release()
		_, err := c.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1), pg_advisory_unlock_shared($2)`, keys...)
		return classify("release sync lock", err)
	}, nil
}
