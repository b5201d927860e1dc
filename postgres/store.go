package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// Store is one agent's storage in a PostgreSQL database: every query it
// runs names its agent. Writes of one Store are serialized in the process,
// and every write transaction takes the agent's advisory lock first, so
// two processes writing the same agent take turns, as two SQLite writers
// do; reads run concurrently on the pool.
type Store struct {
	pool    *pgxpool.Pool
	agent   string
	feature string
	ident   func(string) string
	logf    func(string, ...any)
	// reindexed: Open found another feature version and emptied the index.
	reindexed bool
	// readOnly: opened by OpenMemories; writes fail.
	readOnly bool
	// citus: the database runs Citus (the tables are distributed).
	citus bool
	// phraseFn: the schema has cairn_phrase_v1 (phrasefn.go), on every
	// worker on Citus.
	phraseFn bool
	// created: Open registered the agent (it had no row before); a
	// failed import removes it again (forgetNewAgent, export.go).
	created bool

	hnswOn bool
	hmu    sync.Mutex
	hnsw   map[string]bool // HNSW indexes made or found by this handle

	// near: on Citus, a pool on the worker holding the agent's shards,
	// where a search's reads go (near.go); nil: the coordinator. nearPool
	// is the same pool, kept to close it after a failure took near away.
	near     atomic.Pointer[pgxpool.Pool]
	nearPool *pgxpool.Pool

	wmu sync.Mutex // one write transaction of this handle at a time
	gen atomic.Int64
	lex lexemeCache
	// pairs: the agent's own pair words as last read (ownpairs.go).
	pairs atomic.Pointer[pairWords]

	fmu    sync.Mutex
	floors map[string]floor // PendingChunks' floor per identity
}

var (
	_ cairn.Storage      = (*Store)(nil)
	_ cairn.MemoryReader = (*Store)(nil)
)

// Agent returns the tenant this store reads and writes.
func (s *Store) Agent() string { return s.agent }

// openPool connects a pool to url with the schema first on the search path
// and pgvector's types registered on every connection.
func openPool(ctx context.Context, url, schema string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := poolConfig(url, schema, maxConns)
	if err != nil {
		return nil, err
	}
	return connectPool(ctx, cfg)
}

