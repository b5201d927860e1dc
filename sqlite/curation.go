package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

var _ cairn.CurationStore = (*Store)(nil)

// EachClusterChunk walks the clustering population in one query (one
// snapshot): the non-noise chunks of every content a document of corpora
// holds, each content once, with the text sliced from the stored content
// and the vector made by identity. v in the ClusterChunk is fn's to keep.
func (s *Store) EachClusterChunk(ctx context.Context, identity string, corpora []string, fn func(cairn.ClusterChunk) error) error {
	if len(corpora) == 0 {
		return nil
	}
	args := []any{identity}
	for _, c := range corpora {
		args = append(args, c)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT ct.hash, c.seq, c.pos, c.len, CAST(substr(ct.doc, c.pos + 1, c.len) AS TEXT), v.vec
		FROM chunks c JOIN content ct ON ct.id = c.cid
		LEFT JOIN vectors v ON v.chunk_id = c.id AND v.identity = ?
		WHERE c.noise = 0 AND c.cid IN (SELECT cid FROM documents WHERE corpus IN (`+marks(len(corpora))+`))
		ORDER BY ct.hash, c.seq`, args...)
	if err != nil {
		return s.diagnose("read clustering input", fmt.Errorf("read clustering input: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var c cairn.ClusterChunk
		var vec []byte
		if err := rows.Scan(&c.Hash, &c.Seq, &c.Pos, &c.Len, &c.Text, &vec); err != nil {
			return fmt.Errorf("read clustering input: %w", err)
		}
		if vec != nil {
			c.Vector = DecodeVector(vec)
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.diagnose("read clustering input", fmt.Errorf("read clustering input: %w", err))
	}
	return nil
}

// marks is n comma-separated placeholders.
func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// PutAnalysis writes a run in one IMMEDIATE transaction, deleting every
// other run first (their rows go by ON DELETE CASCADE).
func (s *Store) PutAnalysis(ctx context.Context, a *cairn.AnalysisWrite) error {
	return s.diagnose("write clustering run", s.putAnalysis(ctx, a))
}

func (s *Store) putAnalysis(ctx context.Context, a *cairn.AnalysisWrite) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write clustering run: %w", err)
	}
	defer tx.Rollback()
	r := a.Run
	corpora, _ := json.Marshal(r.Corpora)
	if _, err := tx.ExecContext(ctx, `DELETE FROM analysis_runs`); err != nil {
		return fmt.Errorf("delete earlier clustering runs: %w", err)
	}
	var stale any
	if !r.StaleAt.IsZero() {
		stale = r.StaleAt.UnixMilli()
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO analysis_runs(id, created_at, completed_at, input_digest, model,
		embedding_fingerprint, dimensions, params_json, corpora, clusters, members, noise, stale_at)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.CreatedAt.UnixMilli(), r.CompletedAt.UnixMilli(), r.InputDigest, r.Model, r.EmbeddingFingerprint,
		r.Dimensions, r.Params, string(corpora), r.Clusters, r.Members, r.Noise, stale); err != nil {
		return fmt.Errorf("write clustering run: %w", err)
	}
	if err := insertEach(ctx, tx, `INSERT INTO analysis_clusters(run_id, cluster_id, size, mean_probability) VALUES(?, ?, ?, ?)`,
		len(a.Clusters), func(i int) []any {
			c := a.Clusters[i]
			return []any{r.ID, c.ID, c.Size, c.MeanProbability}
		}); err != nil {
		return fmt.Errorf("write clusters: %w", err)
	}
	if err := insertEach(ctx, tx, `INSERT INTO analysis_memberships(run_id, hash, seq, cluster_id, probability, outlier_score, x, y, representative_rank)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)`, len(a.Members), func(i int) []any {
		m := a.Members[i]
		var rank any
		if m.RepresentativeRank > 0 {
			rank = m.RepresentativeRank
		}
		return []any{r.ID, m.Hash, m.Seq, m.Cluster, m.Probability, m.OutlierScore, m.X, m.Y, rank}
	}); err != nil {
		return fmt.Errorf("write cluster memberships: %w", err)
	}
	if err := insertEach(ctx, tx, `INSERT INTO analysis_duplicate_occurrences(run_id, content_fingerprint, canonical_hash,
		canonical_seq, duplicate_hash, duplicate_seq) VALUES(?, ?, ?, ?, ?, ?)`, len(a.Duplicates), func(i int) []any {
		d := a.Duplicates[i]
		return []any{r.ID, d.Fingerprint, d.Canonical.Hash, d.Canonical.Seq, d.Duplicate.Hash, d.Duplicate.Seq}
	}); err != nil {
		return fmt.Errorf("write duplicate occurrences: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write clustering run: %w", err)
	}
	s.wrote.Store(true)
	return nil
}

// insertEach runs one prepared statement n times with args(i).
func insertEach(ctx context.Context, tx *sql.Tx, q string, n int, args func(i int) []any) error {
	if n == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range n {
		if _, err := st.ExecContext(ctx, args(i)...); err != nil {
			return err
		}
	}
	return nil
}

// LatestAnalysis returns the newest run, or cairn.ErrNotFound.
func (s *Store) LatestAnalysis(ctx context.Context) (cairn.AnalysisRun, error) {
	var r cairn.AnalysisRun
	var created, completed int64
	var stale sql.NullInt64
	var corpora string
	err := s.r.QueryRowContext(ctx, `SELECT id, created_at, completed_at, input_digest, model, embedding_fingerprint,
		dimensions, params_json, corpora, clusters, members, noise, stale_at
		FROM analysis_runs ORDER BY completed_at DESC, id LIMIT 1`).Scan(&r.ID, &created, &completed, &r.InputDigest,
		&r.Model, &r.EmbeddingFingerprint, &r.Dimensions, &r.Params, &corpora, &r.Clusters, &r.Members, &r.Noise, &stale)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("read clustering run: %w", cairn.ErrNotFound)
	}
	if err != nil {
		return r, s.diagnose("read clustering run", fmt.Errorf("read clustering run: %w", err))
	}
	if err := json.Unmarshal([]byte(corpora), &r.Corpora); err != nil {
		return r, fmt.Errorf("read clustering run %s corpora: %w", r.ID, err)
	}
	r.CreatedAt, r.CompletedAt = time.UnixMilli(created).UTC(), time.UnixMilli(completed).UTC()
	if stale.Valid {
		r.StaleAt = time.UnixMilli(stale.Int64).UTC()
	}
	return r, nil
}

// MarkAnalysisStale sets stale_at on the run unless it is set (the same
// statement as the triggers).
func (s *Store) MarkAnalysisStale(ctx context.Context) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	if _, err := w.ExecContext(ctx, staleNow); err != nil {
		return s.diagnose("mark clustering run stale", fmt.Errorf("mark clustering run stale: %w", err))
	}
	return nil
}

// AnalysisClusters merges the stored clusters with counts of their
// memberships (and of those an indexed document still holds), so a
// caller can check a run: a membership of a cluster with no row comes back
// as a cluster of Size 0.
func (s *Store) AnalysisClusters(ctx context.Context, runID string) ([]cairn.AnalysisCluster, error) {
	byID := map[int]*cairn.AnalysisCluster{}
	var order []int
	get := func(id int) *cairn.AnalysisCluster {
		if c, ok := byID[id]; ok {
			return c
		}
		byID[id] = &cairn.AnalysisCluster{ID: id}
		order = append(order, id)
		return byID[id]
	}
	rows, err := s.r.QueryContext(ctx, `SELECT cluster_id, size, mean_probability FROM analysis_clusters WHERE run_id = ?`, runID)
	if err != nil {
		return nil, s.diagnose("read clusters", fmt.Errorf("read clusters: %w", err))
	}
	for rows.Next() {
		var id, size int
		var mean float64
		if err := rows.Scan(&id, &size, &mean); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read clusters: %w", err)
		}
		c := get(id)
		c.Size, c.MeanProbability = size, mean
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read clusters: %w", err)
	}
	rows, err = s.r.QueryContext(ctx, `SELECT cluster_id, count(*), avg(probability),
		sum(EXISTS(SELECT 1 FROM content mc JOIN documents d ON d.cid = mc.id WHERE mc.hash = m.hash))
		FROM analysis_memberships m WHERE run_id = ? GROUP BY cluster_id`, runID)
	if err != nil {
		return nil, s.diagnose("count cluster members", fmt.Errorf("count cluster members: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var id, n, avail int
		var mean float64
		if err := rows.Scan(&id, &n, &mean, &avail); err != nil {
			return nil, fmt.Errorf("count cluster members: %w", err)
		}
		c := get(id)
		c.Members, c.Available = n, avail
		if id < 0 {
			c.Size, c.MeanProbability = n, mean
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count cluster members: %w", err)
	}
	out := make([]cairn.AnalysisCluster, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	slices.SortFunc(out, func(a, b cairn.AnalysisCluster) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// AnalysisMembers reads the memberships q selects with the documents that
// hold each one's content (none when no indexed document does) and, for a
// projected session, its start.
func (s *Store) AnalysisMembers(ctx context.Context, q cairn.MemberQuery) ([]cairn.AnalysisMember, error) {
	where, args := "m.run_id = ?", []any{q.RunID}
	if !q.AllClusters {
		where += " AND m.cluster_id = ?"
		args = append(args, q.Cluster)
	}
	if q.MaxRank > 0 {
		where += " AND m.representative_rank BETWEEN 1 AND ?"
		args = append(args, q.MaxRank)
	}
	all, corpora := q.Corpora == nil, "[]"
	if !all {
		b, _ := json.Marshal(q.Corpora)
		corpora = string(b)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT m.hash, m.seq, m.cluster_id, m.probability, m.outlier_score, m.x, m.y,
		COALESCE(m.representative_rank, 0), d.corpus, d.path, d.mtime, s.started_at
		FROM analysis_memberships m LEFT JOIN content mc ON mc.hash = m.hash LEFT JOIN documents d ON d.cid = mc.id
			AND (? OR d.corpus COLLATE NOCASE IN (SELECT value FROM json_each(?)))
		LEFT JOIN sessions s ON s.corpus = d.corpus AND s.path = d.path
		WHERE `+where+` ORDER BY m.hash, m.seq, d.corpus, d.path`, append([]any{all, corpora}, args...)...)
	if err != nil {
		return nil, s.diagnose("read cluster members", fmt.Errorf("read cluster members: %w", err))
	}
	defer rows.Close()
	var out []cairn.AnalysisMember
	for rows.Next() {
		var m cairn.AnalysisMember
		var corpus, path sql.NullString
		var mtime, started sql.NullInt64
		if err := rows.Scan(&m.Hash, &m.Seq, &m.Cluster, &m.Probability, &m.OutlierScore, &m.X, &m.Y,
			&m.RepresentativeRank, &corpus, &path, &mtime, &started); err != nil {
			return nil, fmt.Errorf("read cluster members: %w", err)
		}
		if n := len(out); n == 0 || out[n-1].Hash != m.Hash || out[n-1].Seq != m.Seq {
			out = append(out, m)
		}
		if corpus.Valid {
			src := cairn.ChunkSource{Corpus: corpus.String, Path: path.String, ModTime: time.Unix(0, mtime.Int64).UTC()}
			if started.Int64 != 0 {
				src.SessionStart = time.UnixMilli(started.Int64).UTC()
			}
			last := &out[len(out)-1]
			last.Sources = append(last.Sources, src)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.diagnose("read cluster members", fmt.Errorf("read cluster members: %w", err))
	}
	return out, nil
}

