package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairnmemory/cairn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// DefaultBusyTimeoutMs is how long a connection waits on a locked database.
const DefaultBusyTimeoutMs = 5000

// SchemaVersion is the newest schema this package migrates to. An index
// records it, or pairsVersion-1 while it holds no pair list (fence.go).
var SchemaVersion = len(migrations)

// DefaultMmapBytes is the memory map size when Store.Mmap is set.
const DefaultMmapBytes = 1 << 30

// Two drivers: one-shot processes (the CLI) read with pread, which costs
// less than faulting in mapped pages once; long-lived ones map the file.
const (
	driverName     = "cairn_sqlite3"
	driverNameMmap = "cairn_sqlite3_mmap"
)

func init() {
	register := func(name string, mmap int64) {
		pragmas := []string{
			"PRAGMA foreign_keys=ON",
			"PRAGMA trusted_schema=OFF",
			"PRAGMA secure_delete=ON",
			"PRAGMA temp_store=MEMORY",
			"PRAGMA cache_size=-32000",
			fmt.Sprintf("PRAGMA mmap_size=%d", mmap),
		}
		sql.Register(name, &sqlite3.SQLiteDriver{
			ConnectHook: func(c *sqlite3.SQLiteConn) error {
				for _, p := range pragmas {
					if _, err := c.Exec(p, nil); err != nil {
						return fmt.Errorf("set %s: %w", p, err)
					}
				}
				return attachDurable(c) // durable.go: memories live in their own file
			},
		})
	}
	register(driverName, 0)
	register(driverNameMmap, DefaultMmapBytes)
}

// Store implements cairn.Store on SQLite.
type Store struct {
	// Path is the database file.
	Path string
	// FeatureVersion identifies the chunker and tokenizer; a change empties
	// the index at Open (see Reindexed).
	FeatureVersion string
	// Reindexed is set by Open when the stored feature version differed and
	// the index was emptied for a rebuild.
	Reindexed bool
	// Mmap maps the database into memory (DefaultMmapBytes): faster for a
	// long-lived process, slower for a one-shot command.
	Mmap bool
	// Ident derives a chunk's identifier column from its text when the
	// store re-indexes stored chunks itself (a tokenizer change); the
	// engine sets search.IdentText. Nil leaves the column empty.
	Ident func(body string) string
	// Logf, when set, reports long migrations.
	Logf func(format string, args ...any)
	// afterCommit runs once the migration's transaction is committed
	// (contentid.go's done line).
	afterCommit []func()

	w *sql.DB // one writer connection
	r *sql.DB // read-only pool

	wrote atomic.Bool  // a batch was applied: Close runs PRAGMA optimize
	gen   atomic.Int64 // bumped by every write that can change matches
	reads atomic.Int64 // lexical searches begun (optimize.go: idle merging yields to them)
	wmu   sync.Mutex

	smu   sync.Mutex
	stmts map[string]*sql.Stmt // prepared reader statements
}

var _ cairn.Store = (*Store)(nil)

// New returns a store for the database file at path. Call Open next.
func New(path, featureVersion string) *Store {
	return &Store{Path: path, FeatureVersion: featureVersion}
}

// Open creates the file if needed (0600, directory 0700), migrates the
// schema and checks the feature version.
func (s *Store) Open(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("create store directory: %w", err)
	}
	if fi, err := os.Lstat(s.Path); err == nil && !fi.Mode().IsRegular() {
		return &cairn.Error{Op: "open store", Path: s.Path, Err: errors.New("not a regular file")}
	} else if errors.Is(err, os.ErrNotExist) {
		f, err := os.OpenFile(s.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create store: %w", err)
		}
		if f != nil {
			f.Close()
		}
	}
	if err := s.createDurable(); err != nil { // durable.go
		return err
	}
	if s.upToDate(ctx) {
		return s.openDurable(ctx) // readers only until the first write: a search opens no writer
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	if err := s.migrate(ctx, w); err != nil {
		s.Close()
		return s.diagnose("open index", err)
	}
	if err := s.openReaders(); err != nil {
		return err
	}
	return s.openDurable(ctx) // durable.go
}

// readers is the size of the read-only connection pool.
func readers() int { return max(4, runtime.GOMAXPROCS(0)*2) }