// poolConfig is openPool's configuration of url.
func poolConfig(url, schema string, maxConns int32) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, cairn.Invalidf("store url: %v (want postgres://user@host:port/database)", redactURLError(err))
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = quoteIdent(schema) + ", public"
	cfg.ConnConfig.RuntimeParams["application_name"] = "cairn"
	if randomPageCost != "" {
		cfg.ConnConfig.RuntimeParams["random_page_cost"] = randomPageCost
	}
	if planCacheMode != "" {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = planCacheMode
	}
	if gatherWorkers != "" {
		cfg.ConnConfig.RuntimeParams["max_parallel_workers_per_gather"] = gatherWorkers
	}
	if jitMode != "" {
		cfg.ConnConfig.RuntimeParams["jit"] = jitMode
	}
	cfg.ConnConfig.Tracer = testTracer
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		var ok bool
		if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'vector')`).Scan(&ok); err != nil || !ok {
			return err // the first migration creates the extension; a later connection registers it
		}
		return pgxvec.RegisterTypes(ctx, c)
	}
	return cfg, nil
}

// connectPool opens a pool of cfg and checks that it answers.
func connectPool(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, classify("connect to store", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, classify("connect to store", err)
	}
	return pool, nil
}

// randomPageCost, when set, is the planner's cost of a page read out of
// order on the store's connections (else the server's setting, 4 by
// default: a spinning disk's). With 4 the planner merge-joins a phrase of
// a frequent and a rarer word, reading every posting of the frequent one
// (42,193 of "zishouva" at 100k chunks for 619 candidates of "cim", 191 ms
// in one EXPLAIN at load 35), where 1.1 probes the key for each of the
// rarer list's chunks (56 ms). Over pgbench's 200 queries alternating the
// two (TestLexicalTail, CAIRN_PG_TAIL_AB=cost) the difference was not told
// apart from the load's noise (p50 19.9 and 18.7 ms, p99 326 and 341), so
// Cairn leaves the server's setting alone; the test sets it.
var randomPageCost = ""

// planCacheMode is the planner's plan cache mode on the store's
// connections: every statement is planned with its parameters' values.
// pgx prepares each statement once per connection, and after five
// executions PostgreSQL's default (auto) keeps a generic plan, planned
// without the values, whenever it costs no more than the custom plans'
// average: a search's statements, which name their lexemes as
// parameters, were then joined in an order chosen without the lexemes'
// statistics (SET STATISTICS 1000 on postings.lexeme, schema 4), the
// plan of one query reused for the next (pg_prepared_statements after
// 600 searches: 760 generic and 5 custom plans of the term count, 136
// and 5 of a two-word pass). Planning a pass costs well under a
// millisecond; a pass joined from a frequent word's postings costs
// hundreds (bench/RESULTS.md, issue 20, pgq). Tests set "" to compare.
var planCacheMode = "force_custom_plan"

// gatherWorkers is how many parallel workers one statement of the
// store's connections may start (max_parallel_workers_per_gather): none.
// A search's statements are short, and a worker is a process the server
// starts for the statement and waits for: with the server's default (2)
// the planner gave an all-words pass over three frequent words at 100k
// chunks a Gather Merge whose one worker started 62 ms into a statement
// whose own work took 11 ms (69 ms against 16 ms without it, psql, load
// 10; bench/RESULTS.md, issue 20, session 12-04c, pp). A team server's
// searches run side by side, so a worker takes a core from another
// search anyway. Index builds and VACUUM keep their own setting
// (max_parallel_maintenance_workers); no write of the store is a parallel
// plan (PostgreSQL 15 plans INSERT ... SELECT without workers). Tests set
// "" to compare.
var gatherWorkers = "0"

// jitMode is the planner's JIT compilation on the store's connections:
// off. PostgreSQL compiles a statement's expressions with LLVM when its
// estimated cost passes jit_above_cost (100,000 by default), and
// optimizes and inlines them past jit_optimize_above_cost (500,000). A
// pass over the postings of frequent words costs that much at 1M chunks,
// and compiling takes longer than the pass: an all-words join of three
// frequent words at 100k chunks ran 15 ms without JIT, 100 ms with its
// expressions compiled and 311 ms optimized and inlined too (psql, the
// thresholds set to 0, load 7; bench/RESULTS.md, issue 20, session 12-04c,
// pp). A search's statements read at most a few hundred thousand
// postings through a few arithmetic expressions: JIT never pays for
// itself there. cairn_phrase_v1 turns it off for its own statement too
// (phrasefn.go). Tests set "" to compare.
var jitMode = "off"

// testTracer, when set, sees every statement of the pools opened after
// (tests count the statements a search sends: TestSearchStatements).
var testTracer pgx.QueryTracer

// redactURLError keeps a password in a URL out of messages.
func redactURLError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "://"); i >= 0 {
		if j := strings.Index(msg[i:], "@"); j > 0 {
			return msg[:i+3] + "…" + msg[i+j:]
		}
	}
	return msg
}

// Close closes the pools.
func (s *Store) Close() error {
	if s.nearPool != nil {
		s.nearPool.Close()
	}
	s.pool.Close()
	return nil
}

// lockKey is the advisory lock key of kind ("write", "sync", "migrate")
// for name: an agent, a schema, or both (lockKeys).
func lockKey(kind, name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("cairn:" + kind + ":" + name))
	return int64(h.Sum64())
}

// lockKeys are the advisory lock keys of the agent's writes or syncs
// (kind) in this store's schema, as lockSQL and LockSync take them: the
// key of the schema and the agent, held exclusive, so two schemas on one
// server (two stores) never wait for each other; then the key of the
// agent alone, held shared. Builds before the schema was in the key take
// that one exclusive, so during an upgrade an older and a newer server
// process writing one agent still take turns, while newer ones in two
// schemas share it. (An older process still waits for a newer one of the
// same agent name in any schema, as it did before.) Schema and agent are
// joined by a NUL, which neither can hold.
func (s *Store) lockKeys(kind string) []any {
	return []any{lockKey(kind, s.schemaName()+"\x00"+s.agent), lockKey(kind, s.agent)}
}

// schemaName is the schema the store's pool puts first on its search
// path (poolConfig), unquoted.
func (s *Store) schemaName() string {
	p := strings.TrimSuffix(s.pool.Config().ConnConfig.RuntimeParams["search_path"], ", public")
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
	}
	return p
}

// write runs fn in one transaction holding the agent's write lock, and
// commits it.
func (s *Store) write(ctx context.Context, op string, fn func(pgx.Tx) error) error {
	return s.writeTx(ctx, op, true, fn)
}

// lockSQL takes the agent's write lock, its two keys (lockKeys("write"))
// in order; a write that sends its first statements as a batch queues it
// first (writeTx with lock false) and saves a round trip.
const lockSQL = `SELECT pg_advisory_xact_lock($1), pg_advisory_xact_lock_shared($2)`

func (s *Store) writeTx(ctx context.Context, op string, lock bool, fn func(pgx.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("%s: the store was opened read only", op)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return classify(op, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if lock {
		if _, err := tx.Exec(ctx, lockSQL, s.lockKeys("write")...); err != nil {
			return classify(op, err)
		}
	}
	if err := fn(tx); err != nil {
		return classify(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return classify(op, err)
	}
	s.gen.Add(1)
	return nil
}

// read runs fn in a read-only repeatable-read transaction: every statement
// of it sees the same commit.
func (s *Store) read(ctx context.Context, op string, fn func(pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return classify(op, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := fn(tx); err != nil {
		return classify(op, err)
	}
	return classify(op, tx.Commit(ctx))
}

// Generation changes whenever this store writes.
func (s *Store) Generation() int64 { return s.gen.Load() }

// classify wraps err with op and, for the failures a caller acts on, the
// sentinel they match: ErrBusy for lock timeouts, deadlocks, serialization
// failures and a full connection table; ErrUnavailable for a server that
// cannot be reached or is shutting down. Errors already classified, and
// nil, come back as they are.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var ce *cairn.Error
	if errors.As(err, &ce) || errors.Is(err, cairn.ErrInvalid) || errors.Is(err, cairn.ErrNotFound) ||
		errors.Is(err, cairn.ErrBusy) || errors.Is(err, cairn.ErrUnavailable) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	var cerr *pgconn.ConnectError
	if errors.As(err, &cerr) {
		err = causeFirst(err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "40001" || pe.Code == "40P01" || pe.Code == "55P03" || pe.Code == "53300" || pe.Code == "57014":
			return fmt.Errorf("%s: %w: %w", op, cairn.ErrBusy, err)
		case strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P"):
			return fmt.Errorf("%s: %w: %w", op, cairn.ErrUnavailable, err)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	var ne net.Error
	if errors.As(err, &cerr) || errors.As(err, &ne) || pgconn.SafeToRetry(err) {
		return &cairn.Error{Op: op, Err: fmt.Errorf("%w: %w", cairn.ErrUnavailable, err),
			Hint: "check that the PostgreSQL server in [store] url is running and reachable"}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// connectFailure is a failed connection told cause first: its message
// names what the server said (or the dial's error) before the TLS
// attempts that failed ahead of it, and it unwraps to the driver's error.
type connectFailure struct {
	msg string
	err error
}

func (e *connectFailure) Error() string { return e.msg }
func (e *connectFailure) Unwrap() error { return e.err }

// causeFirst rewrites a pgconn.ConnectError so the real cause leads. With
// sslmode=prefer (the default) the driver tries TLS first and, when that
// fails, plain text; its message lists the attempts in order, so a server
// that refused the connection ("the database system is shutting down", a
// password) read as a TLS problem ("tls error: read tcp ...: connection
// reset by peer") with the cause on a line after it. The attempts that
// are not TLS failures come first, the TLS ones after, labelled; a
// failure of TLS alone (sslmode=require against a server without it)
// stays as it is.
func causeFirst(err error) error {
	var cerr *pgconn.ConnectError
	if !errors.As(err, &cerr) {
		return err
	}
	var attempts []error
	if j, ok := cerr.Unwrap().(interface{ Unwrap() []error }); ok {
		attempts = j.Unwrap()
	} else if e := cerr.Unwrap(); e != nil {
		attempts = []error{e}
	}
	var causes, tls []string
	for _, a := range attempts {
		if a == nil {
			continue
		}
		if m := a.Error(); strings.Contains(m, ": tls error: ") || strings.HasPrefix(m, "tls error: ") {
			tls = append(tls, m)
		} else {
			causes = append(causes, m)
		}
	}
	if len(causes) == 0 || len(tls) == 0 {
		return err
	}
	msg := fmt.Sprintf("connect as user %s to database %s: %s (before it, TLS failed: %s)", cerr.Config.User, cerr.Config.Database,
		strings.Join(causes, "; "), strings.Join(tls, "; "))
	return &connectFailure{msg: msg, err: err}
}

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteLiteral quotes a SQL string literal (standard_conforming_strings,
// the default since PostgreSQL 9.1).
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
