package sqlite

import (
	"context"
	"fmt"

	"github.com/cairnmemory/cairn"
)

var _ cairn.VectorProber = (*Store)(nil)

// hasVectorsSQL seeks the vectors_identity index once: no vector is read,
// and the cost does not grow with the number stored.
const hasVectorsSQL = `SELECT EXISTS(SELECT 1 FROM vectors WHERE identity = ?)`

// HasVectors reports whether any vector made by identity is stored.
func (s *Store) HasVectors(ctx context.Context, identity string) (bool, error) {
	var ok bool
	if err := s.r.QueryRowContext(ctx, hasVectorsSQL, identity).Scan(&ok); err != nil {
		return false, fmt.Errorf("look for vectors of %s: %w", identity, err)
	}
	return ok, nil
}
