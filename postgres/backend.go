package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
)

// DefaultSchema is the schema Cairn's tables live in when Backend.Schema
// is empty.
const DefaultSchema = "cairn"

// Backend opens one agent's storage in a PostgreSQL database. It is the
// engine's Options.Backend for a [store] url.
type Backend struct {
	// URL is a PostgreSQL connection string (postgres://user:pass@host:port/db?sslmode=...).
	URL string
	// Agent names the tenant every query is scoped to; empty: the data
	// directory's absolute path, so two folders are two tenants.
	Agent string
	// Schema holds Cairn's tables (DefaultSchema when empty); pgvector's
	// types are looked up in public.
	Schema string
	// MaxConns caps the pool (pgxpool's default, the larger of 4 and the
	// CPUs, when 0).
	MaxConns int32
	// HNSW creates an HNSW index (cosine) per embedder identity for
	// Store.Nearest. The engine searches vectors in its own in-memory
	// index, so it is off by default: it costs index time on every
	// PutVectors.
	HNSW bool
}

var _ cairn.Backend = Backend{}

func (b Backend) schema() string {
	if b.Schema == "" {
		return DefaultSchema
	}
	return b.Schema
}

// AgentFor returns the tenant a data directory maps to.
func (b Backend) AgentFor(dir string) string {
	if b.Agent != "" {
		return b.Agent
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return "dir:" + filepath.Clean(dir)
}

// Open connects, migrates the schema when needed, registers the agent and
// empties its index when o.FeatureVersion changed.
func (b Backend) Open(ctx context.Context, dir string, o cairn.StorageOptions) (cairn.Storage, error) {
	s, err := b.open(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	if err := s.register(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if _, err := s.readPairWords(ctx, s.pool); err != nil {
		s.Close()
		return nil, classify("open store", err)
	}
	return s, nil
}

func (b Backend) open(ctx context.Context, dir string, o cairn.StorageOptions) (*Store, error) {
	if b.URL == "" {
		return nil, cairn.Invalidf("store url is empty: set [store] url = \"postgres://user@host/db\"")
	}
	// The engine keeps its sync lock and vector cache in the folder.
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create data directory: %w", err)
		}
	}
	pool, err := openPool(ctx, b.URL, b.schema(), b.MaxConns)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool, agent: b.AgentFor(dir), feature: o.FeatureVersion, ident: o.Ident, logf: o.Logf, hnswOn: b.HNSW}
	c, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, classify("connect to store", err)
	}
	v, err := schemaVersion(ctx, c.Conn(), b.schema())
	if err == nil && v != SchemaVersion {
		err = migrate(ctx, c.Conn(), b.schema(), o.Logf)
		c.Release()
		pool.Reset() // connections made before the vector type existed lack its codec
	} else {
		c.Release()
	}
	if err == nil {
		c, err = pool.Acquire(ctx)
		if err == nil {
			s.citus, err = hasCitus(ctx, c.Conn())
			if err == nil {
				var ferr error
				if s.phraseFn, ferr = ensurePhraseFn(ctx, c.Conn(), b.schema(), s.citus); ferr != nil && o.Logf != nil {
					o.Logf("postgres: phrases of frequent words are read as joins the planner orders: %v", ferr)
				}
			}
			c.Release()
		}
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	if s.citus && nearReads {
		near, err := openNear(ctx, s, b.URL, b.schema(), b.MaxConns)
		switch {
		case err == nil:
			s.near.Store(near)
			s.nearPool = near
		case ctx.Err() != nil:
			pool.Close()
			return nil, classify("connect to the agent's worker", ctx.Err())
		case o.Logf != nil:
			o.Logf("postgres: agent %q is read through the coordinator: %v", s.agent, err)
		}
	}
	return s, nil
}

