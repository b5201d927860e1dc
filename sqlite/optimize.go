package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Segments describes the b-trees ("segments") of the full-text index, read
// from FTS5's structure record. Each term of a query is looked up in every
// segment, and a row deleted from an older segment leaves a tombstone there
// that every read of that segment checks until a merge drops the row.
type Segments struct {
	Levels     int   // levels holding at least one segment
	Count      int   // segments
	Pages      int   // leaf pages over all segments
	Tombstones int   // tombstone entries over all segments
	Merging    int   // segments that are inputs of an incremental merge in progress
	Sizes      []int // leaf pages of each segment, oldest level first
}

// FTSSegments reads the full-text index's structure record.
func (s *Store) FTSSegments(ctx context.Context) (Segments, error) {
	var b []byte
	if err := s.r.QueryRowContext(ctx, `SELECT block FROM chunks_fts_data WHERE id = 10`).Scan(&b); err != nil {
		return Segments{}, fmt.Errorf("read index structure: %w", err)
	}
	seg, err := parseStructure(b)
	if err != nil {
		return Segments{}, fmt.Errorf("read index structure: %w", err)
	}
	return seg, nil
}

// parseStructure decodes FTS5's structure record (fts5_index.c): a 4-byte
// cookie, an optional 4-byte 0xff000001 marking the second format (with
// per-segment origin and tombstone counts, used by contentless_delete
// tables), then varints: levels, segments, write counter, and per level its
// merge state and segments with their ids and first and last leaf pages.
func parseStructure(b []byte) (Segments, error) {
	if len(b) < 4 {
		return Segments{}, fmt.Errorf("structure record of %d bytes", len(b))
	}
	i := 4
	v2 := len(b) >= 8 && b[4] == 0xff && b[5] == 0 && b[6] == 0 && b[7] == 1
	if v2 {
		i = 8
	}
	bad := false
	next := func() int {
		v, n := fts5Varint(b[i:])
		if n == 0 {
			bad = true
			return 0
		}
		i += n
		return int(v)
	}
	var seg Segments
	levels := next()
	seg.Count = next()
	next() // write counter
	if bad {
		return Segments{}, fmt.Errorf("structure record cut short at byte %d of %d", i, len(b))
	}
	for range levels {
		seg.Merging += next() // segments being merged
		ns := next()
		if ns > 0 {
			seg.Levels++
		}
		for range ns {
			next() // segment id
			first, last := next(), next()
			if v2 {
				next() // origins
				next()
				next() // tombstone pages
				seg.Tombstones += next()
				next() // entries
			}
			seg.Sizes = append(seg.Sizes, last-first+1)
			seg.Pages += last - first + 1
		}
		if bad {
			return Segments{}, fmt.Errorf("structure record cut short at byte %d of %d", i, len(b))
		}
	}
	return seg, nil
}

// fts5Varint decodes SQLite's big-endian varint (up to 9 bytes, the ninth
// contributing all 8 bits); n is 0 when b ends inside it.
func fts5Varint(b []byte) (v uint64, n int) {
	for k := 0; k < 9 && k < len(b); k++ {
		c := b[k]
		if k == 8 {
			return v<<8 | uint64(c), 9
		}
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, k + 1
		}
	}
	return 0, 0
}

// MergeSmall merges segments of the same level, usermerge or more at a time
// (at least 2), writing up to about pages leaf pages; FTS5's usermerge
// setting is set back to its default, 4, afterwards. It leaves the oldest,
// largest segment alone: FTS5's 'merge' with a negative count, which merges
// across levels, starts an incremental merge of everything, which is
// Optimize in pieces (at 1M chunks 500 pages a call, 210 calls).
//
// Measured at 1M chunks after cairnbench's 1% edit sync (bench/RESULTS.md,
// bench/cmd/lextail -merge): 8 segments to 4 in 76 ms, and no change in
// search CPU; Optimize (one segment, its 9,969 tombstones dropped) took 73 s
// at load 19 and cut search CPU p50 4.26 -> 3.42 ms, p99 29.9 -> 21.5 ms.
// The gain is in the oldest segment, so no bounded step after a sync gets
// it; the engine optimizes after syncs that write a fifth of the index.
func (s *Store) MergeSmall(ctx context.Context, usermerge, pages int) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	for _, q := range []struct {
		sql string
		arg int
	}{
		{`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('usermerge', ?)`, usermerge},
		{`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', ?)`, pages},
		{`INSERT INTO chunks_fts(chunks_fts, rank) VALUES('usermerge', ?)`, 4},
	} {
		if _, err := w.ExecContext(ctx, q.sql, q.arg); err != nil {
			return fmt.Errorf("merge index segments: %w", err)
		}
	}
	return nil
}

