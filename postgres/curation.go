package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

var _ cairn.CurationStore = (*Store)(nil)

// markStale sets stale_at of the agent's fresh run to now (at most one run
// is stored); a run already stale keeps its time.
func (s *Store) markStale(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, staleSQL, s.agent, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("mark clustering run stale: %w", err)
	}
	return nil
}

// EachClusterChunk walks the clustering population in one snapshot: the
// non-noise chunks of every content a document of corpora holds, each
// content once, by (hash, seq), with text and the vector made by identity.
func (s *Store) EachClusterChunk(ctx context.Context, identity string, corpora []string, fn func(cairn.ClusterChunk) error) error {
	if len(corpora) == 0 {
		return nil
	}
	return s.read(ctx, "read clustering input", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT c.hash, c.seq, c.pos, c.len, substring(ct.doc FROM c.pos::int + 1 FOR c.len::int), v.vec
			FROM chunks c JOIN content ct ON ct.agent = c.agent AND ct.hash = c.hash
			LEFT JOIN vectors v ON v.agent = c.agent AND v.chunk_id = c.id AND v.identity = $2
			WHERE c.agent = $1 AND NOT c.noise
				AND c.hash IN (SELECT hash FROM documents WHERE agent = $1 AND corpus = ANY($3))
			ORDER BY c.hash COLLATE "C", c.seq`, s.agent, identity, corpora)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c cairn.ClusterChunk
			var text []byte
			var vec *pgvector.Vector
			if err := rows.Scan(&c.Hash, &c.Seq, &c.Pos, &c.Len, &text, &vec); err != nil {
				return err
			}
			c.Text = string(text)
			if vec != nil {
				c.Vector = vec.Slice()
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// PutAnalysis stores a run and deletes every other run of the agent, in
// one transaction.
func (s *Store) PutAnalysis(ctx context.Context, a *cairn.AnalysisWrite) error {
	return s.write(ctx, "write clustering run", func(tx pgx.Tx) error {
		for _, t := range analysisTables {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE agent = $1`, s.agent); err != nil {
				return fmt.Errorf("delete earlier clustering runs: %w", err)
			}
		}
		r := a.Run
		corpora, _ := json.Marshal(r.Corpora)
		var stale *int64
		if !r.StaleAt.IsZero() {
			v := r.StaleAt.UnixMilli()
			stale = &v
		}
		if _, err := tx.Exec(ctx, `INSERT INTO analysis_runs(agent, id, created_at, completed_at, input_digest, model,
			embedding_fingerprint, dimensions, params_json, corpora, clusters, members, noise, stale_at)
			VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`, s.agent, r.ID, r.CreatedAt.UnixMilli(), r.CompletedAt.UnixMilli(),
			r.InputDigest, r.Model, r.EmbeddingFingerprint, r.Dimensions, r.Params, string(corpora), r.Clusters, r.Members, r.Noise, stale); err != nil {
			return fmt.Errorf("write clustering run: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"analysis_clusters"}, []string{"agent", "run_id", "cluster_id", "size", "mean_probability"},
			pgx.CopyFromSlice(len(a.Clusters), func(i int) ([]any, error) {
				c := a.Clusters[i]
				return []any{s.agent, r.ID, int32(c.ID), int32(c.Size), c.MeanProbability}, nil
			})); err != nil {
			return fmt.Errorf("write clusters: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"analysis_memberships"}, []string{"agent", "run_id", "hash", "seq", "cluster_id",
			"probability", "outlier_score", "x", "y", "representative_rank"},
			pgx.CopyFromSlice(len(a.Members), func(i int) ([]any, error) {
				m := a.Members[i]
				var rank *int32
				if m.RepresentativeRank > 0 {
					v := int32(m.RepresentativeRank)
					rank = &v
				}
				return []any{s.agent, r.ID, m.Hash, int32(m.Seq), int32(m.Cluster), m.Probability, m.OutlierScore, m.X, m.Y, rank}, nil
			})); err != nil {
			return fmt.Errorf("write cluster memberships: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"analysis_duplicate_occurrences"}, []string{"agent", "run_id", "content_fingerprint",
			"canonical_hash", "canonical_seq", "duplicate_hash", "duplicate_seq"},
			pgx.CopyFromSlice(len(a.Duplicates), func(i int) ([]any, error) {
				d := a.Duplicates[i]
				return []any{s.agent, r.ID, d.Fingerprint, d.Canonical.Hash, int32(d.Canonical.Seq), d.Duplicate.Hash, int32(d.Duplicate.Seq)}, nil
			})); err != nil {
			return fmt.Errorf("write duplicate occurrences: %w", err)
		}
		return nil
	})
}

