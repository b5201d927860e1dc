package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// PendingChunks returns up to limit indexed chunks without a vector made
// by identity, oldest first.
//
// The engine calls it in a loop, embedding and storing each batch before
// asking for the next, so a plain "oldest without a vector" scan walks
// every chunk embedded so far on each call: quadratic in the index (a
// 1M-chunk backlog would read 10^10 index entries). The store keeps a
// floor per identity instead: the lowest id the last call returned, with
// the agent's vectors version it saw. Below the floor every chunk had a
// vector then, and stays so while the version moves only by this handle's
// own PutVectors: new chunks of the agent get higher ids (its writes take
// turns under the agent's lock and ids come from a sequence), and only a
// vector write or a delete can take a chunk's vector away, both of which
// move the version. The query returns the version of its own snapshot; a
// floor it does not match is dropped and the scan runs again from 0.
func (s *Store) PendingChunks(ctx context.Context, identity string, limit int) ([]cairn.PendingChunk, error) {
	f := s.pendingFloor(identity)
	out, version, err := s.pendingFrom(ctx, identity, limit, f.id)
	if err == nil && f.id > 0 && version != f.version {
		out, version, err = s.pendingFrom(ctx, identity, limit, 0)
	}
	if err != nil {
		return nil, err
	}
	low := f.id
	if version != f.version {
		low = 0
	}
	if len(out) > 0 {
		low = out[0].ID
	}
	s.setPendingFloor(identity, floor{id: low, version: version})
	return out, nil
}

// pendingSQL: the agent's vectors version and the first chunks at or
// above a floor without a vector of the identity (walked in id order on
// the primary key, each probed in vectors by its key: a chunk has one
// vector, and a scalar subquery keeps the planner from turning the probe
// into a join over all the identity's vectors, which it did for NOT
// EXISTS), joined to their text after the limit. One row with a NULL id comes when none is
// pending, so the version always comes back.
const pendingSQL = `WITH ver AS (SELECT coalesce((SELECT value::bigint FROM agent_meta WHERE agent = $1 AND key = '` + vectorsVersionKey + `'), 0) AS v),
	p AS (SELECT c.id, c.hash, c.pos, c.len FROM chunks c
		WHERE c.agent = $1 AND c.id >= $4 AND NOT c.noise
			AND (SELECT v.identity FROM vectors v WHERE v.agent = $1 AND v.chunk_id = c.id) IS DISTINCT FROM $2
		ORDER BY c.id LIMIT $3)
	SELECT ver.v, p.id, substring(ct.doc FROM p.pos::int + 1 FOR p.len::int)
	FROM ver LEFT JOIN (p JOIN content ct ON ct.agent = $1 AND ct.hash = p.hash) ON true
	ORDER BY p.id`

func (s *Store) pendingFrom(ctx context.Context, identity string, limit int, from int64) ([]cairn.PendingChunk, int64, error) {
	rows, err := s.pool.Query(ctx, pendingSQL, s.agent, identity, limit, from)
	if err != nil {
		return nil, 0, classify("list chunks to embed", err)
	}
	defer rows.Close()
	var out []cairn.PendingChunk
	var version int64
	for rows.Next() {
		var id *int64
		var text []byte
		if err := rows.Scan(&version, &id, &text); err != nil {
			return nil, 0, classify("list chunks to embed", err)
		}
		if id != nil {
			out = append(out, cairn.PendingChunk{ID: *id, Text: string(text)})
		}
	}
	return out, version, classify("list chunks to embed", rows.Err())
}

// floor is where PendingChunks of one identity starts its scan, valid
// while the agent's vectors version is version.
type floor struct{ id, version int64 }

func (s *Store) pendingFloor(identity string) floor {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if f, ok := s.floors[identity]; ok {
		return f
	}
	return floor{version: -1}
}

func (s *Store) setPendingFloor(identity string, f floor) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if s.floors == nil {
		s.floors = map[string]floor{}
	}
	s.floors[identity] = f
}

// ownVectorWrite keeps the floor of identity valid across this handle's
// own vector write, which moved the version from version-1 to version:
// any other move in between (another process's write) leaves the floor
// stale, and the next PendingChunks scans from 0.
func (s *Store) ownVectorWrite(identity string, version int64) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if f, ok := s.floors[identity]; ok && f.version == version-1 {
		f.version = version
		s.floors[identity] = f
	}
}