// register records the agent and checks its feature version: another one
// empties the agent's index (documents, content, chunks, vectors) for a
// rebuild, as SQLite's store does.
func (s *Store) register(ctx context.Context) error {
	var known bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM agents WHERE agent = $1)`, s.agent).Scan(&known); err != nil {
		return classify("open store", err)
	}
	if !known {
		tag, err := s.pool.Exec(ctx, `INSERT INTO agents(agent, created_at) VALUES($1, $2) ON CONFLICT DO NOTHING`,
			s.agent, time.Now().UnixMilli())
		if err != nil {
			return classify("register agent", err)
		}
		s.created = tag.RowsAffected() == 1
	}
	stored, _, err := getMeta(ctx, s.pool, s.agent, "feature_version")
	if err != nil {
		return classify("read feature version", err)
	}
	if stored == s.feature {
		return nil
	}
	return s.write(ctx, "reset index for feature version "+s.feature, func(tx pgx.Tx) error {
		if stored, _, err = getMeta(ctx, tx, s.agent, "feature_version"); err != nil || stored == s.feature {
			return err
		}
		if stored != "" {
			if err := s.dropIndex(ctx, tx, false); err != nil {
				return err
			}
			if err := s.markStale(ctx, tx); err != nil {
				return err
			}
			s.reindexed = true
		}
		return setMeta(ctx, tx, s.agent, "feature_version", s.feature)
	})
}

// indexTables hold what a rebuild from the corpora makes again; the rest
// (memories, checkpoints, links, curation state) is durable.
var indexTables = []string{"vectors", "postings", "chunks", "content", "documents"}

// dropIndex deletes the agent's index rows; whole, it also drops the
// sessions, transcript states, neighbour lists and index meta, as moving
// SQLite's index file aside does.
func (s *Store) dropIndex(ctx context.Context, tx pgx.Tx, whole bool) error {
	tables := indexTables
	if whole {
		tables = append(append([]string{}, tables...), "sessions", "transcript_files", "memory_neighbours")
		tables = append(tables, analysisTables...)
	}
	for _, t := range tables {
		if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE agent = $1`, s.agent); err != nil {
			return fmt.Errorf("empty %s: %w", t, err)
		}
	}
	if whole {
		if _, err := tx.Exec(ctx, `DELETE FROM agent_meta WHERE agent = $1 AND key <> ALL($2)`, s.agent,
			[]string{vectorsVersionKey, memoriesStampKey, pairWordsKey}); err != nil { // the pair words only grow (ownpairs.go)
			return fmt.Errorf("empty agent meta: %w", err)
		}
	}
	if err := setMeta(ctx, tx, s.agent, "fts_rows", "0"); err != nil {
		return err
	}
	return addMeta(ctx, tx, s.agent, vectorsVersionKey, 1)
}

// OpenMemories opens the agent's memories read only; it fails with an
// error matching os.ErrNotExist when the database holds no such agent.
func (b Backend) OpenMemories(ctx context.Context, dir string) (cairn.MemoryReader, error) {
	pool, err := openPool(ctx, b.URL, b.schema(), 2)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool, agent: b.AgentFor(dir), readOnly: true}
	var known bool
	err = pool.QueryRow(ctx, `SELECT to_regclass('agents') IS NOT NULL AND EXISTS (SELECT 1 FROM agents WHERE agent = $1)`, s.agent).Scan(&known)
	if err == nil && !known {
		err = &cairn.Error{Op: "open memories", Path: s.agent, Err: os.ErrNotExist}
	}
	if err != nil {
		pool.Close()
		return nil, classify("open memories", err)
	}
	return s, nil
}

// CheckIndex opens the agent's storage and runs QuickCheck and CheckFTS.
// A server that answers is not damaged the way a file is: failures to
// read are errors, not IndexHealth.Damaged.
func (b Backend) CheckIndex(ctx context.Context, dir string, o cairn.StorageOptions) (cairn.Storage, cairn.IndexHealth, error) {
	h := cairn.IndexHealth{Kept: "memories are kept in the database"}
	st, err := b.Open(ctx, dir, o)
	if err != nil {
		return nil, h, err
	}
	s := st.(*Store)
	start := time.Now()
	if err := s.QuickCheck(ctx); err != nil {
		s.Close()
		return nil, h, err
	}
	if err := s.CheckFTS(ctx); err != nil {
		if !errors.Is(err, cairn.ErrDamaged) {
			s.Close()
			return nil, h, err
		}
		h.Detail = err.Error() + " (cairn doctor --repair rebuilds them)"
		return s, h, nil
	}
	h.Detail = fmt.Sprintf("agent %q in PostgreSQL read in %.1f s", s.agent, time.Since(start).Seconds())
	return s, h, nil
}

// CheckMemoriesAlone counts the agent's memories, read only.
func (b Backend) CheckMemoriesAlone(ctx context.Context, dir string) cairn.Finding {
	r, err := b.OpenMemories(ctx, dir)
	if errors.Is(err, os.ErrNotExist) {
		return cairn.Finding{Detail: "no memories stored for agent " + b.AgentFor(dir)}
	}
	if err != nil {
		return cairn.Finding{Problem: true, Detail: err.Error(), Fix: durableFix}
	}
	defer r.Close()
	return r.(*Store).CheckDurable(ctx)
}

// MoveAside deletes the agent's index rows (what SQLite moves aside as a
// file); the memories and the rest of the durable state stay. It returns
// what it did, for doctor to print.
func (b Backend) MoveAside(dir string) (string, error) {
	ctx := context.Background()
	s, err := b.open(ctx, dir, cairn.StorageOptions{})
	if err != nil {
		return "", err
	}
	defer s.Close()
	if err := s.write(ctx, "drop index", func(tx pgx.Tx) error { return s.dropIndex(ctx, tx, true) }); err != nil {
		return "", err
	}
	return fmt.Sprintf("postgres: index rows of agent %q deleted (memories kept)", s.agent), nil
}
