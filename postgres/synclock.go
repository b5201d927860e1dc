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

// LockSync takes the agent's sync lock: a session advisory lock held on a
// connection of its own until unlock, so one sync at a time indexes the
// agent's corpora across every server process on the database. A process
// that dies loses its connection and with it the lock.
func (s *Store) LockSync(ctx context.Context) (func() error, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, classify("take sync lock", err)
	}
	key := lockKey("sync", s.agent)
	told := false
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, lockPoll) {
		var ok bool
		if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
			c.Release()
			return nil, classify("take sync lock", err)
		}
		if ok {
			break
		}
		if !told && s.logf != nil {
			s.logf("cairn: waiting for another server's sync of agent %q", s.agent)
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
		_, err := c.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key)
		return classify("release sync lock", err)
	}, nil
}
