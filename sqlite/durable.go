package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// DurableFile is the durable store's file, beside the index file: what
// cost model calls to make and cannot be rebuilt from the corpora —
// memories, their links, the pairs the sleep pass judged, the
// consolidation checkpoint (records done, windows committed, windows that
// failed). Deleting the index to rebuild it leaves this file alone; the
// memories corpus (documents rendered from the memories, indexed in the
// index) is rebuilt from it by the next sync.
//
// Every connection of a Store attaches the file as schema "durable", so
// the queries name its tables unqualified and reach it once the index no
// longer holds tables of those names. A transaction that writes both
// files is atomic per file only (WAL mode), so none does: consolidation
// and sleep write the durable tables alone, and the index's copy of the
// memories is derived and rebuilt.
const DurableFile = "memory.db"

// durableSchema names the attached durable store in SQL.
const durableSchema = "durable"

// DurablePath is the durable store of the index at indexPath: DurableFile
// in the same folder.
func DurablePath(indexPath string) string { return filepath.Join(filepath.Dir(indexPath), DurableFile) }

// durableTables are the tables that live in the durable store, with the
// columns a move out of the index copies.
var durableTables = []struct{ name, cols string }{
	{"memories", "id, kind, title, summary, body, about, corpus, thread, told_at, event_date, start_date, end_date, status, superseded_by, data, created_at, updated_at, window_id"},
	{"consolidated_records", "corpus, thread, pass, uid, window_id, hash"},
	{"consolidation_windows", "id, corpus, thread, pass, records, memories, summary, tokens_in, tokens_out, created_at"},
	{"memory_links", "from_id, to_id, kind, reason, added, created_at"},
	{"sleep_pairs", "a, b"},
}

// durableMigrations[i] takes the durable store from version i to i+1.
// Append only. Version 1 holds the tables the index held up to its schema
// 9 (memoriesSchema, recordHashes, linksSchema in their final form) and
// the failed-window state.
var durableMigrations = []string{
	`CREATE TABLE durable.memories(
		id TEXT PRIMARY KEY,
		kind TEXT NOT NULL,
		title TEXT NOT NULL DEFAULT '',
		summary TEXT NOT NULL DEFAULT '',
		body TEXT NOT NULL DEFAULT '',
		about TEXT NOT NULL DEFAULT '',
		corpus TEXT NOT NULL,
		thread TEXT NOT NULL,
		told_at INTEGER NOT NULL DEFAULT 0,
		event_date TEXT NOT NULL DEFAULT '',
		start_date TEXT NOT NULL DEFAULT '',
		end_date TEXT NOT NULL DEFAULT '',
		status TEXT NOT NULL DEFAULT 'active',
		superseded_by TEXT NOT NULL DEFAULT '',
		data TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL,
		window_id INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX durable.memories_kind ON memories(kind, status, told_at);
	CREATE INDEX durable.memories_thread ON memories(corpus, thread);
	CREATE INDEX durable.memories_window ON memories(window_id);
	CREATE TABLE durable.consolidated_records(
		corpus TEXT NOT NULL,
		thread TEXT NOT NULL,
		pass TEXT NOT NULL,
		uid TEXT NOT NULL,
		window_id INTEGER NOT NULL,
		hash TEXT NOT NULL DEFAULT '',
		PRIMARY KEY(corpus, thread, pass, uid)
	);
	CREATE INDEX durable.consolidated_records_window ON consolidated_records(window_id);
	CREATE TABLE durable.consolidation_windows(
		id INTEGER PRIMARY KEY,
		corpus TEXT NOT NULL,
		thread TEXT NOT NULL,
		pass TEXT NOT NULL,
		records INTEGER NOT NULL,
		memories INTEGER NOT NULL,
		summary TEXT NOT NULL DEFAULT '',
		tokens_in INTEGER NOT NULL DEFAULT 0,
		tokens_out INTEGER NOT NULL DEFAULT 0,
		created_at INTEGER NOT NULL
	);
	CREATE TABLE durable.memory_links(
		from_id TEXT NOT NULL,
		to_id TEXT NOT NULL,
		kind TEXT NOT NULL,
		reason TEXT NOT NULL DEFAULT '',
		added TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		PRIMARY KEY(from_id, to_id, kind)
	);
	CREATE INDEX durable.memory_links_to ON memory_links(to_id);
	CREATE TABLE durable.sleep_pairs(
		a TEXT NOT NULL,
		b TEXT NOT NULL,
		PRIMARY KEY(a, b)
	);
	CREATE INDEX durable.sleep_pairs_b ON sleep_pairs(b);
	` + failuresSchema,
	memoriesStamp,  // recall_links.go: a counter of memory and link changes
	curationSchema, // curation_schema.go: maintenance tasks, annotations, judgments
}

