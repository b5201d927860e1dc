package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/cairnmemory/cairn"
)

// PendingChunk is a chunk that has no vector for the current embedder.
type PendingChunk = cairn.PendingChunk

// PendingChunks returns up to limit indexed, non-noise chunks that have no
// vector made by identity, oldest first.
func (s *Store) PendingChunks(ctx context.Context, identity string, limit int) ([]PendingChunk, error) {
	return s.PendingChunksAfter(ctx, identity, 0, limit)
}

// pendingAfterSQL walks the chunks above an id in id order (the rowid
// range, rowid>?), probes each one's vector by its key, and joins the text
// of the few it keeps after the limit: a chunk passed over costs a chunks
// row and a vectors key lookup, never its document's content row (with the
// join inside the scan, SQLite read a content page per chunk it passed).
const pendingAfterSQL = `SELECT p.id, substr(ct.doc, p.pos + 1, p.len)
	FROM (SELECT c.id, c.cid, c.pos, c.len FROM chunks c
		WHERE c.id > ? AND c.noise = 0
			AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id AND v.identity = ?)
		ORDER BY c.id LIMIT ?) p
	JOIN content ct ON ct.id = p.cid ORDER BY p.id`

// PendingChunksAfter is PendingChunks from an id on: up to limit indexed,
// non-noise chunks with an id above after that have no vector made by
// identity, in id order. The engine's embedding loop passes the last id of
// its previous batch, so each batch reads only the chunks after it: a
// loop of PendingChunks calls walks every chunk embedded so far again on
// each call (the scan starts at the oldest chunk), quadratic in the
// backlog: 3,500 vectors a minute into a 1M-chunk index.
func (s *Store) PendingChunksAfter(ctx context.Context, identity string, after int64, limit int) ([]PendingChunk, error) {
	st, err := s.readStmt(ctx, pendingAfterSQL)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, after, identity, limit)
	if err != nil {
		return nil, fmt.Errorf("list chunks to embed: %w", err)
	}
	defer rows.Close()
	var out []PendingChunk
	for rows.Next() {
		var p PendingChunk
		var text []byte
		if err := rows.Scan(&p.ID, &text); err != nil {
			return nil, fmt.Errorf("list chunks to embed: %w", err)
		}
		p.Text = string(text)
		out = append(out, p)
	}
	return out, rows.Err()
}

