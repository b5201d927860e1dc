package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// VectorIdentities returns the embedder identities (cairn.EmbedderIdentity
// Key) of the vectors stored in the index file at path, in order, and how
// many vectors each made; none when the file holds no vectors. It reads
// over a read-only connection of its own and never migrates: cairn version
// asks it, which must not change an index a newer or older build made. A
// file that does not exist is an error matching os.ErrNotExist. The
// identities are found by seeks in vectors_identity, one an identity; the
// counts read that index's entries, a few milliseconds a 100,000 vectors.
func VectorIdentities(ctx context.Context, path string) ([]string, []int, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil, err
	}
	db, err := sql.Open(driverName, dsn(path, true))
	if err != nil {
		return nil, nil, fmt.Errorf("read index vectors: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var ids []string
	var counts []int
	last := ""
	for {
		var id string
		err := db.QueryRowContext(ctx, `SELECT identity FROM vectors WHERE identity > ? ORDER BY identity LIMIT 1`, last).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, nil, Diagnose("read index vectors", path, err)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vectors WHERE identity = ?`, id).Scan(&n); err != nil {
			return nil, nil, Diagnose("read index vectors", path, err)
		}
		ids, counts, last = append(ids, id), append(counts, n), id
	}
	return ids, counts, nil
}