// Reads counts the lexical searches this Store has begun; with
// Generation (bumped by writes) it tells idle-time maintenance whether the
// index was used since it last looked.
func (s *Store) Reads() int64 { return s.reads.Load() }

// idleTombstoneShare is the share of rows that tombstones must reach
// before idle-time merging rewrites the index (with idleSegments, the
// number of segments that does it alone). At 1M chunks a 1% edit sync
// left 9,969 tombstones in the first segment, and merging everything
// into one segment cut search CPU p99 by 28% (bench/RESULTS.md, "Query
// latency at 1M chunks, continued"); merging only the small segments
// gained nothing. Rewriting the index costs about 1.2 ms of CPU a changed
// chunk at that churn, so it waits for a share worth the rewrite.
const (
	idleTombstoneShare = 0.005
	idleSegments       = 16
)

// IdleMergeDue reports whether the full-text index is worth rebuilding or
// merging into one segment in idle time (Store.MergeStep): a rebuild with
// a new pair list is in progress, a retired table waits to be emptied, or
// the index's frequent terms drifted
// from its list (pairs.go; the rebuild then starts), a merge is in
// progress, tombstones reach idleTombstoneShare of the rows, or the
// segments number idleSegments.
func (s *Store) IdleMergeDue(ctx context.Context) (bool, error) {
	if building, err := s.PairBuilding(ctx); err != nil || building {
		return building, err
	}
	if retired, err := s.Retired(ctx); err != nil || retired {
		return retired, err
	}
	sp, err := s.Span(ctx)
	if err != nil {
		return false, err
	}
	if want, drifted, err := s.pairsDrifted(ctx, int(sp.Rows)); err != nil {
		return false, err
	} else if drifted {
		return true, s.StartPairs(ctx, want)
	}
	seg, err := s.FTSSegments(ctx)
	if err != nil {
		return false, err
	}
	worn := seg.Tombstones > 0 && float64(seg.Tombstones) >= idleTombstoneShare*float64(sp.Rows)
	return seg.Merging > 0 || worn || seg.Count >= idleSegments, nil
}

// MergeStep writes up to about pages leaf pages of a merge of every
// full-text segment into one (FTS5's 'merge' with a negative count: the
// incremental form of 'optimize', whose result it reaches, tombstones
// dropped, in pieces) and reports whether more is left. Each step is one
// write transaction of its own: a sync that wants the writer waits for at
// most one step, and readers (WAL) do not wait at all. A cancelled ctx
// interrupts the step, which then rolls back and leaves the index as it
// was. A step that changes nothing (FTS5 found nothing to merge) reports
// nothing left, so a caller's loop ends.
//
// While a rebuild with a new pair list is in progress (IdleMergeDue
// started it), a step is a rebuild step of pairStepChunks chunks instead
// (Store.PairStep); once the new table is in, the steps first empty the
// old one (dropRetiredStep: up to retiredDataRows*pages of its pages a
// step), then merge the new table's segments.
func (s *Store) MergeStep(ctx context.Context, pages int) (more bool, err error) {
	if pages <= 0 {
		return false, fmt.Errorf("merge index segments: %d pages: want a positive number", pages)
	}
	if building, err := s.PairBuilding(ctx); err != nil {
		return false, err
	} else if building {
		_, err := s.PairStep(ctx, pairStepChunks)
		return err == nil, err // the swap leaves a retired table to empty
	}
	if retired, err := s.Retired(ctx); err != nil {
		return false, err
	} else if retired {
		left, err := s.dropRetiredStep(ctx, pages)
		if err != nil {
			return false, err
		}
		seg, err := s.FTSSegments(ctx)
		return err == nil && (left || seg.Count > 1 || seg.Merging > 0 || seg.Tombstones > 0), err
	}
	w, err := s.writer()
	if err != nil {
		return false, err
	}
	var before, after []byte
	if err := w.QueryRowContext(ctx, `SELECT block FROM chunks_fts_data WHERE id = 10`).Scan(&before); err != nil {
		return false, fmt.Errorf("merge index segments: %w", err)
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', ?)`, -pages); err != nil {
		return false, fmt.Errorf("merge index segments: %w", err)
	}
	if err := w.QueryRowContext(ctx, `SELECT block FROM chunks_fts_data WHERE id = 10`).Scan(&after); err != nil {
		return false, fmt.Errorf("merge index segments: %w", err)
	}
	if bytes.Equal(before, after) {
		return false, nil
	}
	seg, err := parseStructure(after)
	if err != nil {
		return false, fmt.Errorf("merge index segments: %w", err)
	}
	return seg.Count > 1 || seg.Merging > 0 || seg.Tombstones > 0, nil
}

