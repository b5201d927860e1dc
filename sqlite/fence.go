package sqlite

// The schema fence of pair lists.
//
// A full-text table with the index's own pair words (pairs.go) names them
// in its tokenizer's arguments ("cairn words 'LIST' porter ..."). A build
// before pairsVersion reads "words" as the wrapped tokenizer's name, so it
// cannot load such a table: it would open the index (the schema and
// feature versions it checks are its own) and then fail inside SQLite at
// its first search or sync with "vtable constructor failed: chunks_fts".
// An index whose schema holds such a table, the live one or a rebuild's
// chunks_fts_next, therefore records schema version pairsVersion (or a
// later one), which older builds refuse at open with their "schema version
// N is newer than this binary's" error; an index without one records
// pairsVersion-1, since its schema is the one those builds made, and they
// keep opening it. The version is set in the transaction that creates,
// swaps or drops such a table, and checked at every open: an index paired
// before the fence existed (recorded pairsVersion-1 with a pair list) is
// fenced at its next open, and one whose pair list was dropped again (a
// rebuild with no words, or the full-text table rebuilt plain) goes back
// to pairsVersion-1.

import (
	"context"
	"database/sql"
	"fmt"
)

// pairsVersion is the schema version from which a full-text table may
// carry a pair list; its migration changes nothing, the version is the
// fence.
const pairsVersion = 13

// pairTablesSQL is a subquery that is true when a full-text table of the
// schema (the live one or a rebuild's) has its own pair words.
const pairTablesSQL = `EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table'
	AND name IN ('chunks_fts', 'chunks_fts_next') AND instr(sql, 'cairn words ') > 0)`

// recordedVersion is the schema version an index records: SchemaVersion,
// or pairsVersion-1 when no table of its schema has a pair list and no
// migration after pairsVersion exists.
func recordedVersion(paired bool) int {
	if paired || SchemaVersion > pairsVersion {
		return SchemaVersion
	}
	return pairsVersion - 1
}

// fencePairs records the schema version for the tables tx sees.
func fencePairs(ctx context.Context, tx *sql.Tx) error {
	var paired bool
	if err := tx.QueryRowContext(ctx, `SELECT `+pairTablesSQL).Scan(&paired); err != nil {
		return fmt.Errorf("read the full-text tables: %w", err)
	}
	return setMeta(ctx, tx, "schema_version", fmt.Sprint(recordedVersion(paired)))
}
