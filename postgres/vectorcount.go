package postgres

import (
	"context"

	"github.com/cairnmemory/cairn"
)

var _ cairn.VectorProber = (*Store)(nil)

// HasVectors reports whether any of the agent's vectors was made by
// identity: one probe of vectors_identity (agent, identity, chunk_id).
func (s *Store) HasVectors(ctx context.Context, identity string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS(SELECT 1 FROM vectors WHERE agent = $1 AND identity = $2)`, s.agent, identity).Scan(&ok)
	return ok, classify("look for vectors", err)
}
