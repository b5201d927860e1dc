package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/cairnmemory/cairn"
)

// LinksOfKind lists every link of one kind, without what its decision
// added (explore needs the pairs only).
func (s *Store) LinksOfKind(ctx context.Context, kind string) ([]cairn.MemoryLink, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT from_id, to_id, kind, reason, created_at FROM memory_links WHERE kind=?`, kind)
	if err != nil {
		return nil, fmt.Errorf("list %s links: %w", kind, err)
	}
	defer rows.Close()
	out := []cairn.MemoryLink{}
	for rows.Next() {
		var l cairn.MemoryLink
		var created int64
		if err := rows.Scan(&l.From, &l.To, &l.Kind, &l.Reason, &created); err != nil {
			return nil, fmt.Errorf("list %s links: %w", kind, err)
		}
		l.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}
