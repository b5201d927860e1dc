package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
)

// failuresSchema keeps, per record and pass, the runs in a row whose
// answer for the record's window was unusable, with the record's hash then
// and the last reason (part of the durable store's first version).
const failuresSchema = `CREATE TABLE durable.consolidation_failures(
		corpus TEXT NOT NULL,
		thread TEXT NOT NULL,
		pass TEXT NOT NULL,
		uid TEXT NOT NULL,
		hash TEXT NOT NULL DEFAULT '',
		tries INTEGER NOT NULL,
		reason TEXT NOT NULL DEFAULT '',
		updated_at INTEGER NOT NULL,
		PRIMARY KEY(corpus, thread, pass, uid)
	);`

// RecordFailure counts one more failed run for each of a window's records
// (starting again at one for a record whose hash changed) in one
// transaction and returns the window's tries: the most of its records'.
// A write the durable store refuses names it (Diagnose).
func (s *Store) RecordFailure(ctx context.Context, f cairn.FailureCommit) (int, error) {
	n, err := s.recordFailure(ctx, f)
	return n, s.diagnose("record consolidation failure", err)
}

func (s *Store) recordFailure(ctx context.Context, f cairn.FailureCommit) (int, error) {
	if len(f.Hashes) != 0 && len(f.Hashes) != len(f.Records) {
		return 0, fmt.Errorf("record failure of %s: %d hashes for %d records", f.Thread, len(f.Hashes), len(f.Records))
	}
	db, err := s.writer()
	if err != nil {
		return 0, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin failure record: %w", err)
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	tries := 0
	for i, uid := range f.Records {
		hash := ""
		if len(f.Hashes) > 0 {
			hash = f.Hashes[i]
		}
		var n int
		err := tx.QueryRowContext(ctx, `INSERT INTO consolidation_failures(corpus, thread, pass, uid, hash, tries, reason, updated_at)
			VALUES(?,?,?,?,?,1,?,?)
			ON CONFLICT(corpus, thread, pass, uid) DO UPDATE SET
				tries = CASE WHEN hash = excluded.hash THEN tries + 1 ELSE 1 END,
				hash = excluded.hash, reason = excluded.reason, updated_at = excluded.updated_at
			RETURNING tries`, f.Corpus, f.Thread, f.Pass, uid, hash, f.Reason, now).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("record failure of %s: %w", uid, err)
		}
		tries = max(tries, n)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("record failure of %s: %w", f.Thread, err)
	}
	return tries, nil
}

// FailedRecords returns the failure state of a thread's records in a pass.
func (s *Store) FailedRecords(ctx context.Context, corpus, thread, pass string) (map[string]cairn.FailedRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT uid, hash, tries, reason FROM consolidation_failures WHERE corpus=? AND thread=? AND pass=?`,
		corpus, thread, pass)
	if err != nil {
		return nil, fmt.Errorf("read failures of %s: %w", thread, err)
	}
	defer rows.Close()
	out := map[string]cairn.FailedRecord{}
	for rows.Next() {
		var uid string
		var f cairn.FailedRecord
		if err := rows.Scan(&uid, &f.Hash, &f.Tries, &f.Reason); err != nil {
			return nil, fmt.Errorf("read failures of %s: %w", thread, err)
		}
		out[uid] = f
	}
	return out, rows.Err()
}

// clearFailures forgets the failures of records a window committed.
func clearFailures(ctx context.Context, tx *sql.Tx, w cairn.WindowCommit) error {
	for _, uid := range w.Records {
		if _, err := tx.ExecContext(ctx, `DELETE FROM consolidation_failures WHERE corpus=? AND thread=? AND pass=? AND uid=?`,
			w.Corpus, w.Thread, w.Pass, uid); err != nil {
			return fmt.Errorf("clear failure of %s: %w", uid, err)
		}
	}
	return nil
}