// LatestAnalysis returns the newest run, or cairn.ErrNotFound.
func (s *Store) LatestAnalysis(ctx context.Context) (cairn.AnalysisRun, error) {
	var r cairn.AnalysisRun
	var created, completed int64
	var stale *int64
	var corpora string
	err := s.pool.QueryRow(ctx, `SELECT id, created_at, completed_at, input_digest, model, embedding_fingerprint,
		dimensions, params_json, corpora, clusters, members, noise, stale_at
		FROM analysis_runs WHERE agent = $1 ORDER BY completed_at DESC, id COLLATE "C" LIMIT 1`, s.agent).Scan(&r.ID, &created, &completed,
		&r.InputDigest, &r.Model, &r.EmbeddingFingerprint, &r.Dimensions, &r.Params, &corpora, &r.Clusters, &r.Members, &r.Noise, &stale)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("read clustering run: %w", cairn.ErrNotFound)
	}
	if err != nil {
		return r, classify("read clustering run", err)
	}
	if err := json.Unmarshal([]byte(corpora), &r.Corpora); err != nil {
		return r, fmt.Errorf("read clustering run %s corpora: %w", r.ID, err)
	}
	r.CreatedAt, r.CompletedAt = time.UnixMilli(created).UTC(), time.UnixMilli(completed).UTC()
	if stale != nil {
		r.StaleAt = time.UnixMilli(*stale).UTC()
	}
	return r, nil
}

// MarkAnalysisStale sets stale_at of the latest run unless it is set.
func (s *Store) MarkAnalysisStale(ctx context.Context) error {
	return s.write(ctx, "mark clustering run stale", func(tx pgx.Tx) error { return s.markStale(ctx, tx) })
}