// CountPending counts chunks without a vector made by identity.
func (s *Store) CountPending(ctx context.Context, identity string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id AND v.identity = ?
		WHERE c.noise = 0 AND v.chunk_id IS NULL`, identity).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count chunks to embed: %w", err)
	}
	return n, nil
}

// CountEmbeddable counts the chunks that get a vector (all but structural
// noise). With the vectors of an identity counted apart (an index file
// knows its length), the difference is what CountPending counts, without
// probing the vectors table once per chunk.
func (s *Store) CountEmbeddable(ctx context.Context) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE noise = 0`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

// PutVectors stores vectors (one transaction), replacing any older vector
// of the same chunk, whatever made it.
func (s *Store) PutVectors(ctx context.Context, identity string, ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("store vectors: %d ids for %d vectors", len(ids), len(vecs))
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors(chunk_id, identity, vec) VALUES(?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	for i, id := range ids {
		if _, err := st.ExecContext(ctx, id, identity, EncodeVector(vecs[i])); err != nil {
			return fmt.Errorf("store vector of chunk %d: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store vectors: %w", err)
	}
	s.gen.Add(1)
	return nil
}

// EachVector calls fn with every vector made by identity. v is reused
// between calls: fn copies what it keeps.
func (s *Store) EachVector(ctx context.Context, identity string, fn func(chunkID int64, v []float32) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT chunk_id, vec FROM vectors WHERE identity = ?`, identity)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	defer rows.Close()
	var v []float32 // reused: fn must copy what it keeps
	for rows.Next() {
		var id int64
		var blob sql.RawBytes
		if err := rows.Scan(&id, &blob); err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		v = decodeInto(v, blob)
		if err := fn(id, v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountVectors counts the vectors stored under an embedder identity.
func (s *Store) CountVectors(ctx context.Context, identity string) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM vectors WHERE identity = ?`, identity).Scan(&n); err != nil {
		return 0, fmt.Errorf("count vectors: %w", err)
	}
	return n, nil
}

// ChunkDocs calls fn with every indexed chunk and a document holding it.
func (s *Store) ChunkDocs(ctx context.Context, fn func(chunkID int64, corpus, path string)) error {
	rows, err := s.r.QueryContext(ctx, `SELECT c.id, d.corpus, d.path FROM chunks c JOIN documents d ON d.cid = c.cid WHERE c.noise = 0`)
	if err != nil {
		return fmt.Errorf("map chunks to documents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var corpus, path string
		if err := rows.Scan(&id, &corpus, &path); err != nil {
			return fmt.Errorf("map chunks to documents: %w", err)
		}
		fn(id, corpus, path)
	}
	return rows.Err()
}

// Chunks returns candidates for chunk ids (all their documents), for the
// vector lane of a search, in the order of ids. They come without Title
// and Text: reading a chunk's text loads its whole document (15 chunks of
// the benchmark corpus: 0.45 ms with text, 0.08 ms without), so a search
// reads text only for the hits it returns, with ChunkTexts.
func (s *Store) Chunks(ctx context.Context, ids []int64) ([]cairn.Candidate, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, _ := json.Marshal(ids)
	st, err := s.readStmt(ctx, `SELECT c.id, d.corpus, d.path, c.seq, c.start_line, c.end_line
		FROM chunks c JOIN documents d ON d.cid = c.cid WHERE c.id IN (SELECT value FROM json_each(?))`)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, string(list))
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	byID := map[int64][]cairn.Candidate{}
	for rows.Next() {
		var c cairn.Candidate
		if err := rows.Scan(&c.ChunkID, &c.Corpus, &c.Path, &c.Seq, &c.StartLine, &c.EndLine); err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
		byID[c.ChunkID] = append(byID[c.ChunkID], c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
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
	list, _ := json.Marshal(ids)
	st, err := s.readStmt(ctx, `SELECT c.id, CAST(substr(ct.doc, c.pos + 1, c.len) AS TEXT)
		FROM chunks c JOIN content ct ON ct.id = c.cid WHERE c.id IN (SELECT value FROM json_each(?))`)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, string(list))
	if err != nil {
		return nil, fmt.Errorf("read chunk texts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var text string
		// The text comes as TEXT (CAST), so it is copied once, into the string.
		if err := rows.Scan(&id, &text); err != nil {
			return nil, fmt.Errorf("read chunk texts: %w", err)
		}
		out[id] = text
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read chunk texts: %w", err)
	}
	return out, nil
}

// EncodeVector writes float32 little endian.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads float32 little endian.
func DecodeVector(b []byte) []float32 { return decodeInto(nil, b) }

// decodeInto decodes b into v's storage when it is large enough.
func decodeInto(v []float32, b []byte) []float32 {
	n := len(b) / 4
	if cap(v) < n {
		v = make([]float32, n)
	}
	v = v[:n]
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// vectorsVersion counts every change to the vectors table, so a copy of
// them kept elsewhere (the engine's vector index file) can tell it is
// stale by comparing one number.
const vectorsVersion = `INSERT OR IGNORE INTO meta(key, value) VALUES('vectors_version', '0');
	CREATE TRIGGER vectors_version_insert AFTER INSERT ON vectors BEGIN
		UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_version'; END;
	CREATE TRIGGER vectors_version_update AFTER UPDATE ON vectors BEGIN
		UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_version'; END;
	CREATE TRIGGER vectors_version_delete AFTER DELETE ON vectors BEGIN
		UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_version'; END;`

// VectorsVersion returns a number that changes whenever any vector is
// written or deleted.
func (s *Store) VectorsVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vectors_version'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read vectors version: %w", err)
	}
	return v, nil
}