// DurableVersion is the newest durable store schema this package migrates
// to.
var DurableVersion = len(durableMigrations)

// attachDurable attaches the durable store to a new connection (the
// Store's ConnectHook calls it). A read-only connection attaches it
// read-only; an in-memory database attaches nothing.
func attachDurable(c *sqlite3.SQLiteConn) error {
	main := c.GetFilename("main")
	if main == "" {
		return nil
	}
	path := DurablePath(main)
	if _, err := c.Exec(`ATTACH DATABASE ? AS `+durableSchema, []driver.Value{path}); err != nil {
		return durableError(context.Background(), "open durable store", path, err)
	}
	// Commits are rare (one per window or group) and each cost model
	// calls: wait for the disk. Deleted rows are overwritten, as in the
	// index (the connection's pragmas ran before the attach).
	for _, p := range []string{"synchronous=FULL", "secure_delete=ON"} {
		if _, err := c.Exec(`PRAGMA `+durableSchema+`.`+p, nil); err != nil {
			return fmt.Errorf("set durable %s: %w", p, err)
		}
	}
	return nil
}

// createDurable creates the durable store's file (0600) when it is
// missing, so read-only connections can attach it.
func (s *Store) createDurable() error {
	path := DurablePath(s.Path)
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return &cairn.Error{Op: "open durable store", Path: path, Err: errors.New("not a regular file")}
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return &cairn.Error{Op: "open durable store", Path: path, Err: err}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil && !errors.Is(err, os.ErrExist) {
		return &cairn.Error{Op: "create durable store", Path: path, Err: err}
	}
	if f != nil {
		f.Close()
	}
	return nil
}