func (s *Store) openReaders() error {
	if s.r != nil {
		s.r.Close()
	}
	r, err := sql.Open(s.driver(), dsn(s.Path, true))
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	r.SetMaxOpenConns(readers())
	r.SetMaxIdleConns(readers())
	s.r = r
	return nil
}

// upToDate reports, with a throwaway read-only connection, whether the
// schema and feature versions match, so Open can skip the writer.
func (s *Store) upToDate(ctx context.Context) bool {
	db, err := sql.Open(s.driver(), dsn(s.Path, true))
	if err != nil {
		return false
	}
	db.SetMaxOpenConns(1)
	var schema, feature sql.NullString
	var paired bool
	err = db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key='schema_version'),
		(SELECT value FROM meta WHERE key='feature_version'), `+pairTablesSQL).Scan(&schema, &feature, &paired)
	if err != nil || schema.String != fmt.Sprint(recordedVersion(paired)) || feature.String != s.FeatureVersion {
		db.Close()
		return false
	}
	db.SetMaxOpenConns(readers())
	db.SetMaxIdleConns(readers())
	s.r = db // keep it as the reader pool
	return true
}

// writer opens the single writer connection on first use.
func (s *Store) writer() (*sql.DB, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w != nil {
		return s.w, nil
	}
	w, err := sql.Open(s.driver(), dsn(s.Path, false))
	if err != nil {
		return nil, fmt.Errorf("open store writer: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	s.w = w
	return w, nil
}

// Generation changes whenever this store writes something that can change
// search matches; callers cache per-term statistics against it. Writes by
// another process are not seen: such caches live in the one process that
// writes (a server), while one-shot commands start empty.
func (s *Store) Generation() int64 { return s.gen.Load() }

func (s *Store) driver() string {
	if s.Mmap {
		return driverNameMmap
	}
	return driverName
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(DefaultBusyTimeoutMs))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Close closes both connection pools.
func (s *Store) Close() error {
	var errs []error
	s.smu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.smu.Unlock()
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		if s.wrote.Load() {
			_, _ = s.w.Exec("PRAGMA optimize")
		}
		errs = append(errs, s.w.Close())
	}
	return errors.Join(errs...)
}

func (s *Store) migrate(ctx context.Context, w *sql.DB) error {
	s.afterCommit = nil
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate store: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate store: %w", err)
	}
	version := 0
	var v string
	switch err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("migrate store: %w", err)
	default:
		fmt.Sscan(v, &version)
	}
	if version > SchemaVersion {
		return &cairn.Error{Op: "open store", Path: s.Path,
			Err:  fmt.Errorf("schema version %d is newer than this binary's %d", version, SchemaVersion),
			Hint: "upgrade cairn or use another data directory"}
	}
	for i := version; i < SchemaVersion; i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			if strings.Contains(err.Error(), "no such module: fts5") {
				return &cairn.Error{Op: "open store", Path: s.Path, Err: fmt.Errorf("%w: this binary was built without SQLite FTS5", cairn.ErrUnavailable),
					Hint: "build and test with -tags sqlite_fts5, as the README says"}
			}
			return fmt.Errorf("migrate store to version %d: %w", i+1, err)
		}
		if after := migrationsAfter[i]; after != nil {
			if err := after(ctx, s, tx); err != nil {
				return fmt.Errorf("migrate store to version %d: %w", i+1, err)
			}
		}
	}
	if err := fencePairs(ctx, tx); err != nil {
		return err
	}
	if err := s.checkFeature(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return interrupted(ctx, err)
	}
	for _, f := range s.afterCommit {
		f()
	}
	return nil
}

// checkFeature empties the index when the chunker or tokenizer changed.
func (s *Store) checkFeature(ctx context.Context, tx *sql.Tx) error {
	var stored string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='feature_version'`).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read feature version: %w", err)
	}
	if stored == s.FeatureVersion {
		return nil
	}
	if stored != "" {
		for _, q := range []string{
			`DELETE FROM chunks_fts`, `DELETE FROM chunks`, `DELETE FROM documents`, `DELETE FROM content`, `DELETE FROM vectors`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("reset index for feature version %s: %w", s.FeatureVersion, err)
			}
		}
		s.Reindexed = true
	}
	return setMeta(ctx, tx, "feature_version", s.FeatureVersion)
}

func setMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}

// migrationsAfter[i], when set, runs in Go after migrations[i], in the
// same transaction.
var migrationsAfter = map[int]func(ctx context.Context, s *Store, tx *sql.Tx) error{
	8:  rebuildFTS, // gramsTable
	11: contentIDs, // contentid.go
}

// migrations[i] takes the schema from version i to i+1. Append only.
var migrations = []string{
	`CREATE TABLE content(
		hash TEXT PRIMARY KEY,
		doc BLOB NOT NULL,
		title TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL
	);
	CREATE TABLE documents(
		id INTEGER PRIMARY KEY,
		corpus TEXT NOT NULL,
		path TEXT NOT NULL,
		hash TEXT NOT NULL,
		size INTEGER NOT NULL,
		mtime INTEGER NOT NULL,
		created_at INTEGER NOT NULL,
		modified_at INTEGER NOT NULL,
		UNIQUE(corpus, path)
	);
	CREATE INDEX documents_hash ON documents(hash);
	CREATE TABLE chunks(
		id INTEGER PRIMARY KEY,
		hash TEXT NOT NULL,
		seq INTEGER NOT NULL,
		pos INTEGER NOT NULL,
		len INTEGER NOT NULL,
		start_line INTEGER NOT NULL,
		end_line INTEGER NOT NULL,
		tokens INTEGER NOT NULL,
		noise INTEGER NOT NULL DEFAULT 0,
		UNIQUE(hash, seq)
	);
	CREATE VIRTUAL TABLE chunks_fts USING fts5(
		title, body, ident,
		content='', contentless_delete=1,
		tokenize='porter unicode61 remove_diacritics 2'
	);`,
	`CREATE TABLE sessions(
		corpus TEXT NOT NULL,
		path TEXT NOT NULL,
		source TEXT NOT NULL,
		session_id TEXT NOT NULL,
		provider TEXT NOT NULL DEFAULT '',
		chat_type TEXT NOT NULL DEFAULT '',
		account_id TEXT NOT NULL DEFAULT '',
		conversation_id TEXT NOT NULL DEFAULT '',
		cwd TEXT NOT NULL DEFAULT '',
		title TEXT NOT NULL DEFAULT '',
		parent_id TEXT NOT NULL DEFAULT '',
		started_at INTEGER NOT NULL DEFAULT 0,
		started_raw TEXT NOT NULL DEFAULT '',
		transcript TEXT NOT NULL,
		projection_hash TEXT NOT NULL,
		projector_version INTEGER NOT NULL,
		spans TEXT NOT NULL,
		PRIMARY KEY(corpus, path)
	);
	CREATE INDEX sessions_transcript ON sessions(corpus, transcript);
	CREATE TABLE transcript_files(
		corpus TEXT NOT NULL,
		source TEXT NOT NULL,
		path TEXT NOT NULL,
		size INTEGER NOT NULL,
		mtime INTEGER NOT NULL,
		hash TEXT NOT NULL,
		projector_version INTEGER NOT NULL,
		checked_at INTEGER NOT NULL,
		stats TEXT NOT NULL DEFAULT '',
		error TEXT NOT NULL DEFAULT '',
		PRIMARY KEY(corpus, path)
	);`,
	`CREATE TABLE vectors(
		chunk_id INTEGER PRIMARY KEY,
		identity TEXT NOT NULL,
		vec BLOB NOT NULL
	);
	CREATE INDEX vectors_identity ON vectors(identity);`,
	memoriesSchema, // memories.go
	recordHashes,   // memories.go
	linksSchema,    // links.go
	vectorsVersion, // vectors.go
	// Version 8 was a first form of the common-grams table, whose pair
	// tokens prefix queries could reach; it never left development, and
	// version 9 rebuilds the table in the final form.
	`SELECT 1`,
	gramsTable,       // grams.go, with rebuildFTS after it
	neighboursSchema, // recall_links.go: explore's nearest-neighbour lists
	analysisSchema,   // curation_schema.go: clustering runs
	`SELECT 1`,       // contentIDs (contentid.go) does the work, in Go: it checks what is there first
	`SELECT 1`,       // pairsVersion: a full-text table may pair the index's own words (fence.go)
}
