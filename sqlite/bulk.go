package sqlite

/*
int sqlite3_config(int, ...);
int sqlite3_initialize(void);
long long sqlite3_memory_used(void);

// SQLITE_CONFIG_MEMSTATUS (9) off: sqlite3_config is variadic, which cgo
// cannot call, hence the wrapper. It fails with SQLITE_MISUSE once SQLite
// is initialized.
static int cairn_memstatus_off(void) {
	int rc = sqlite3_config(9, 0);
	if (rc == 0) rc = sqlite3_initialize();
	return rc;
}
*/
import "C"

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// Memory statistics off. With them on (SQLite's default), every malloc
// and free of a THREADSAFE=1 build takes the allocator's global mutex to
// count the bytes in use: on a first index, one lock and unlock per
// allocation of the tokenizer, the pending-postings hash and the segment
// writer (pthread mutex calls were 2.6% of the writer's samples in
// session 12-04). Nothing here reads the statistics or sets a soft heap
// limit, which needs them. It must run before SQLite initializes: the
// auto-extensions registered by the package's init functions (rank.go,
// docstates.go) initialize it, and package-level variables are set before
// any init function runs.
var memStatusOff = C.cairn_memstatus_off() == 0

// sqliteMemoryUsed is what SQLite counts in use: 0 while memory
// statistics are off.
func sqliteMemoryUsed() int64 { return int64(C.sqlite3_memory_used()) }

// Bulk loading: a batch with at least bulkMinRows full-text rows (the
// batches of a first index, a big import) writes them with FTS5's merging
// deferred. The settings are set back before the batch commits, so what
// is committed is FTS5's own configuration as it was; a batch that fails
// or is cancelled rolls them back with everything else (FTS5 reloads its
// settings when the structure record's cookie changes).
//
// Deferred merging: automerge 0 and crisismerge bulkCrisisMerge, so the
// batch's postings reach the index as level-0 segments that nothing merges
// meanwhile, and a pending-postings hash of bulkHashSize, so there are a
// fourth as many of them. With automerge a first index merged its
// segments level by level while it grew, and the sync's final Optimize
// merged them all once more; now that Optimize does the one merge.
// Setting a value back flushes the batch's last postings first, still
// unmerged (FTS5's fts5SpecialInsert flushes before it changes a setting).
//
// secure_delete stays on throughout: pages a merge frees are zeroed even
// when every posting on them is also in the merged segment, because that
// segment's postings may be removed later while an unzeroed copy on the
// free list would stay in the file (TestBulkRemovedTextLeavesFile).
//
// The docs corpus of issue 19 (561 files, 31,616 chunks, five batches,
// all in bulk), seven alternations against fe69b65 at load 11 to 13
// (bench/i1-remeasure.sh): the writer alone wrote 130 -> 100 MB, its
// thread CPU 1.06 -> 0.93 s, a first index's CPU 1.50 -> 1.37 s; chunks,
// postings, hits and scores identical (bench/RESULTS.md, session 12-04).
const (
	bulkHashSize    = 4 << 20
	bulkCrisisMerge = 1000
)

// bulkMinRows is the fewest full-text rows a batch loads in bulk (a
// variable for tests).
var bulkMinRows = 1000

// bulkShare: a batch loads in bulk only when its rows are at least
// 1/bulkShare of the rows already indexed. The segments a bulk batch
// leaves unmerged wait for the sync's Optimize, which the engine runs
// after a sync that wrote a fifth of the index; a batch small beside a
// big index (any batch at 1M chunks: a 32 MB batch is about 50,000)
// keeps FTS5's merging as it comes, so searches after it do not read
// more segments. A first index doubles its batches, so each is about as
// big as everything before it, but its last holds what is left: on the
// docs corpus of issue 19, 3,105 rows after 28,482 (1/8 left it out).
const bulkShare = 16

// bulkLoadHook, when set (by tests), runs inside a batch loaded in bulk,
// just before its full-text rows are written; an error fails the batch.
var bulkLoadHook func(ctx context.Context, tx *sql.Tx) error

// ftsDefaults are FTS5's defaults of the settings bulk loading changes, for
// an index whose configuration table has no row of them.
var ftsDefaults = map[string]int64{"automerge": 4, "crisismerge": 16, "hashsize": 1 << 20}

// bulkSettings are the values bulk loading sets, in the order it sets them.
var bulkSettings = []struct {
	key string
	val int64
}{{"automerge", 0}, {"crisismerge", bulkCrisisMerge}, {"hashsize", bulkHashSize}}

// beginBulk defers merging for a batch of rows full-text rows and returns
// the function that sets FTS5's settings back; nil when the batch is too
// small to load in bulk.
func beginBulk(ctx context.Context, tx *sql.Tx, rows int) (end func() error, err error) {
	if rows < bulkMinRows {
		return nil, nil
	}
	indexed, err := ftsRows(ctx, tx)
	if err != nil {
		return nil, err
	}
	if int64(rows)*bulkShare < indexed {
		return nil, nil
	}
	old, err := ftsSettings(ctx, tx)
	if err != nil {
		return nil, err
	}
	for _, s := range bulkSettings {
		if err := setFTS(ctx, tx, s.key, s.val); err != nil {
			return nil, err
		}
	}
	return func() error {
		for _, s := range bulkSettings {
			if err := setFTS(ctx, tx, s.key, old[s.key]); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// ftsRows is the number of rows in the full-text index: the first varint
// of FTS5's averages record (0 when it has none yet).
func ftsRows(ctx context.Context, tx *sql.Tx) (int64, error) {
	var b []byte
	err := tx.QueryRowContext(ctx, `SELECT block FROM chunks_fts_data WHERE id = 1`).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read full-text row count: %w", err)
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, k := fts5Varint(b)
	if k == 0 {
		return 0, fmt.Errorf("read full-text row count: averages record of %d bytes", len(b))
	}
	return int64(n), nil
}

// ftsSettings reads the index's values of the settings bulk loading
// changes (FTS5's default where it has none).
func ftsSettings(ctx context.Context, tx *sql.Tx) (map[string]int64, error) {
	out := map[string]int64{}
	for k, v := range ftsDefaults {
		out[k] = v
	}
	rows, err := tx.QueryContext(ctx, `SELECT k, v FROM chunks_fts_config WHERE k IN ('automerge', 'crisismerge', 'hashsize')`)
	if err != nil {
		return nil, fmt.Errorf("read full-text settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read full-text settings: %w", err)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("read full-text setting %s: %q: %w", k, v, err)
		}
		out[k] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read full-text settings: %w", err)
	}
	return out, nil
}

func setFTS(ctx context.Context, tx *sql.Tx, key string, val int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts, rank) VALUES(?, ?)`, key, val); err != nil {
		return fmt.Errorf("set full-text %s: %w", key, err)
	}
	return nil
}