// openDurable brings the durable store up to date once the index is: it
// migrates the durable schema and moves durable tables still in the index
// out of it (see moveDurable). A store already up to date is only read.
func (s *Store) openDurable(ctx context.Context) error {
	if s.durableReady(ctx) {
		return nil
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	if err := s.migrateDurable(ctx, w); err != nil {
		return err
	}
	return s.moveDurable(ctx, w)
}

// durableReady reports, on the reader pool, whether the durable schema is
// current and the index holds none of its tables.
func (s *Store) durableReady(ctx context.Context) bool {
	if s.r == nil {
		return false
	}
	v, err := durableMeta(ctx, s.r, "schema_version")
	if err != nil || v != fmt.Sprint(DurableVersion) {
		return false
	}
	n, err := indexHoldsDurable(ctx, s.r)
	return err == nil && n == 0
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// durableMeta reads a key of the durable store's meta table ("" when
// absent, or when the table is not there yet).
func durableMeta(ctx context.Context, q rowQuerier, key string) (string, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM durable.sqlite_master WHERE type='table' AND name='durable_meta'`).Scan(&n); err != nil {
		return "", fmt.Errorf("read durable store: %w", err)
	}
	if n == 0 {
		return "", nil
	}
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM durable.durable_meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read durable store: %w", err)
	}
	return v, nil
}

// indexHoldsDurable counts the durable tables still in the index.
func indexHoldsDurable(ctx context.Context, q rowQuerier) (int, error) {
	var names []string
	for _, t := range durableTables {
		names = append(names, "'"+t.name+"'")
	}
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE type='table' AND name IN (`+strings.Join(names, ",")+`)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read index schema: %w", err)
	}
	return n, nil
}

func (s *Store) migrateDurable(ctx context.Context, w *sql.DB) error {
	path := DurablePath(s.Path)
	// WAL is a property of the file; it cannot change inside a transaction.
	if _, err := w.ExecContext(ctx, `PRAGMA `+durableSchema+`.journal_mode=WAL`); err != nil {
		return durableError(ctx, "open durable store", path, err)
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return durableError(ctx, "migrate durable store", path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS durable.durable_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		return durableError(ctx, "migrate durable store", path, err)
	}
	v, err := durableMeta(ctx, tx, "schema_version")
	if err != nil {
		return durableError(ctx, "migrate durable store", path, err)
	}
	version := 0
	fmt.Sscan(v, &version)
	if version > DurableVersion {
		return &cairn.Error{Op: "open durable store", Path: path,
			Err:  fmt.Errorf("schema version %d is newer than this binary's %d", version, DurableVersion),
			Hint: "upgrade cairn or use another data directory"}
	}
	for i := version; i < DurableVersion; i++ {
		if _, err := tx.ExecContext(ctx, durableMigrations[i]); err != nil {
			return durableError(ctx, fmt.Sprintf("migrate durable store to version %d", i+1), path, err)
		}
	}
	if err := setDurableMeta(ctx, tx, "schema_version", fmt.Sprint(DurableVersion)); err != nil {
		return durableError(ctx, "migrate durable store", path, err)
	}
	if err := tx.Commit(); err != nil {
		return durableError(ctx, "migrate durable store", path, err)
	}
	return nil
}

// durableHint is what to do about a durable store SQLite found damaged:
// it holds the memories and is never rebuilt.
const durableHint = "the durable store holds the memories and is never rebuilt: restore it from a backup"

// durableError names the durable store and says what happened to it by
// the kind of failure: an interrupt (the context ended, or SQLite was
// interrupted) changed nothing, since each step is one transaction and
// the next open runs it again; a damaged file is the backup hint; a file
// that cannot be opened, read or written (permissions, a full or failing
// disk) gets Diagnose's hint for that; anything else is named without a
// hint. The interrupt wraps the context's error (errors.Is
// context.Canceled).
func durableError(ctx context.Context, op, path string, err error) error {
	var ce *cairn.Error
	if errors.As(err, &ce) {
		return err
	}
	var se sqlite3.Error
	isSQLite := errors.As(err, &se)
	switch {
	case ctx.Err() != nil:
		return &cairn.Error{Op: op, Path: path, Err: fmt.Errorf("interrupted, nothing was changed: %w", ctx.Err())}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || isSQLite && se.Code == sqlite3.ErrInterrupt:
		return &cairn.Error{Op: op, Path: path, Err: fmt.Errorf("interrupted, nothing was changed: %w", err)}
	case isSQLite && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB):
		return &cairn.Error{Op: op, Path: path, Err: err, Hint: durableHint}
	}
	if d := Diagnose(op, path, err); d != err {
		return d
	}
	return &cairn.Error{Op: op, Path: path, Err: err}
}

func setDurableMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO durable.durable_meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write durable meta %s: %w", key, err)
	}
	return nil
}

// moveDurable moves the durable tables out of the index, where schemas up
// to 9 kept them (and where the index's migrations still create them,
// empty, in a new index). Two transactions, one per file, since a commit
// across both is not atomic: the first copies the rows into the durable
// store and marks the move done there; the second drops the tables from
// the index. Killed after the first, the next open finds the mark and only
// drops; killed during either, that transaction never happened. After the
// move, rows are copied only once: a new index's empty tables (the index
// deleted to rebuild it) are just dropped.
func (s *Store) moveDurable(ctx context.Context, w *sql.DB) error {
	n, err := indexHoldsDurable(ctx, w)
	if err != nil || n == 0 {
		return err
	}
	moved, err := durableMeta(ctx, w, "moved_from_index")
	if err != nil {
		return err
	}
	if moved == "" {
		if err := s.copyDurable(ctx, w); err != nil {
			return err
		}
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("move durable tables out of the index: %w", err)
	}
	defer tx.Rollback()
	for _, t := range durableTables {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS main.`+t.name); err != nil {
			return fmt.Errorf("drop %s from the index: %w", t.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("move durable tables out of the index: %w", err)
	}
	return nil
}

// copyDurable copies the index's durable tables into the durable store and
// marks the move done, in one transaction of the durable store (the index
// is only read). Rows the durable store already holds are kept.
func (s *Store) copyDurable(ctx context.Context, w *sql.DB) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("copy memories out of the index: %w", err)
	}
	defer tx.Rollback()
	total := 0
	for _, t := range durableTables {
		var exists int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE type='table' AND name=?`, t.name).Scan(&exists); err != nil {
			return fmt.Errorf("copy %s out of the index: %w", t.name, err)
		}
		if exists == 0 {
			continue
		}
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO durable.`+t.name+`(`+t.cols+`) SELECT `+t.cols+` FROM main.`+t.name)
		if err != nil {
			return fmt.Errorf("copy %s out of the index: %w", t.name, err)
		}
		n, _ := res.RowsAffected()
		total += int(n)
	}
	if err := setDurableMeta(ctx, tx, "moved_from_index", "1"); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("copy memories out of the index: %w", err)
	}
	if total > 0 && s.Logf != nil {
		s.Logf("moved %d rows of memories and checkpoints from %s to %s", total, s.Path, DurablePath(s.Path))
	}
	return nil
}

