package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// HintDamaged is what to do about a damaged index file: everything in it
// is derived from the corpora, and the durable store (memories) lives in
// another file that a repair leaves alone.
const HintDamaged = "run cairn doctor --repair: it moves the damaged index aside and rebuilds it from the corpora; memories live in " + DurableFile + " and are kept"

// Diagnose names the database file and what to do when err is one of the
// SQLite failures a user can act on (a damaged file, a read-only file or
// folder, a full disk, a file that cannot be opened). A refusal to open or
// write in a folder this user cannot write says so, whatever errno SQLite
// met last. Other errors, and
// errors already diagnosed, come back as they are.
func Diagnose(op, path string, err error) error {
	var ce *cairn.Error
	if err == nil || errors.As(err, &ce) {
		return err
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return err
	}
	hint := ""
	switch se.Code {
	case sqlite3.ErrReadonly, sqlite3.ErrPerm, sqlite3.ErrCantOpen:
		if dir := filepath.Dir(path); path != "" && isDir(dir) && !writableDir(dir) {
			return &cairn.Error{Op: op, Path: path, Err: &notWritable{dir, se},
				Hint: "make the folder writable by this user (chmod u+w " + dir + "), or run cairn as the user who owns it: SQLite keeps the -wal and -shm files beside the database, even to read it"}
		}
	}
	switch se.Code {
	case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
		hint = HintDamaged
	case sqlite3.ErrReadonly:
		files := readOnlyFiles(path, writableFile)
		if len(files) > 0 {
			path = files[0]
		} else {
			files = []string{path}
		}
		hint = "the file or its folder is read-only: make both writable by this user (chmod u+w " + strings.Join(files, " ") + "), or run cairn as the user who owns them"
	case sqlite3.ErrPerm, sqlite3.ErrCantOpen:
		hint = "check that the folder exists and that this user may read and write it and the file"
	case sqlite3.ErrFull:
		hint = "the disk is full: free space, then run cairn sync again"
	case sqlite3.ErrIoErr:
		hint = "the disk reported an I/O error: check it, then run cairn doctor"
	default:
		return err
	}
	return &cairn.Error{Op: op, Path: path, Err: err, Hint: hint}
}

// notWritable is a SQLite open or write refused because the database's
// folder is not writable. SQLite's own message names the errno of its
// last attempt, which for a database in WAL mode is often its read-only
// try at a -shm file that is not there: "unable to open database file: no
// such file or directory" for a file that is there. This names the
// folder instead; the SQLite error stays in the chain.
type notWritable struct {
	dir string
	err sqlite3.Error
}

func (e *notWritable) Error() string {
	return "its folder " + e.dir + " is not writable by this user (SQLite: " + e.err.Code.Error() + ")"
}

func (e *notWritable) Unwrap() error { return e.err }

// readOnlyFiles names the files of a data directory that a write refused
// as read-only may have been refused on, those this user may not write,
// the one given first: the pair (IndexFile and DurableFile; every
// connection writes both, the durable store is attached, and SQLite's
// "attempt to write a readonly database" names neither: a read-only
// memory.db was reported as index.db, review finding F4) and their -wal
// and -shm files. SQLite makes a -shm with its database's mode, so after a
// run with a read-only index.db the -shm stays read-only when index.db is
// made writable again, and a hint naming index.db alone did not get the
// agent writing (a new user's try, 12-04). None, when every file may be
// written (root, or a read-only mount).
func readOnlyFiles(path string, writable func(string) bool) []string {
	dir, base := filepath.Dir(path), filepath.Base(path)
	cands := []string{path}
	if base == IndexFile || base == DurableFile {
		other := filepath.Join(dir, IndexFile)
		if base == IndexFile {
			other = filepath.Join(dir, DurableFile)
		}
		cands = append(cands, other, path+"-wal", path+"-shm", other+"-wal", other+"-shm")
	}
	var out []string
	for _, f := range cands {
		if _, err := os.Stat(f); err == nil && !writable(f) {
			out = append(out, f)
		}
	}
	return out
}

func isDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// diagnose is Diagnose for this store's file.
func (s *Store) diagnose(op string, err error) error { return Diagnose(op, s.Path, err) }

