package postgres

import (
	"context"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Counts of some corpora, for a team server's token that may read only
// those (engine.IndexStats and engine.ScopedPendingEmbeddings under a
// corpus grant). Without CorpusStats a scoped token's diagnostics read 0
// chunks on PostgreSQL and Citus (the engine counts documents through
// DocStates when a store cannot count by corpus); without CountPendingIn
// the engine walks the vector lane's chunk map. Both are one statement of
// one agent (one task on Citus), as sqlite's are.

// corpusChunksSQL is the documents of agent $1 in corpora $2 (d), the
// contents they hold, each once (h), and those contents' chunks.
const corpusChunksSQL = `WITH d AS MATERIALIZED (SELECT hash FROM documents WHERE agent = $1 AND corpus = ANY($2)),
	h AS MATERIALIZED (SELECT DISTINCT hash FROM d)`

// CorpusStats is Stats of some corpora: their documents, the contents
// those documents hold and the chunks of those contents, each content
// once (a content two corpora share counts once). Bytes is 0: the rows of
// the other corpora sit in the same tables, and their size is not one
// corpus's to tell.
func (s *Store) CorpusStats(ctx context.Context, corpora []string) (cairn.IndexStats, error) {
	var st cairn.IndexStats
	if len(corpora) == 0 {
		return st, nil
	}
	err := s.pool.QueryRow(ctx, corpusChunksSQL+`
		SELECT (SELECT count(*) FROM d), (SELECT count(*) FROM h),
			(SELECT count(*) FROM chunks c WHERE c.agent = $1 AND c.hash IN (SELECT hash FROM h))`, s.agent, corpora).
		Scan(&st.Documents, &st.Contents, &st.Chunks)
	return st, classify("count corpora "+strings.Join(corpora, ", "), err)
}

// CountPendingIn counts the chunks of some corpora that PendingChunks
// would return for identity: indexed (not noise), of a content a document
// of those corpora holds, without a vector made by identity; each chunk
// once.
func (s *Store) CountPendingIn(ctx context.Context, identity string, corpora []string) (int, error) {
	if len(corpora) == 0 {
		return 0, nil
	}
	var n int
	err := s.pool.QueryRow(ctx, corpusChunksSQL+`
		SELECT count(*) FROM chunks c WHERE c.agent = $1 AND c.hash IN (SELECT hash FROM h) AND NOT c.noise
			AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.agent = $1 AND v.chunk_id = c.id AND v.identity = $3)`,
		s.agent, corpora, identity).Scan(&n)
	return n, classify("count chunks to embed in "+strings.Join(corpora, ", "), err)
}