// driverNameAlone opens a durable store on its own, as the main database
// with nothing attached (OpenDurableAlone).
const driverNameAlone = "cairn_sqlite3_alone"

func init() {
	sql.Register(driverNameAlone, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec("PRAGMA trusted_schema=OFF", nil)
			return err
		},
	})
}

// OpenDurableAlone opens the durable store beside the index at indexPath
// read only and on its own, for when the index cannot be opened (damaged):
// the memories stay readable. The Store it returns answers Memories,
// Memory, MemoryLinks, DurableAlone and Close; nothing that needs the
// index. The file is never created or migrated: a missing one is an error
// matching os.ErrNotExist.
func OpenDurableAlone(ctx context.Context, indexPath string) (*Store, error) {
	path := DurablePath(indexPath)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &cairn.Error{Op: "open durable store", Path: path, Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &cairn.Error{Op: "open durable store", Path: path, Err: errors.New("not a regular file")}
	}
	db, err := sql.Open(driverNameAlone, dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("open durable store: %w", err)
	}
	db.SetMaxOpenConns(2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, durableError(ctx, "open durable store", path, err)
	}
	return &Store{Path: path, r: db}, nil
}

// DurableCounts are what a durable store holds.
type DurableCounts struct {
	Memories int `json:"memories"`
	Links    int `json:"links"`
	Windows  int `json:"windows"`
}

// DurableAlone runs quick_check on a store from OpenDurableAlone and
// counts its rows. A store never migrated (an empty file) counts zero.
func (s *Store) DurableAlone(ctx context.Context) ([]string, DurableCounts, error) {
	var c DurableCounts
	problems, err := s.integrity(ctx, "main", "quick_check")
	if err != nil || len(problems) > 0 {
		return problems, c, err
	}
	var tables int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name='memories'`).Scan(&tables); err != nil {
		return nil, c, s.diagnose("count memories", err)
	}
	if tables == 0 {
		return nil, c, nil
	}
	err = s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memory_links),
		(SELECT count(*) FROM consolidation_windows)`).Scan(&c.Memories, &c.Links, &c.Windows)
	if err != nil {
		return nil, c, s.diagnose("count memories", err)
	}
	return nil, c, nil
}