// AnalysisClusters merges the stored clusters with counts of their
// memberships and of those an indexed document still holds.
func (s *Store) AnalysisClusters(ctx context.Context, runID string) ([]cairn.AnalysisCluster, error) {
	byID := map[int]*cairn.AnalysisCluster{}
	get := func(id int) *cairn.AnalysisCluster {
		if c, ok := byID[id]; ok {
			return c
		}
		byID[id] = &cairn.AnalysisCluster{ID: id}
		return byID[id]
	}
	err := s.read(ctx, "read clusters", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT cluster_id, size, mean_probability FROM analysis_clusters WHERE agent = $1 AND run_id = $2`, s.agent, runID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, size int
			var mean float64
			if err := rows.Scan(&id, &size, &mean); err != nil {
				rows.Close()
				return err
			}
			c := get(id)
			c.Size, c.MeanProbability = size, mean
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT cluster_id, count(*), avg(probability),
			count(*) FILTER (WHERE EXISTS (SELECT 1 FROM documents d WHERE d.agent = $1 AND d.hash = m.hash))
			FROM analysis_memberships m WHERE agent = $1 AND run_id = $2 GROUP BY cluster_id`, s.agent, runID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, n, avail int
			var mean float64
			if err := rows.Scan(&id, &n, &mean, &avail); err != nil {
				return err
			}
			c := get(id)
			c.Members, c.Available = n, avail
			if id < 0 {
				c.Size, c.MeanProbability = n, mean
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	out := make([]cairn.AnalysisCluster, 0, len(byID))
	for _, c := range byID {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b cairn.AnalysisCluster) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// AnalysisMembers reads the memberships q selects with the documents that
// hold each one's content and, for a projected session, its start.
func (s *Store) AnalysisMembers(ctx context.Context, q cairn.MemberQuery) ([]cairn.AnalysisMember, error) {
	where, args := "m.agent = $1 AND m.run_id = $2", []any{s.agent, q.RunID}
	if !q.AllClusters {
		args = append(args, q.Cluster)
		where += fmt.Sprintf(" AND m.cluster_id = $%d", len(args))
	}
	if q.MaxRank > 0 {
		args = append(args, q.MaxRank)
		where += fmt.Sprintf(" AND m.representative_rank BETWEEN 1 AND $%d", len(args))
	}
	var corpora []string // nil: every corpus; a grant's corpora match ignoring case
	for _, c := range q.Corpora {
		corpora = append(corpora, strings.ToLower(c))
	}
	if q.Corpora != nil && corpora == nil {
		corpora = []string{}
	}
	args = append(args, corpora)
	rows, err := s.pool.Query(ctx, `SELECT m.hash, m.seq, m.cluster_id, m.probability, m.outlier_score, m.x, m.y,
		coalesce(m.representative_rank, 0), d.corpus, d.path, d.mtime, se.started_at
		FROM analysis_memberships m LEFT JOIN documents d ON d.agent = m.agent AND d.hash = m.hash
			AND ($`+fmt.Sprint(len(args))+`::text[] IS NULL OR lower(d.corpus) = ANY($`+fmt.Sprint(len(args))+`))
		LEFT JOIN sessions se ON se.agent = d.agent AND se.corpus = d.corpus AND se.path = d.path
		WHERE `+where+` ORDER BY m.hash COLLATE "C", m.seq, d.corpus COLLATE "C", d.path COLLATE "C"`, args...)
	if err != nil {
		return nil, classify("read cluster members", err)
	}
	defer rows.Close()
	var out []cairn.AnalysisMember
	for rows.Next() {
		var m cairn.AnalysisMember
		var corpus, path *string
		var mtime, started *int64
		if err := rows.Scan(&m.Hash, &m.Seq, &m.Cluster, &m.Probability, &m.OutlierScore, &m.X, &m.Y,
			&m.RepresentativeRank, &corpus, &path, &mtime, &started); err != nil {
			return nil, classify("read cluster members", err)
		}
		if n := len(out); n == 0 || out[n-1].Hash != m.Hash || out[n-1].Seq != m.Seq {
			out = append(out, m)
		}
		if corpus != nil {
			src := cairn.ChunkSource{Corpus: *corpus, Path: *path, ModTime: time.Unix(0, *mtime).UTC()}
			if started != nil && *started != 0 {
				src.SessionStart = time.UnixMilli(*started).UTC()
			}
			last := &out[len(out)-1]
			last.Sources = append(last.Sources, src)
		}
	}
	return out, classify("read cluster members", rows.Err())
}

// AnalysisDuplicates reads the duplicate occurrences of the canonical
// chunks, by canonical then duplicate key.
func (s *Store) AnalysisDuplicates(ctx context.Context, runID string, canonical []cairn.ChunkKey) ([]cairn.DuplicateOccurrence, error) {
	var out []cairn.DuplicateOccurrence
	for _, k := range sortedKeys(canonical) {
		rows, err := s.pool.Query(ctx, `SELECT o.content_fingerprint, o.duplicate_hash, o.duplicate_seq, d.corpus, d.path, d.mtime
			FROM analysis_duplicate_occurrences o LEFT JOIN documents d ON d.agent = o.agent AND d.hash = o.duplicate_hash
			WHERE o.agent = $1 AND o.run_id = $2 AND o.canonical_hash = $3 AND o.canonical_seq = $4
			ORDER BY o.duplicate_hash COLLATE "C", o.duplicate_seq, d.corpus COLLATE "C", d.path COLLATE "C"`, s.agent, runID, k.Hash, k.Seq)
		if err != nil {
			return nil, classify("read duplicate occurrences", err)
		}
		for rows.Next() {
			d := cairn.DuplicateOccurrence{Canonical: k}
			var corpus, path *string
			var mtime *int64
			if err := rows.Scan(&d.Fingerprint, &d.Duplicate.Hash, &d.Duplicate.Seq, &corpus, &path, &mtime); err != nil {
				rows.Close()
				return nil, classify("read duplicate occurrences", err)
			}
			if n := len(out); n == 0 || out[n-1].Canonical != k || out[n-1].Duplicate != d.Duplicate {
				out = append(out, d)
			}
			if corpus != nil {
				last := &out[len(out)-1]
				last.Sources = append(last.Sources, cairn.ChunkSource{Corpus: *corpus, Path: *path, ModTime: time.Unix(0, *mtime).UTC()})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, classify("read duplicate occurrences", err)
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

// ChunkKeyTexts returns the text of the chunks stored under these keys.
func (s *Store) ChunkKeyTexts(ctx context.Context, keys []cairn.ChunkKey) (map[cairn.ChunkKey]string, error) {
	out := make(map[cairn.ChunkKey]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	hashes, seqs := make([]string, len(keys)), make([]int32, len(keys))
	for i, k := range keys {
		hashes[i], seqs[i] = k.Hash, int32(k.Seq)
	}
	rows, err := s.pool.Query(ctx, `SELECT c.hash, c.seq, substring(ct.doc FROM c.pos::int + 1 FOR c.len::int)
		FROM unnest($2::text[], $3::int[]) AS k(hash, seq)
		JOIN chunks c ON c.agent = $1 AND c.hash = k.hash AND c.seq = k.seq
		JOIN content ct ON ct.agent = c.agent AND ct.hash = c.hash`, s.agent, hashes, seqs)
	if err != nil {
		return nil, classify("read chunk texts", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k cairn.ChunkKey
		var text []byte
		if err := rows.Scan(&k.Hash, &k.Seq, &text); err != nil {
			return nil, classify("read chunk texts", err)
		}
		out[k] = string(text)
	}
	return out, classify("read chunk texts", rows.Err())
}

// ChunkOccurrences pages through the non-noise chunks of documents by
// (document id, seq).
func (s *Store) ChunkOccurrences(ctx context.Context, q cairn.OccurrenceQuery) ([]cairn.ChunkOccurrence, error) {
	if len(q.Corpora) == 0 {
		return nil, nil
	}
	where, args := "d.corpus = ANY($2)", []any{s.agent, q.Corpora}
	if q.Path != "" {
		where, args = "d.corpus = $2 AND d.path = $3", []any{s.agent, q.Corpora[0], q.Path}
	}
	args = append(args, q.AfterDoc, q.AfterSeq)
	n := len(args)
	where += fmt.Sprintf(" AND d.id >= $%d AND (d.id > $%d OR c.seq > $%d)", n-1, n-1, n)
	limit := ""
	if q.Limit > 0 {
		limit = fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	rows, err := s.pool.Query(ctx, `SELECT d.id, d.corpus, d.path, d.hash, c.seq, c.start_line, c.end_line,
		substring(ct.doc FROM c.pos::int + 1 FOR c.len::int)
		FROM documents d JOIN chunks c ON c.agent = d.agent AND c.hash = d.hash JOIN content ct ON ct.agent = d.agent AND ct.hash = d.hash
		WHERE d.agent = $1 AND NOT c.noise AND `+where+` ORDER BY d.id, c.seq`+limit, args...)
	if err != nil {
		return nil, classify("read chunk occurrences", err)
	}
	defer rows.Close()
	var out []cairn.ChunkOccurrence
	for rows.Next() {
		var o cairn.ChunkOccurrence
		var text []byte
		if err := rows.Scan(&o.DocumentID, &o.Corpus, &o.Path, &o.Hash, &o.Seq, &o.StartLine, &o.EndLine, &text); err != nil {
			return nil, classify("read chunk occurrences", err)
		}
		o.Text = string(text)
		out = append(out, o)
	}
	return out, classify("read chunk occurrences", rows.Err())
}