// AnalysisDuplicates reads the duplicate occurrences of the canonical
// chunks, by canonical then duplicate key.
func (s *Store) AnalysisDuplicates(ctx context.Context, runID string, canonical []cairn.ChunkKey) ([]cairn.DuplicateOccurrence, error) {
	var out []cairn.DuplicateOccurrence
	for _, k := range sortedKeys(canonical) {
		rows, err := s.r.QueryContext(ctx, `SELECT o.content_fingerprint, o.duplicate_hash, o.duplicate_seq, d.corpus, d.path, d.mtime
			FROM analysis_duplicate_occurrences o LEFT JOIN content dc ON dc.hash = o.duplicate_hash LEFT JOIN documents d ON d.cid = dc.id
			WHERE o.run_id = ? AND o.canonical_hash = ? AND o.canonical_seq = ?
			ORDER BY o.duplicate_hash, o.duplicate_seq, d.corpus, d.path`, runID, k.Hash, k.Seq)
		if err != nil {
			return nil, s.diagnose("read duplicate occurrences", fmt.Errorf("read duplicate occurrences: %w", err))
		}
		for rows.Next() {
			d := cairn.DuplicateOccurrence{Canonical: k}
			var corpus, path sql.NullString
			var mtime sql.NullInt64
			if err := rows.Scan(&d.Fingerprint, &d.Duplicate.Hash, &d.Duplicate.Seq, &corpus, &path, &mtime); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read duplicate occurrences: %w", err)
			}
			if n := len(out); n == 0 || out[n-1].Canonical != k || out[n-1].Duplicate != d.Duplicate {
				out = append(out, d)
			}
			if corpus.Valid {
				last := &out[len(out)-1]
				last.Sources = append(last.Sources, cairn.ChunkSource{Corpus: corpus.String, Path: path.String, ModTime: time.Unix(0, mtime.Int64).UTC()})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read duplicate occurrences: %w", err)
		}
	}
	return out, nil
}