// PendingChunksOf returns the indexed chunks of these contents without a
// vector made by identity, in chunk id order.
func (s *Store) PendingChunksOf(ctx context.Context, identity string, hashes []string) ([]cairn.PendingChunk, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT c.id, substring(ct.doc FROM c.pos::int + 1 FOR c.len::int) FROM chunks c
		JOIN content ct ON ct.agent = c.agent AND ct.hash = c.hash
		WHERE c.agent = $1 AND c.hash = ANY($3) AND NOT c.noise
			AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.agent = $1 AND v.chunk_id = c.id AND v.identity = $2)
		ORDER BY c.id`, s.agent, identity, hashes)
	return pending(rows, err)
}

func pending(rows pgx.Rows, err error) ([]cairn.PendingChunk, error) {
	if err != nil {
		return nil, classify("list chunks to embed", err)
	}
	defer rows.Close()
	var out []cairn.PendingChunk
	for rows.Next() {
		var p cairn.PendingChunk
		var text []byte
		if err := rows.Scan(&p.ID, &text); err != nil {
			return nil, classify("list chunks to embed", err)
		}
		p.Text = string(text)
		out = append(out, p)
	}
	return out, classify("list chunks to embed", rows.Err())
}

// CountPending counts what PendingChunks would return.
func (s *Store) CountPending(ctx context.Context, identity string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM chunks c WHERE c.agent = $1 AND NOT c.noise
		AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.agent = $1 AND v.chunk_id = c.id AND v.identity = $2)`, s.agent, identity).Scan(&n)
	return n, classify("count chunks to embed", err)
}

// CountEmbeddable counts the indexed chunks.
func (s *Store) CountEmbeddable(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE agent = $1 AND NOT noise`, s.agent).Scan(&n)
	return n, classify("count chunks", err)
}

// PutVectors stores vectors in one transaction, replacing any older vector
// of the same chunk whatever made it. The first vectors of an identity
// create its HNSW index (cosine), partial on the identity and dimension
// (identities of other agents may name other dimensions), over the vectors
// cast to it (Nearest uses it), when Backend.HNSW is set.
func (s *Store) PutVectors(ctx context.Context, identity string, ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("store vectors: %d ids for %d vectors", len(ids), len(vecs))
	}
	if len(ids) == 0 {
		return nil
	}
	if err := s.ensureHNSW(ctx, identity, len(vecs[0])); err != nil {
		return err
	}
	ids, vs := lastPerID(ids, vecs)
	var version int64
	err := s.writeTx(ctx, "store vectors", false, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(lockSQL, s.lockKeys("write")...)
		b.Queue(putVectorsSQL, s.agent, ids, identity, vs)
		b.Queue(staleSQL, s.agent, time.Now().UnixMilli())
		b.Queue(addMetaSQL+` RETURNING value::bigint`, s.agent, vectorsVersionKey, "1", int64(1))
		br := tx.SendBatch(ctx, b)
		for range 3 {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return fmt.Errorf("store vectors: %w", err)
			}
		}
		if err := br.QueryRow().Scan(&version); err != nil {
			br.Close()
			return fmt.Errorf("store vectors: %w", err)
		}
		return br.Close()
	})
	if err == nil {
		s.ownVectorWrite(identity, version)
	}
	return err
}

// lastPerID pairs ids with their vectors, the last one of an id given
// twice winning (one INSERT cannot update a row twice; stored one by one,
// the last would stay).
func lastPerID(ids []int64, vecs [][]float32) ([]int64, []pgvector.Vector) {
	at := make(map[int64]int, len(ids))
	outIDs, out := make([]int64, 0, len(ids)), make([]pgvector.Vector, 0, len(ids))
	for i, id := range ids {
		if j, ok := at[id]; ok {
			out[j] = pgvector.NewVector(vecs[i])
			continue
		}
		at[id] = len(outIDs)
		outIDs, out = append(outIDs, id), append(out, pgvector.NewVector(vecs[i]))
	}
	return outIDs, out
}

// putVectorsSQL stores a batch of vectors in one statement (arrays of ids
// and vectors, unnested), replacing any older vector of the same chunk.
const putVectorsSQL = `INSERT INTO vectors(agent, chunk_id, identity, vec)
	SELECT $1, u.id, $3, u.vec FROM unnest($2::bigint[], $4::vector[]) AS u(id, vec)
	ON CONFLICT(agent, chunk_id) DO UPDATE SET identity = excluded.identity, vec = excluded.vec`

// hnswIndex names the HNSW index of an identity's vectors of one
// dimension.
func hnswIndex(identity string, dim int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:%s", dim, identity)
	return fmt.Sprintf("vectors_hnsw_%016x", h.Sum64())
}

// ensureHNSW creates the HNSW index of an identity once (IF NOT EXISTS;
// the store remembers the ones it made).
func (s *Store) ensureHNSW(ctx context.Context, identity string, dim int) error {
	if !s.hnswOn || dim <= 0 || dim > 2000 || !identityOK(identity) {
		return nil // pgvector indexes up to 2,000 dimensions
	}
	name := hnswIndex(identity, dim)
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if s.hnsw[name] {
		return nil
	}
	_, err := s.pool.Exec(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON vectors USING hnsw ((vec::vector(%d)) vector_cosine_ops)
		WHERE identity = %s AND vector_dims(vec) = %d`, name, dim, quoteLiteral(identity), dim))
	if err != nil {
		return classify("create vector index", err)
	}
	if s.hnsw == nil {
		s.hnsw = map[string]bool{}
	}
	s.hnsw[name] = true
	return nil
}