// Retired full-text tables.
//
// A full-text table taken out of use (the old table at a pair rebuild's
// swap, an abandoned rebuild's table) is not dropped in the transaction
// that replaces it: with secure_delete on (store.go) SQLite writes zeros
// over every page a DROP frees, and at 1M chunks the old table's 1.2 GB
// made the swap the rebuild's longest step (5.06 s of 187 s,
// bench/RESULTS.md). Its shadow tables are renamed to fts_retired_N_*
// instead (plain tables then, no longer the virtual table's, so dropping
// the virtual table frees only its config page), and idle-time steps
// delete their rows in bounded batches and drop each once empty
// (dropRetiredStep). Readers never read them; an older build leaves them
// alone (its pages stay in use until a newer build empties them).

// retiredGlob matches the names of retired shadow tables.
const retiredGlob = "fts_retired_*"

// Rows a retired-table step deletes for each page of a merge step's
// bound: a row of a %_data table is one leaf page (FTS5 pages fit a
// SQLite page), and freeing a page costs a few percent of merging one;
// the other shadow tables hold rows of tens of bytes, at least 64 to a
// page.
const (
	retiredDataRows  = 16
	retiredSmallRows = 16 * 64
)

// retireFTS takes the full-text table table out of use in tx: its shadow
// tables are renamed to a free fts_retired_N_ prefix and the virtual table
// is dropped, which then frees only its config table. Nothing happens when
// the table does not exist.
func retireFTS(ctx context.Context, tx *sql.Tx, table string) error {
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&exists); err != nil {
		return fmt.Errorf("retire %s: %w", table, err)
	}
	if exists == 0 {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(CAST(substr(name, 13) AS INTEGER)), 0) + 1
		FROM sqlite_master WHERE type = 'table' AND name GLOB ?`, retiredGlob).Scan(&n); err != nil {
		return fmt.Errorf("retire %s: %w", table, err)
	}
	for _, shadow := range []string{"data", "idx", "docsize", "content"} {
		var has int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table+"_"+shadow).Scan(&has); err != nil {
			return fmt.Errorf("retire %s: %w", table, err)
		}
		if has == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %s_%s RENAME TO fts_retired_%d_%s`, table, shadow, n, shadow)); err != nil {
			return fmt.Errorf("retire %s: %w", table, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE `+table); err != nil {
		return fmt.Errorf("retire %s: %w", table, err)
	}
	return nil
}

// retiredTables lists the retired shadow tables, oldest set first.
func retiredTables(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB ?
		ORDER BY CAST(substr(name, 13) AS INTEGER), name`, retiredGlob)
	if err != nil {
		return nil, fmt.Errorf("read retired full-text tables: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("read retired full-text tables: %w", err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// dropRetiredStep deletes, in one write transaction, up to
// retiredDataRows*pages rows of the first retired table (retiredSmallRows*pages
// of one that is not a %_data table), drops it when that empties it, and
// reports whether retired tables are left.
func (s *Store) dropRetiredStep(ctx context.Context, pages int) (more bool, err error) {
	w, err := s.writer()
	if err != nil {
		return false, err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("drop retired full-text table: %w", err)
	}
	defer tx.Rollback()
	names, err := retiredTables(ctx, tx)
	if err != nil || len(names) == 0 {
		return false, err
	}
	name := names[0]
	limit := retiredSmallRows * pages
	if strings.HasSuffix(name, "_data") {
		limit = retiredDataRows * pages
	}
	// The %_idx table is WITHOUT ROWID, keyed by (segid, term).
	key := "rowid"
	if strings.HasSuffix(name, "_idx") {
		key = "(segid, term)"
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`DELETE FROM %s WHERE %s IN (SELECT %s FROM %s LIMIT ?)`, name, key, strings.Trim(key, "()"), name), limit); err != nil {
		return false, fmt.Errorf("drop retired full-text table %s: %w", name, err)
	}
	var left int
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+name+`)`).Scan(&left); err != nil {
		return false, fmt.Errorf("drop retired full-text table %s: %w", name, err)
	}
	if left == 0 {
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+name); err != nil {
			return false, fmt.Errorf("drop retired full-text table %s: %w", name, err)
		}
		names = names[1:]
	}
	if err := tx.Commit(); err != nil {
		return false, interrupted(ctx, err)
	}
	return len(names) > 0, nil
}

// Retired reports whether retired full-text tables wait to be emptied.
func (s *Store) Retired(ctx context.Context) (bool, error) {
	names, err := retiredTables(ctx, s.r)
	return len(names) > 0, err
}