// sortedKeys returns the distinct keys by (hash, seq).
func sortedKeys(keys []cairn.ChunkKey) []cairn.ChunkKey {
	seen := map[cairn.ChunkKey]bool{}
	var out []cairn.ChunkKey
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b cairn.ChunkKey) int { return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.Seq, b.Seq)) })
	return out
}

// ChunkKeyTexts slices each chunk's text out of its stored content.
func (s *Store) ChunkKeyTexts(ctx context.Context, keys []cairn.ChunkKey) (map[cairn.ChunkKey]string, error) {
	out := make(map[cairn.ChunkKey]string, len(keys))
	for _, k := range keys {
		var text string
		err := s.r.QueryRowContext(ctx, `SELECT CAST(substr(ct.doc, c.pos + 1, c.len) AS TEXT)
			FROM content ct JOIN chunks c ON c.cid = ct.id WHERE ct.hash = ? AND c.seq = ?`, k.Hash, k.Seq).Scan(&text)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, s.diagnose("read chunk texts", fmt.Errorf("read chunk texts: %w", err))
		default:
			out[k] = text
		}
	}
	return out, nil
}

// ChunkOccurrences pages through the non-noise chunks of documents by
// (document id, seq).
func (s *Store) ChunkOccurrences(ctx context.Context, q cairn.OccurrenceQuery) ([]cairn.ChunkOccurrence, error) {
	if len(q.Corpora) == 0 {
		return nil, nil
	}
	where, args := "d.corpus IN ("+marks(len(q.Corpora))+")", []any{}
	for _, c := range q.Corpora {
		args = append(args, c)
	}
	if q.Path != "" {
		where, args = "d.corpus = ? AND d.path = ?", []any{q.Corpora[0], q.Path}
	}
	where += " AND d.id >= ? AND (d.id > ? OR c.seq > ?)"
	args = append(args, q.AfterDoc, q.AfterDoc, q.AfterSeq)
	limit := ""
	if q.Limit > 0 {
		limit = fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT d.id, d.corpus, d.path, d.hash, c.seq, c.start_line, c.end_line,
		CAST(substr(ct.doc, c.pos + 1, c.len) AS TEXT)
		FROM documents d JOIN chunks c ON c.cid = d.cid JOIN content ct ON ct.id = d.cid
		WHERE c.noise = 0 AND `+where+` ORDER BY d.id, c.seq`+limit, args...)
	if err != nil {
		return nil, s.diagnose("read chunk occurrences", fmt.Errorf("read chunk occurrences: %w", err))
	}
	defer rows.Close()
	var out []cairn.ChunkOccurrence
	for rows.Next() {
		var o cairn.ChunkOccurrence
		if err := rows.Scan(&o.DocumentID, &o.Corpus, &o.Path, &o.Hash, &o.Seq, &o.StartLine, &o.EndLine, &o.Text); err != nil {
			return nil, fmt.Errorf("read chunk occurrences: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
