package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// lockKind is one of the agent's locks as a test takes it: hold keeps it
// until release; take takes it and lets it go (an error when it waited
// past ctx); old holds it as builds before the schema key did (the agent
// alone, exclusive), and oldTry tries it so and says whether it got it.
type lockKind struct {
	name   string
	hold   func(t *testing.T, s *Store) (release func())
	take   func(ctx context.Context, s *Store) error
	old    func(t *testing.T, s *Store) (release func())
	oldTry func(t *testing.T, s *Store) bool
}

var lockKinds = []lockKind{
	{
		name: "sync",
		hold: func(t *testing.T, s *Store) func() {
			unlock, err := s.LockSync(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := unlock(); err != nil {
					t.Error(err)
				}
			}
		},
		take: func(ctx context.Context, s *Store) error {
			unlock, err := s.LockSync(ctx)
			if err != nil {
				return err
			}
			return unlock()
		},
		old: func(t *testing.T, s *Store) func() {
			c, err := s.pool.Acquire(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exec(context.Background(), `SELECT pg_advisory_lock($1)`, lockKey("sync", s.agent)); err != nil {
				t.Fatal(err)
			}
			return func() {
				defer c.Release()
				if _, err := c.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, lockKey("sync", s.agent)); err != nil {
					t.Error(err)
				}
			}
		},
		oldTry: func(t *testing.T, s *Store) bool {
			c, err := s.pool.Acquire(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			var ok bool
			if err := c.QueryRow(context.Background(), `SELECT pg_try_advisory_lock($1)`, lockKey("sync", s.agent)).Scan(&ok); err != nil {
				t.Fatal(err)
			}
			if ok {
				c.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, lockKey("sync", s.agent))
			}
			return ok
		},
	},
	{
		name: "write",
		hold: func(t *testing.T, s *Store) func() {
			in, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
			go func() {
				done <- s.write(context.Background(), "hold the write lock", func(pgx.Tx) error {
					close(in)
					<-release
					return nil
				})
			}()
			select {
			case <-in:
			case err := <-done:
				t.Fatalf("hold the write lock: %v", err)
			}
			return func() {
				close(release)
				if err := <-done; err != nil {
					t.Error(err)
				}
			}
		},
		take: func(ctx context.Context, s *Store) error {
			return s.write(ctx, "take the write lock", func(pgx.Tx) error { return nil })
		},
		old: func(t *testing.T, s *Store) func() {
			tx, err := s.pool.Begin(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(context.Background(), `SELECT pg_advisory_xact_lock($1)`, lockKey("write", s.agent)); err != nil {
				t.Fatal(err)
			}
			return func() { tx.Rollback(context.Background()) }
		},
		oldTry: func(t *testing.T, s *Store) bool {
			tx, err := s.pool.Begin(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(context.Background())
			var ok bool
			if err := tx.QueryRow(context.Background(), `SELECT pg_try_advisory_xact_lock($1)`, lockKey("write", s.agent)).Scan(&ok); err != nil {
				t.Fatal(err)
			}
			return ok
		},
	},
}

// waited: a take that gave up at its deadline.
func waited(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, cairn.ErrBusy)
}

// TestLockScope: the agent's write and sync locks are keyed by schema and
// agent. While a store of agent a in one schema holds one, a store of
// agent a in another schema of the same server takes it at once and a
// second handle in the same schema waits. An older build's lock (the
// agent alone, exclusive) still makes this build wait in every schema,
// and this build's held lock makes an older build's try fail, so two
// builds of different ages on one schema take turns during an upgrade.
func TestLockScope(t *testing.T) {
	b1 := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_lockscope1")
	b2 := testBackend(t, "CAIRN_TEST_POSTGRES_URL", "cairn_lockscope2")
	one, again, other := openTest(t, b1, "a"), openTest(t, b1, "a"), openTest(t, b2, "a")
	if one.schemaName() != "cairn_lockscope1" || other.schemaName() != "cairn_lockscope2" {
		t.Fatalf("schema names %q, %q", one.schemaName(), other.schemaName())
	}
	short := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 300*time.Millisecond)
	}
	for _, k := range lockKinds {
		t.Run(k.name, func(t *testing.T) {
			release := k.hold(t, one)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := k.take(ctx, other); err != nil {
				t.Errorf("agent a in another schema, beside a held %s lock: %v, want it taken at once", k.name, err)
			}
			cancel()
			ctx, cancel = short()
			if err := k.take(ctx, again); !waited(err) {
				t.Errorf("a second handle in the same schema took the held %s lock: %v", k.name, err)
			}
			cancel()
			if k.oldTry(t, other) {
				t.Errorf("an older build took agent a's %s lock while this build held it", k.name)
			}
			release()
			if err := k.take(context.Background(), again); err != nil {
				t.Errorf("after release: %v", err)
			}
			if !k.oldTry(t, other) {
				t.Errorf("an older build could not take agent a's free %s lock", k.name)
			}

			release = k.old(t, one)
			for _, s := range []*Store{one, other} {
				ctx, cancel := short()
				if err := k.take(ctx, s); !waited(err) {
					t.Errorf("schema %s took the %s lock an older build held: %v", s.schemaName(), k.name, err)
				}
				cancel()
			}
			release()
			if err := k.take(context.Background(), other); err != nil {
				t.Errorf("after the older build's release: %v", err)
			}
		})
	}
}