// Integrity runs SQLite's integrity check on the index file (quick: the
// cheaper quick_check, which skips the index-to-table cross checks) and
// returns what it found wrong; none means the file is sound. A file that
// is not a database is an error, diagnosed.
func (s *Store) Integrity(ctx context.Context, quick bool) ([]string, error) {
	pragma := "integrity_check"
	if quick {
		pragma = "quick_check"
	}
	return s.integrity(ctx, "main", pragma)
}

func (s *Store) integrity(ctx context.Context, schema, pragma string) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `PRAGMA `+schema+`.`+pragma)
	if err != nil {
		return nil, s.diagnose("check index", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			return nil, s.diagnose("check index", err)
		}
		if msg != "ok" {
			problems = append(problems, msg)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.diagnose("check index", err)
	}
	return problems, nil
}

// DurableIntegrity runs the integrity check on the durable store attached
// to this index (memory.db), read only.
func (s *Store) DurableIntegrity(ctx context.Context) ([]string, error) {
	return s.integrity(ctx, durableSchema, "integrity_check")
}

// CheckFTS runs FTS5's own consistency check of the full-text index; nil
// means it is sound.
func (s *Store) CheckFTS(ctx context.Context) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')`); err != nil {
		return fmt.Errorf("check full-text index: %w", err)
	}
	return nil
}

// Strays counts stray rows (cairn.Strays).
type Strays = cairn.Strays

// FindStrays counts stray rows (a scan of each table; a maintenance check,
// not for every sync).
func (s *Store) FindStrays(ctx context.Context) (Strays, error) {
	var st Strays
	err := s.r.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM content WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.cid = content.id)),
		(SELECT count(*) FROM chunks_fts_docsize f WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = f.id)),
		(SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.chunk_id)),
		(SELECT count(*) FROM chunks c WHERE c.noise = 0 AND NOT EXISTS (SELECT 1 FROM chunks_fts_docsize f WHERE f.id = c.id))`).
		Scan(&st.Content, &st.FTSRows, &st.Vectors, &st.Unindexed)
	if err != nil {
		return st, s.diagnose("find stray rows", err)
	}
	return st, nil
}

// DeleteStrayVectors deletes vectors whose chunk is gone.
func (s *Store) DeleteStrayVectors(ctx context.Context) (int, error) {
	w, err := s.writer()
	if err != nil {
		return 0, err
	}
	res, err := w.ExecContext(ctx, `DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = vectors.chunk_id)`)
	if err != nil {
		return 0, s.diagnose("delete stray vectors", err)
	}
	n, _ := res.RowsAffected()
	s.gen.Add(1)
	return int(n), nil
}

// RebuildFTS drops the full-text index and builds it again from the
// stored chunks, in one transaction: what the index derives from chunks
// (BM25 statistics, term lists) comes out as a fresh sync would make it.
func (s *Store) RebuildFTS(ctx context.Context) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return s.diagnose("rebuild full-text index", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, gramsTable); err != nil {
		return s.diagnose("rebuild full-text index", err)
	}
	if err := rebuildFTS(ctx, s, tx); err != nil {
		return s.diagnose("rebuild full-text index", err)
	}
	if err := tx.Commit(); err != nil {
		return s.diagnose("rebuild full-text index", err)
	}
	s.wrote.Store(true)
	s.gen.Add(1)
	return nil
}

// IsDamaged reports whether err says the database file is damaged or not a
// database at all.
func IsDamaged(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB
	}
	return err != nil && (strings.Contains(err.Error(), "malformed") || strings.Contains(err.Error(), "not a database"))
}

// QuickCheckFile runs quick_check on the index file at path over a
// read-only connection of its own (the open store's pools are left
// alone) and fails as QuickCheck does: with the file and the remedy when
// it finds damage, or when the file cannot be read as a database. It
// reads every page: its cost grows with the file.
func QuickCheckFile(ctx context.Context, path string) error {
	db, err := sql.Open(driverName, dsn(path, true))
	if err != nil {
		return fmt.Errorf("check index: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return (&Store{Path: path, r: db}).QuickCheck(ctx)
}
