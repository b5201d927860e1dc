package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Reads from the agent's worker, on Citus.
//
// Every statement sent to the coordinator for one agent is routed to the
// worker holding the agent's shards: a second process to wake and a
// second round trip, paid by every statement of a search (a term count
// 0.55 ms on PostgreSQL, 8.6 ms through the coordinator, 2.9 ms sent to
// the worker, at load 23: TestCitusHop). Citus 12 keeps its metadata on
// every worker, so a worker plans and runs a distributed query as the
// coordinator does, and one whose shard is its own runs there without a
// hop. So a store on Citus also connects to the worker that holds its
// agent's shard and sends a search's reads there (readPool): the lexical
// passes and counts, the stems, the index span, HasMemories,
// VectorsVersion and the vector hits' chunks and texts. Writes stay on the
// coordinator (it draws the chunk ids, which PendingChunks' floor relies
// on: ascending in commit order); a write's commit returns once the
// worker has committed it, so a read after it sees it. When the worker
// cannot be reached, or holds no metadata, the store reads through the
// coordinator as before; a read that loses its connection to the worker
// is sent again to the coordinator, and the store reads there from then
// on. A shard moved to another worker later is still read right (the
// worker routes it), only not nearer.

// nearReads turns reads from the agent's worker on; tests turn it off to
// compare.
var nearReads = true

// readPool is where a search's reads go: the agent's worker when the store
// found one, else the pool.
func (s *Store) readPool() querier {
	if p := s.near.Load(); p != nil {
		return nearQuerier{s: s, p: p}
	}
	return s.pool
}

// openNear connects to the worker holding the agent's shards (its
// postings shard: every table is co-located with it) with the store's own
// settings, and checks that it answers a routed read. It returns nil,
// and why, when it cannot.
func openNear(ctx context.Context, s *Store, url, schema string, maxConns int32) (*pgxpool.Pool, error) {
	var host string
	var port uint16
	err := s.pool.QueryRow(ctx, `SELECT n.nodename, n.nodeport::int FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
		WHERE p.shardid = get_shard_id_for_distribution_column('postings', $1::text) AND n.noderole = 'primary' AND n.isactive
		ORDER BY n.nodeid LIMIT 1`, s.agent).Scan(&host, &port)
	if err != nil {
		return nil, fmt.Errorf("find the agent's worker: %w", err)
	}
	cfg, err := poolConfig(url, schema, maxConns)
	if err != nil {
		return nil, err
	}
	if cfg.ConnConfig.Host == host && cfg.ConnConfig.Port == port {
		return nil, errors.New("the agent's shards are on the coordinator")
	}
	cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Fallbacks = host, port, nil
	if t := cfg.ConnConfig.TLSConfig; t != nil {
		t = t.Clone()
		t.ServerName = host
		cfg.ConnConfig.TLSConfig = t
	}
	p, err := connectPool(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to the agent's worker %s:%d: %w", host, port, err)
	}
	var ok bool
	if err := p.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM agent_meta WHERE agent = $1)`, s.agent).Scan(&ok); err != nil {
		p.Close()
		return nil, fmt.Errorf("read on the agent's worker %s:%d: %w", host, port, err)
	}
	return p, nil
}

// nearQuerier reads on the agent's worker; a statement whose connection
// to it fails is sent to the coordinator instead, which then takes every
// read (lostNear).
type nearQuerier struct {
	s *Store
	p *pgxpool.Pool
}

func (q nearQuerier) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := q.p.Query(ctx, sql, args...)
	if err != nil && q.s.lostNear(ctx, q.p, err) {
		return q.s.pool.Query(ctx, sql, args...)
	}
	return rows, err
}

func (q nearQuerier) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return nearRow{q: q, ctx: ctx, sql: sql, args: args, row: q.p.QueryRow(ctx, sql, args...)}
}

type nearRow struct {
	q    nearQuerier
	ctx  context.Context
	sql  string
	args []any
	row  pgx.Row
}

func (r nearRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if err != nil && r.q.s.lostNear(r.ctx, r.q.p, err) {
		return r.q.s.pool.QueryRow(r.ctx, r.sql, r.args...).Scan(dest...)
	}
	return err
}

// lostNear reports whether err is the worker's connection failing (not a
// statement's own error, nor the caller's cancel) and, if so, stops
// reading there (the pool is closed with the store).
func (s *Store) lostNear(ctx context.Context, p *pgxpool.Pool, err error) bool {
	if ctx.Err() != nil || !connLost(err) {
		return false
	}
	if s.near.CompareAndSwap(p, nil) && s.logf != nil {
		s.logf("postgres: reads of agent %q go through the coordinator from now on: the connection to its worker failed: %v", s.agent, err)
	}
	return true
}

// connLost reports an error of the connection rather than of the
// statement: one that failed to connect or broke mid-statement, or the
// server shutting down or gone (classes 08 and 57P).
func connLost(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