// Nearest returns the k chunks whose vectors made by identity are nearest
// to v by cosine, nearest first, with their similarity (1 − distance),
// through the identity's HNSW index (approximate, pgvector's ef_search).
func (s *Store) Nearest(ctx context.Context, identity string, v []float32, k int) ([]cairn.Candidate, error) {
	rows, err := s.pool.Query(ctx, fmt.Sprintf(`SELECT chunk_id, 1 - (vec::vector(%[1]d) <=> $3::vector(%[1]d)) FROM vectors
		WHERE agent = $1 AND identity = $2 AND vector_dims(vec) = %[1]d ORDER BY vec::vector(%[1]d) <=> $3::vector(%[1]d) LIMIT $4`, len(v)),
		s.agent, identity, pgvector.NewVector(v), k)
	if err != nil {
		return nil, classify("search vectors", err)
	}
	defer rows.Close()
	var out []cairn.Candidate
	for rows.Next() {
		c := cairn.Candidate{Lane: cairn.LaneVector}
		if err := rows.Scan(&c.ChunkID, &c.Score); err != nil {
			return nil, classify("search vectors", err)
		}
		out = append(out, c)
	}
	return out, classify("search vectors", rows.Err())
}

// EachVector calls fn with every vector made by identity, in chunk id
// order.
func (s *Store) EachVector(ctx context.Context, identity string, fn func(chunkID int64, v []float32) error) error {
	rows, err := s.pool.Query(ctx, `SELECT chunk_id, vec FROM vectors WHERE agent = $1 AND identity = $2 ORDER BY chunk_id`, s.agent, identity)
	if err != nil {
		return classify("load vectors", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v pgvector.Vector
		if err := rows.Scan(&id, &v); err != nil {
			return classify("load vectors", err)
		}
		if err := fn(id, v.Slice()); err != nil {
			return err
		}
	}
	return classify("load vectors", rows.Err())
}

// CountVectors counts the vectors made by identity.
func (s *Store) CountVectors(ctx context.Context, identity string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM vectors WHERE agent = $1 AND identity = $2`, s.agent, identity).Scan(&n)
	return n, classify("count vectors", err)
}

// VectorsVersion changes whenever the agent's vectors change.
func (s *Store) VectorsVersion(ctx context.Context) (int64, error) {
	v, _, err := getMeta(ctx, s.readPool(), s.agent, vectorsVersionKey)
	if err != nil {
		return 0, classify("read vectors version", err)
	}
	var n int64
	fmt.Sscan(v, &n)
	return n, nil
}

// ChunkDocs calls fn with every indexed chunk and each document holding it.
func (s *Store) ChunkDocs(ctx context.Context, fn func(chunkID int64, corpus, path string)) error {
	rows, err := s.pool.Query(ctx, `SELECT c.id, d.corpus, d.path FROM chunks c
		JOIN documents d ON d.agent = c.agent AND d.hash = c.hash WHERE c.agent = $1 AND NOT c.noise`, s.agent)
	if err != nil {
		return classify("map chunks to documents", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var corpus, path string
		if err := rows.Scan(&id, &corpus, &path); err != nil {
			return classify("map chunks to documents", err)
		}
		fn(id, corpus, path)
	}
	return classify("map chunks to documents", rows.Err())
}

// Chunks returns the chunks with these ids with every document holding
// them, in the order of ids, without title and text (ChunkTexts reads
// those for the hits a search returns).
func (s *Store) Chunks(ctx context.Context, ids []int64) ([]cairn.Candidate, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.readPool().Query(ctx, `SELECT c.id, d.corpus, d.path, c.seq, c.start_line, c.end_line FROM chunks c
		JOIN documents d ON d.agent = c.agent AND d.hash = c.hash WHERE c.agent = $1 AND c.id = ANY($2)`, s.agent, ids)
	if err != nil {
		return nil, classify("read chunks", err)
	}
	defer rows.Close()
	byID := map[int64][]cairn.Candidate{}
	for rows.Next() {
		var c cairn.Candidate
		if err := rows.Scan(&c.ChunkID, &c.Corpus, &c.Path, &c.Seq, &c.StartLine, &c.EndLine); err != nil {
			return nil, classify("read chunks", err)
		}
		byID[c.ChunkID] = append(byID[c.ChunkID], c)
	}
	if err := rows.Err(); err != nil {
		return nil, classify("read chunks", err)
	}
	var out []cairn.Candidate
	for _, id := range ids {
		out = append(out, byID[id]...)
	}
	return out, nil
}

// ChunkTexts returns the exact text of each chunk id that exists.
func (s *Store) ChunkTexts(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.readPool().Query(ctx, `SELECT c.id, substring(ct.doc FROM c.pos::int + 1 FOR c.len::int) FROM chunks c
		JOIN content ct ON ct.agent = c.agent AND ct.hash = c.hash WHERE c.agent = $1 AND c.id = ANY($2)`, s.agent, ids)
	if err != nil {
		return nil, classify("read chunk texts", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var text []byte
		if err := rows.Scan(&id, &text); err != nil {
			return nil, classify("read chunk texts", err)
		}
		out[id] = string(text)
	}
	return out, classify("read chunk texts", rows.Err())
}

// identityOK reports whether an identity can name an index (any string
// can: it is quoted; this keeps control characters out of DDL text).
func identityOK(identity string) bool {
	return !strings.ContainsFunc(identity, func(r rune) bool { return r < 0x20 })
}
