package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	embedopenai "github.com/cairnmemory/cairn/embed/openai"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/sqlite"
	"github.com/cairnmemory/cairn/vector"
)

// snapshot is what two indexes of the same files must agree on. Rows are
// keyed by what identifies them across databases (a chunk by its content
// hash and sequence number, never by its rowid), and hold no timestamps.
type snapshot struct {
	Documents map[string]string // corpus/path → hash size mtime
	Contents  map[string]string // hash → title, sha256 of the text
	Chunks    map[string]string // hash/seq → pos len lines tokens noise
	Vectors   map[string]string // hash/seq → sha256 of the blob, identity
	// Full text: FTS5's averages record (row count and token totals, the
	// BM25 statistics), its per-row sizes, rows without a chunk, and how
	// many chunks each term matches.
	FTSAverages string
	FTSSizes    map[string]string // hash/seq → docsize blob
	FTSStray    int
	Matches     map[string]int
	// Orphans counts content no document references and vectors without a
	// chunk: zero in a clean index.
	Orphans int
	Results map[string][]string // query → hits, best first
}

// takeSnapshot reads the index of the data directory dir (an agent's).
func takeSnapshot(ctx context.Context, dir string, corpora []cairn.Corpus, embedURL string, terms, queries []string) (*snapshot, error) {
	path := filepath.Join(dir, engine.DBFile)
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	s := &snapshot{}
	for _, q := range []struct {
		dst *map[string]string
		sql string
	}{
		{&s.Documents, `SELECT corpus || '/' || path, hash, size, mtime FROM documents`},
		{&s.Contents, `SELECT hash, title, doc FROM content`},
		{&s.Chunks, `SELECT ct.hash || '/' || c.seq, c.pos, c.len, c.start_line, c.end_line, c.tokens, c.noise FROM chunks c JOIN content ct ON ct.id = c.cid`},
		{&s.Vectors, `SELECT ct.hash || '/' || c.seq, v.vec, v.identity FROM vectors v JOIN chunks c ON c.id = v.chunk_id JOIN content ct ON ct.id = c.cid`},
		{&s.FTSSizes, `SELECT ct.hash || '/' || c.seq, d.sz FROM chunks_fts_docsize d JOIN chunks c ON c.id = d.id JOIN content ct ON ct.id = c.cid`},
	} {
		if *q.dst, err = rowsMap(ctx, db, q.sql); err != nil {
			return nil, err
		}
	}
	var avg []byte
	err = db.QueryRowContext(ctx, `SELECT block FROM chunks_fts_data WHERE id = 1`).Scan(&avg)
	if err != nil && err != sql.ErrNoRows {
		return nil, fmt.Errorf("read fts averages: %w", err)
	}
	s.FTSAverages = hex.EncodeToString(avg)
	err = db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM chunks_fts_docsize WHERE id NOT IN (SELECT id FROM chunks)),
		(SELECT count(*) FROM content WHERE hash NOT IN (SELECT hash FROM documents))
		+ (SELECT count(*) FROM vectors WHERE chunk_id NOT IN (SELECT id FROM chunks))`).Scan(&s.FTSStray, &s.Orphans)
	if err != nil {
		return nil, fmt.Errorf("count orphans: %w", err)
	}
	if err := s.search(ctx, dir, corpora, embedURL, terms, queries); err != nil {
		return nil, err
	}
	if embedURL != "" {
		if err := s.vectorFile(ctx, db, dir, queries); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// vectorFile answers the queries exactly (every vector scored) from the
// vectors.bin the searches left, with chunks named by hash and sequence:
// the file holds what SQLite holds if and only if these agree, whatever
// order the vectors were added in.
func (s *snapshot) vectorFile(ctx context.Context, db *sql.DB, dir string, queries []string) error {
	names, err := rowsMap(ctx, db, `SELECT c.id, ct.hash || '/' || c.seq FROM chunks c JOIN content ct ON ct.id = c.cid`)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, engine.VectorFile)
	st, err := vector.FileStamp(path)
	if err != nil {
		return err
	}
	ix, err := vector.Load(path, st, false)
	if err != nil {
		return err
	}
	for _, q := range queries {
		// Chunks of equal text (a copied section) have equal vectors:
		// their order, and which of them the limit keeps, is free.
		var items []scoredKey
		for _, r := range ix.Exact(embedText(q), 10, nil) {
			items = append(items, scoredKey{names[fmt.Sprint(r.Key)], fmt.Sprintf("%.6f", r.Score)})
		}
		s.Results["vectors.bin exact: "+q] = tieFreeKeys(items, 10)
	}
	return nil
}

// search fills the term match counts (through the store, whose driver has
// Cairn's tokenizer) and the query results (through the engine, as a
// search command gets them).
func (s *snapshot) search(ctx context.Context, dir string, corpora []cairn.Corpus, embedURL string, terms, queries []string) error {
	st := sqlite.New(filepath.Join(dir, engine.DBFile), engine.FeatureVersion)
	if err := st.Open(ctx); err != nil {
		return err
	}
	defer st.Close()
	s.Matches = map[string]int{}
	for _, t := range terms {
		m, err := st.MatchCount(ctx, cairn.Term(t), 1<<30)
		if err != nil {
			return err
		}
		s.Matches[t] = m.N
	}
	opts := engine.Options{Dir: dir, Corpora: corpora, OneShot: true}
	if embedURL != "" {
		opts.Embedder = embedopenai.New(embedURL, fakeModel, "")
	}
	eng, err := local.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer eng.Close(ctx)
	s.Results = map[string][]string{}
	modes := []string{cairn.ModeLexical}
	if embedURL != "" {
		modes = append(modes, cairn.ModeVector)
	}
	for _, mode := range modes {
		for _, q := range queries {
			hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Limit: 10, Mode: mode})
			if err != nil {
				return fmt.Errorf("search %q: %w", q, err)
			}
			limit := 10
			if mode == cairn.ModeVector {
				// The vector index is approximate: which candidates it
				// rescores depends on the order vectors were added, so the
				// tail of a top 10 can differ between two indexes holding
				// the same vectors (1 query in 600 in the first 100 trials,
				// at rank 10). Its top 5 is compared here, and the whole
				// file exactly in vectorFile.
				hits, limit = hits[:min(len(hits), 5)], 5
			}
			s.Results[mode+": "+q] = tieFree(hits, limit, mode)
		}
	}
	return nil
}

// tieFree lists hits so that the order among equal scores does not count:
// both lanes break ties by chunk id, and an index that grew by updates
// numbers its chunks otherwise than one built in one go. Hits of one score
// are sorted; those of the last score, which the limit may cut anywhere,
// are only counted. (Hybrid results fuse the lanes' ranks, so a tie's
// order moves their scores: the lanes are compared instead.) Ties are
// told by the lane's own measure (BM25, cosine), not by the calibrated
// score, which takes the rank into account and so differs between two
// hits that tie in the lane.
func tieFree(hits []cairn.Hit, limit int, mode string) []string {
	items := make([]scoredKey, len(hits))
	for i, h := range hits {
		raw := h.Score
		if sig := h.Signals; sig != nil && mode == cairn.ModeLexical {
			raw = sig.BM25
		} else if sig != nil && mode == cairn.ModeVector {
			raw = sig.Cosine
		}
		items[i] = scoredKey{fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine), fmt.Sprintf("%.9f", raw)}
	}
	return tieFreeKeys(items, limit)
}

// scoredKey is one result: what it names and its formatted score.
type scoredKey struct{ key, score string }

// tieFreeKeys is tieFree for any results, best first.
func tieFreeKeys(items []scoredKey, limit int) []string {
	var out []string
	for i := 0; i < len(items); {
		j := i
		var group []string
		for ; j < len(items) && items[j].score == items[i].score; j++ {
			group = append(group, items[j].key+" "+items[j].score)
		}
		if j == len(items) && len(items) == limit {
			group = []string{fmt.Sprintf("%d more at %s", len(group), items[i].score)}
		}
		slices.Sort(group)
		out = append(out, group...)
		i = j
	}
	return out
}

func rowsMap(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	out := map[string]string{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read index: %w", err)
		}
		parts := make([]string, len(vals)-1)
		for i, v := range vals[1:] {
			if b, ok := v.([]byte); ok {
				parts[i] = sha(b) // blobs, and text the driver hands over as bytes
			} else {
				parts[i] = fmt.Sprint(v)
			}
		}
		out[fmt.Sprint(text(vals[0]))] = strings.Join(parts, " ")
	}
	return out, rows.Err()
}

// diff lists how got differs from want, a few lines per part.
func (want *snapshot) diff(got *snapshot) []string {
	var out []string
	maps := []struct {
		name      string
		want, got map[string]string
	}{
		{"document", want.Documents, got.Documents}, {"content", want.Contents, got.Contents},
		{"chunk", want.Chunks, got.Chunks}, {"vector", want.Vectors, got.Vectors}, {"fts size", want.FTSSizes, got.FTSSizes},
	}
	for _, m := range maps {
		out = append(out, diffMap(m.name, m.want, m.got)...)
	}
	if want.FTSAverages != got.FTSAverages {
		out = append(out, fmt.Sprintf("fts averages: clean %s, recovered %s", want.FTSAverages, got.FTSAverages))
	}
	if got.FTSStray != 0 || got.Orphans != 0 {
		out = append(out, fmt.Sprintf("recovered holds %d stray full-text rows and %d orphaned rows", got.FTSStray, got.Orphans))
	}
	for t, n := range want.Matches {
		if got.Matches[t] != n {
			out = append(out, fmt.Sprintf("term %q: clean matches %d chunks, recovered %d", t, n, got.Matches[t]))
		}
	}
	for q, w := range want.Results {
		if g := got.Results[q]; !slices.Equal(w, g) {
			out = append(out, fmt.Sprintf("query %q:\n  clean     %s\n  recovered %s", q, strings.Join(w, "\n            "), strings.Join(g, "\n            ")))
		}
	}
	return out
}

func diffMap(name string, want, got map[string]string) []string {
	var out []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			out = append(out, fmt.Sprintf("%s %s missing from the recovered index", name, k))
		} else if g != v {
			out = append(out, fmt.Sprintf("%s %s: clean %q, recovered %q", name, k, v, g))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%s %s only in the recovered index", name, k))
		}
	}
	slices.Sort(out)
	return out[:min(len(out), 5)]
}

func text(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}
