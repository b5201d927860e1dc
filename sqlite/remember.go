package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

// PendingChunksOf returns the non-noise chunks of the given contents that
// have no vector made by identity, in chunk id order.
func (s *Store) PendingChunksOf(ctx context.Context, identity string, hashes []string) ([]cairn.PendingChunk, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	args := []any{identity}
	for _, h := range hashes {
		args = append(args, h)
	}
	q := `SELECT c.id, substr(ct.doc, c.pos + 1, c.len) FROM chunks c
		JOIN content ct ON ct.id = c.cid
		LEFT JOIN vectors v ON v.chunk_id = c.id AND v.identity = ?
		WHERE ct.hash IN (?` + strings.Repeat(",?", len(hashes)-1) + `) AND c.noise = 0 AND v.chunk_id IS NULL ORDER BY c.id`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list chunks to embed: %w", err)
	}
	defer rows.Close()
	var out []cairn.PendingChunk
	for rows.Next() {
		var p cairn.PendingChunk
		var text []byte
		if err := rows.Scan(&p.ID, &text); err != nil {
			return nil, fmt.Errorf("list chunks to embed: %w", err)
		}
		p.Text = string(text)
		out = append(out, p)
	}
	return out, rows.Err()
}
