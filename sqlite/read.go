package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cairnmemory/cairn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// bm25Weights weights the FTS columns title, body, ident.
const bm25Weights = "2.0, 1.0, 1.0"

// lengthNorm is BM25's b, the weight of a chunk's length against the mean.
// Chunks are bounded by the chunker (100 to 300 tokens), so the length
// says little, and without it scoring skips a docsize lookup per row (4
// times cheaper). Measured on LoCoMo (docs/eval.md): b = 0 against FTS5's
// 0.75 took lexical MRR from 47.7 to 50.7 and turn recall@10 from 62.3 to
// 64.2, hybrid MRR from 41.3 to 43.4; the fixture regression suite kept
// lexical MRR 0.963, hybrid went from 0.975 to 0.950 (one query from rank
// 1 to 2).
const lengthNorm = "0"

// scoreArgs are cairn_tf's arguments after the table.
const scoreArgs = lengthNorm + ", " + bm25Weights

// Lexical compiles q.Match to an FTS5 query (match.go) and returns the
// best chunks of indexed documents. One pass walks the matches newest first
// (highest rowid: the most recently indexed content), at most
// q.MaxCandidates of them, and scores each with cairn_tf and the leaves'
// weights (see rank.go); the winners are then
// joined to their documents and text. When a corpus or path filter leaves
// too few of the winners, the query runs again with the filter inside the
// pass, uncapped (the cap counts matches of every corpus).
func (s *Store) Lexical(ctx context.Context, q cairn.LexicalQuery) (*cairn.LexicalResult, error) {
	s.reads.Add(1)
	m, err := compile(q.Match)
	if err != nil {
		return nil, err
	}
	res, err := s.lexicalSnapshot(ctx, lexicalQuery{q, m})
	for i := 0; i < schemaRetries && schemaChanged(err); i++ {
		res, err = s.lexicalSnapshot(ctx, lexicalQuery{q, m})
	}
	return res, s.diagnose("search index", err)
}

// schemaRetries bounds how often a search runs again after SQLITE_SCHEMA.
// The writer's statistics refresh (analyze, PRAGMA optimize after a batch)
// changes sqlite_stat1 and with it the schema cookie; a reader connection
// that is constructing the FTS5 table at that moment (a new connection's
// first search) fails with "vtable constructor failed: chunks_fts" (code
// 17), which SQLite does not retry inside the constructor. Run again, the
// search sees the new schema: TestConcurrentReadsDuringWrites failed about
// one run in eight without this.
const schemaRetries = 3

// schemaChanged reports whether err is SQLite's SQLITE_SCHEMA.
func schemaChanged(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrSchema
}

// lexicalQuery is a query with its match compiled.
type lexicalQuery struct {
	cairn.LexicalQuery
	m compiled
}

// lexicalSnapshot runs the passes and the join to documents in one read
// transaction, so that all of them see the same commit. As statements of
// their own, a batch committed between the scan and the join (a sync
// rewriting the matching documents) left the winners without documents,
// and the search found nothing (storetest's
// ReadersDuringReplacingBatches: 0 hits in about 1 read of 15). They run
// as statements of their own first and again in the transaction only when
// the join lost a winner of the scan (errTorn), so a search sees one
// commit's winners either way. The statements are prepared on the pool before the transaction holds a
// connection: preparing one there waits for a free connection, and with
// every connection held by a search inside its transaction none would
// come.
func (s *Store) lexicalSnapshot(ctx context.Context, q lexicalQuery) (*cairn.LexicalResult, error) {
	queries := []string{topQuery, hydrateQuery}
	if ascending(q) {
		queries[0] = topQueryAsc
	} else if q.Match.Op == cairn.MatchAll {
		queries = append(queries, probeQuery, topQueryTrim)
	}
	if len(q.Corpora) > 0 || q.Paths != nil {
		filtered, _ := filteredQuery(q)
		queries = append(queries, filtered)
	}
	for _, query := range queries {
		if _, err := s.readStmt(ctx, query); err != nil {
			return nil, err
		}
	}
	// First as statements of their own: the transaction costs about 0.1
	// to 0.2 ms a search (bench/RESULTS.md, "Lexical after the seam"), and
	// a commit between scan and join shows as a winner the join lost.
	if res, err := s.passes(ctx, nil, q); !errors.Is(err, errTorn) {
		return res, err
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin search: %w", err)
	}
	defer tx.Rollback()
	return s.passes(ctx, tx, q)
}

// errTorn is a pass outside a transaction whose join to documents lost a
// winner of its scan (a batch committed between them); the passes run
// again in a read transaction.
var errTorn = errors.New("search index changed during the search")

// afterScan, when set (tests), runs between a pass's scan and its join.
var afterScan func()

// passes runs the unfiltered pass and, when the filter leaves too few of
// its winners, the filtered one, on tx (nil: statements of their own).
func (s *Store) passes(ctx context.Context, tx *sql.Tx, q lexicalQuery) (*cairn.LexicalResult, error) {
	res, err := s.lexical(ctx, tx, q, false)
	if err != nil || len(q.Corpora) == 0 && q.Paths == nil || len(res.Candidates) >= q.Limit || res.Scanned < q.Limit {
		return res, err
	}
	return s.lexical(ctx, tx, q, true)
}

// scored is one match of the scoring pass.
type scored struct {
	id    int64
	score float64
}

// worse orders matches: lower score first, then newer (ties fall oldest
// first, as in topSQL's ORDER BY).
func worse(a, b scored) bool { return a.score < b.score || a.score == b.score && a.id > b.id }

func (s *Store) lexical(ctx context.Context, tx *sql.Tx, q lexicalQuery, filterInside bool) (*cairn.LexicalResult, error) {
	res := &cairn.LexicalResult{}
	if q.Limit <= 0 {
		return res, nil
	}
	var top []scored
	var err error
	if filterInside {
		top, err = s.scanFiltered(ctx, tx, q, res)
	} else {
		top, err = s.scanTop(ctx, tx, q, res)
	}
	if err != nil {
		return nil, err
	}
	if len(top) == 0 {
		return res, nil
	}
	if afterScan != nil {
		afterScan()
	}
	cands, err := s.hydrate(ctx, tx, top)
	if err != nil {
		return nil, err
	}
	if tx == nil && lost(top, cands) {
		return nil, errTorn
	}
	want := map[string]bool{}
	for _, c := range q.Corpora {
		want[c] = true
	}
	var paths map[string]bool
	if q.Paths != nil {
		paths = make(map[string]bool, len(q.Paths))
		for _, p := range q.Paths {
			paths[p] = true
		}
	}
	limited := pathLimited(q.PathCorpora)
	for _, c := range cands {
		if len(want) > 0 && !want[c.Corpus] || paths != nil && limited(c.Corpus) && !paths[c.Path] {
			continue
		}
		c.Capped = res.Capped
		res.Candidates = append(res.Candidates, c)
	}
	// Ties fall as the scan kept them: by chunk id, oldest first (topSQL's
	// ORDER BY, scanFiltered's worse), then by the documents holding one
	// chunk, so the chunks kept at a limit are the first of those kept at
	// any larger one (TestLexicalTiesPrefix). Sorted by corpus and path
	// after SQLite kept the newest of the tied, they were not: "run a
	// command in every workspace of a monorepo" over a docs corpus showed
	// npm-run.md and npm-sbom.md at places 4-5 with --limit 5,
	// npm-install.md and npm-link.md with --limit 20. Oldest first, not
	// newest: over LoCoMo's 883 questions (engine TestFusionSweep) lexical
	// turn recall@50 went from 76.9 (corpus, path) to 78.1 (77.3 newest
	// first), @1 36.8 (35.8 newest first), hybrid @50 88.7 to 90.3.
	sort.SliceStable(res.Candidates, func(i, j int) bool {
		a, b := res.Candidates[i], res.Candidates[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.ChunkID != b.ChunkID {
			return a.ChunkID < b.ChunkID
		}
		if a.Corpus != b.Corpus {
			return a.Corpus < b.Corpus
		}
		return a.Path < b.Path
	})
	if len(res.Candidates) > q.Limit {
		res.Candidates = res.Candidates[:q.Limit]
	}
	return res, nil
}

// topQuery keeps the best rows of the capped scan inside SQLite: the
// scan (newest first, at most the cap plus one row that only tells whether
// the cap cut anything) is materialized with each row's cairn_score, and
// only the k best rows cross into Go, with the scan's size and lowest id
// (m is materialized so those are computed once, not once per row).
// Scanning 2,000 rows this way costs about half what scoring them one by
// one in Go did, and allocates nothing per row.
var topQuery = topSQL("DESC")

// topQueryAsc is topQuery walking the matches oldest first. When every
// match is scored (no cap, or FewMatches and the cap not reached) the two
// keep the same rows with the same scores, scan size and lowest id, in the
// same order (score descending, then id ascending), and FTS5 walks a doclist
// forwards for less than backwards: a descending scan steps each segment's
// pages in reverse, indexing the rowids of every page it enters first (bench/RESULTS.md,
// "Lexical p99 at 1M chunks: scan order and idle merging").
var topQueryAsc = topSQL("ASC")

func topSQL(dir string) string {
	return `WITH s AS MATERIALIZED (
		SELECT rowid AS id, cairn_score(chunks_fts, ?1, ?6, ` + scoreArgs + `) AS score
		FROM chunks_fts WHERE chunks_fts MATCH ?2 ORDER BY rowid ` + dir + ` LIMIT ?3),
	m AS MATERIALIZED (SELECT count(*) AS n, min(id) AS low,
		(SELECT min(id) FROM s WHERE id > (SELECT min(id) FROM s)) AS low2 FROM s)
	SELECT s.id, s.score, m.n, CASE WHEN m.n > ?4 THEN m.low2 ELSE m.low END
	FROM s, m WHERE m.n <= ?4 OR s.id > m.low
	ORDER BY s.score DESC, s.id ASC LIMIT ?5`
}

// topQueryTrim is topQuery for a scan that a probe expects to meet about
// the cap's matches or fewer (probeFew): it walks the matches oldest
// first, up to probeGuard times the cap's rows, scores them, and keeps the
// newest of them (the cap plus one, as topQuery's scan holds); the count
// it reports is of every row walked, so that the caller knows when the
// guard cut the walk (then the newest may lie beyond it: scanTop runs
// topQuery). Below the guard it answers what topQuery answers: the same
// rows, scores, count up to the cap, cap flag and lowest id.
var topQueryTrim = `WITH a AS MATERIALIZED (
		SELECT rowid AS id, cairn_score(chunks_fts, ?1, ?6, ` + scoreArgs + `) AS score
		FROM chunks_fts WHERE chunks_fts MATCH ?2 ORDER BY rowid ASC LIMIT ` + fmt.Sprint(probeGuard) + ` * ?3),
	s AS MATERIALIZED (SELECT id, score FROM a ORDER BY id DESC LIMIT ?3),
	m AS MATERIALIZED (SELECT (SELECT count(*) FROM a) AS n, min(id) AS low,
		(SELECT min(id) FROM s WHERE id > (SELECT min(id) FROM s)) AS low2 FROM s)
	SELECT s.id, s.score, m.n, CASE WHEN m.n > ?4 THEN m.low2 ELSE m.low END
	FROM s, m WHERE m.n <= ?4 OR s.id > m.low
	ORDER BY s.score DESC, s.id ASC LIMIT ?5`

// ascending reports whether the unfiltered pass may walk q's matches
// oldest first: when it scores every match anyway.
func ascending(q lexicalQuery) bool { return q.MaxCandidates <= 0 || q.FewMatches }

// scanTop runs the unfiltered pass; it fills res's scan statistics and
// returns the best q.Limit matches, best first. It walks the matches
// oldest first when it scores all of them (ascending); a FewMatches scan
// that meets more matches than the cap after all (the index grew since the
// caller counted) runs again newest first, so the hint never changes the
// answer.
//
// A capped scan of an all-words query without the hint asks probeFew
// first, and walks oldest first too (topQueryTrim) when the probe expects
// about the cap's matches or fewer; when the walk reaches its guard it
// runs newest first after all.
func (s *Store) scanTop(ctx context.Context, tx *sql.Tx, q lexicalQuery, res *cairn.LexicalResult) ([]scored, error) {
	if !ascending(q) {
		few, err := s.probeFew(ctx, tx, q)
		if err != nil || !few {
			if err != nil {
				return nil, err
			}
			top, _, err := s.scanTopOrder(ctx, tx, q, res, topQuery)
			return top, err
		}
		top, n, err := s.scanTopOrder(ctx, tx, q, res, topQueryTrim)
		if err != nil || n < int64(probeGuard)*int64(q.MaxCandidates+1) {
			return top, err
		}
		*res = cairn.LexicalResult{}
		top, _, err = s.scanTopOrder(ctx, tx, q, res, topQuery)
		return top, err
	}
	top, _, err := s.scanTopOrder(ctx, tx, q, res, topQueryAsc)
	if err != nil || !res.Capped {
		return top, err
	}
	*res = cairn.LexicalResult{}
	top, _, err = s.scanTopOrder(ctx, tx, q, res, topQuery)
	return top, err
}

// Probing an all-words query (probeFew): the matches among the newest
// 1/probeShare of the chunk id range are counted, up to probeLimit; the
// query counts as few when that share scaled to the range is at most
// probeAbove times the cap. topQueryTrim then walks up to probeGuard
// times the cap's matches. Measured at 1M chunks on the 207 common
// all-words queries without the hint (bench/RESULTS.md, engineer lx): a
// probe costs 0.2 to 0.4 ms CPU; an oldest-first walk of every match
// 25 to 35% less than the newest-first one (12.4 -> 8.2 ms for 1,767
// matches of three words in 12% of the chunks each).
const (
	probeLimit = 256
	probeAbove = 1.25
	probeGuard = 4
)

// probeShare is a var for tests: 0 turns the probe off.
var probeShare int64 = 32

// probeQuery counts an expression's matches above a chunk id, up to a
// limit.
const probeQuery = `SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 AND rowid > ?2 LIMIT ?3)`

// probeFew reports whether an all-words query with a cap, which the
// caller could not tell to have few matches (its words are too common to
// count exactly, so FewMatches is unset), probably matches about the cap
// or fewer: its matches among the newest 1/probeShare of the chunk ids,
// scaled to the whole range. The capped scan newest first then walks
// nearly every match, through the words' long doclists backwards, which
// costs FTS5 more than forwards; topQueryTrim walks them forwards. The
// probe changes no answer (topQueryTrim answers what topQuery does, and a
// walk cut by its guard is done again newest first), only which walk is
// paid; it stops at probeLimit matches, so a query of dense words pays a
// small part of its scan for it.
func (s *Store) probeFew(ctx context.Context, tx *sql.Tx, q lexicalQuery) (bool, error) {
	if q.MaxCandidates <= 0 || q.Match.Op != cairn.MatchAll || len(q.Match.Of) < 2 || probeShare <= 0 {
		return false, nil
	}
	sp, err := s.Span(ctx)
	if err != nil {
		return false, err
	}
	width := (sp.MaxID - sp.MinID + 1) / probeShare
	if width < probeLimit {
		return false, nil // a small index: every scan is short
	}
	st, err := s.txStmt(ctx, tx, probeQuery)
	if err != nil {
		return false, err
	}
	var n int
	if err := st.QueryRowContext(ctx, q.m.expr, sp.MaxID-width, probeLimit).Scan(&n); err != nil {
		return false, queryError(err)
	}
	return n < probeLimit && float64(int64(n)*probeShare) <= probeAbove*float64(q.MaxCandidates), nil
}

// scanTopOrder is scanTop with one statement, topQuery, topQueryAsc or
// topQueryTrim; n is the count the statement reported (0 without rows).
func (s *Store) scanTopOrder(ctx context.Context, tx *sql.Tx, q lexicalQuery, res *cairn.LexicalResult, query string) (top []scored, n int64, err error) {
	limit, capAt := int64(-1), int64(math.MaxInt64)
	if q.MaxCandidates > 0 {
		limit, capAt = int64(q.MaxCandidates)+1, int64(q.MaxCandidates)
	}
	idf := make([]byte, 8*len(q.m.idf))
	for i, w := range q.m.idf {
		binary.NativeEndian.PutUint64(idf[8*i:], math.Float64bits(w))
	}
	st, err := s.txStmt(ctx, tx, query)
	if err != nil {
		return nil, 0, err
	}
	order := make([]byte, 4*len(q.m.order))
	for i, k := range q.m.order {
		binary.NativeEndian.PutUint32(order[4*i:], uint32(k))
	}
	rows, err := st.QueryContext(ctx, idf, q.m.expr, limit, capAt, q.Limit, order)
	if err != nil {
		return nil, 0, queryError(err)
	}
	defer rows.Close()
	top = make([]scored, 0, q.Limit)
	for rows.Next() {
		var m scored
		if err := rows.Scan(&m.id, &m.score, &n, &res.Low); err != nil {
			return nil, 0, queryError(err)
		}
		res.Scanned, res.Capped = int(min(n, capAt)), n > capAt
		top = append(top, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, queryError(err)
	}
	return top, n, nil
}

// scanFiltered runs the pass with the corpus and path filter inside,
// uncapped, scoring in Go; it returns the best q.Limit matches.
func (s *Store) scanFiltered(ctx context.Context, tx *sql.Tx, q lexicalQuery, res *cairn.LexicalResult) ([]scored, error) {
	query, args := filteredQuery(q)
	st, err := s.txStmt(ctx, tx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, queryError(err)
	}
	defer rows.Close()
	top := make([]scored, 0, q.Limit+1) // a min-heap on worse: top[0] is the weakest kept
	for rows.Next() {
		var id int64
		var tf []byte
		if err := rows.Scan(&id, &tf); err != nil {
			return nil, queryError(err)
		}
		res.Scanned++
		res.Low = id
		m := scored{id, score(tf, q.m.idf, q.m.order)}
		if len(top) < q.Limit {
			top = append(top, m)
			heapUp(top, len(top)-1)
		} else if worse(top[0], m) {
			top[0] = m
			heapDown(top, 0)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, queryError(err)
	}
	return top, nil
}

// filteredQuery is scanFiltered's statement and its arguments.
func filteredQuery(q lexicalQuery) (string, []any) {
	args := []any{q.m.expr}
	filter := ""
	if len(q.Corpora) > 0 {
		filter = " AND d.corpus IN (" + strings.TrimSuffix(strings.Repeat("?,", len(q.Corpora)), ",") + ")"
		for _, c := range q.Corpora {
			args = append(args, c)
		}
	}
	if q.Paths != nil {
		list, _ := json.Marshal(q.Paths)
		if q.PathCorpora != nil {
			only, _ := json.Marshal(q.PathCorpora)
			filter += " AND (d.corpus NOT IN (SELECT value FROM json_each(?)) OR d.path IN (SELECT value FROM json_each(?)))"
			args = append(args, string(only), string(list))
		} else {
			filter += " AND d.path IN (SELECT value FROM json_each(?))"
			args = append(args, string(list))
		}
	}
	return `SELECT DISTINCT chunks_fts.rowid, cairn_tf(chunks_fts, ` + scoreArgs + `)
		FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.cid = c.cid
		WHERE chunks_fts MATCH ?` + filter + ` ORDER BY chunks_fts.rowid DESC`, args
}

// score is Σ idf[i]·tf[i] over the float64 factors cairn_tf returned,
// summed in order (phrase indexes; nil: phrase order), as cairn_score sums.
func score(tf []byte, idf []float64, order []int32) float64 {
	var sum float64
	for k := 0; 8*k+8 <= len(tf); k++ {
		i := k
		if k < len(order) {
			i = int(order[k])
		}
		if 8*i+8 > len(tf) {
			continue
		}
		w := 1.0
		if i < len(idf) {
			w = idf[i]
		}
		sum += w * math.Float64frombits(binary.NativeEndian.Uint64(tf[8*i:]))
	}
	return sum
}

func heapUp(h []scored, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func heapDown(h []scored, i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && worse(h[l], h[m]) {
			m = l
		}
		if r := l + 1; r < len(h) && worse(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// hydrateQuery reads the winning chunks with every document holding them.
const hydrateQuery = `SELECT c.id, d.corpus, d.path, ct.title, c.seq, c.start_line, c.end_line,
			CAST(substr(ct.doc, c.pos + 1, c.len) AS TEXT)
		FROM chunks c JOIN documents d ON d.cid = c.cid JOIN content ct ON ct.id = c.cid
		WHERE c.id IN (SELECT value FROM json_each(?))`

// hydrate joins the winning chunks to every document that holds them.
func (s *Store) hydrate(ctx context.Context, tx *sql.Tx, top []scored) ([]cairn.Candidate, error) {
	ids := make([]int64, len(top))
	byID := make(map[int64]float64, len(top))
	for i, m := range top {
		ids[i] = m.id
		byID[m.id] = m.score
	}
	list, _ := json.Marshal(ids)
	st, err := s.txStmt(ctx, tx, hydrateQuery)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, string(list))
	if err != nil {
		return nil, queryError(err)
	}
	defer rows.Close()
	var out []cairn.Candidate
	for rows.Next() {
		var c cairn.Candidate
		// The text comes as TEXT (CAST), so it is copied once, into the string.
		if err := rows.Scan(&c.ChunkID, &c.Corpus, &c.Path, &c.Title, &c.Seq, &c.StartLine, &c.EndLine, &c.Text); err != nil {
			return nil, queryError(err)
		}
		c.Score, c.Lane = byID[c.ChunkID], cairn.LaneLexical
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, queryError(err)
	}
	return out, nil
}

// readStmt returns a prepared statement on the reader pool, preparing it
// once per store (database/sql prepares it again on each connection as
// needed). Search statements vary only with the number of corpora.
func (s *Store) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := s.cachedStmt(query); st != nil {
		return st, nil
	}
	// Prepared without holding smu: preparing waits for a free pool
	// connection, and a search that holds one in its transaction may be
	// waiting on smu (txStmt).
	st, err := s.r.PrepareContext(ctx, query)
	if err != nil {
		return nil, queryError(err)
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	if old, ok := s.stmts[query]; ok {
		st.Close() // prepared twice at once: keep the first
		return old, nil
	}
	if s.stmts == nil {
		s.stmts = make(map[string]*sql.Stmt)
	}
	s.stmts[query] = st
	return st, nil
}

func (s *Store) cachedStmt(query string) *sql.Stmt {
	s.smu.Lock()
	defer s.smu.Unlock()
	return s.stmts[query]
}

// lost reports whether a winner of the scan has no candidate.
func lost(top []scored, cands []cairn.Candidate) bool {
	found := make(map[int64]bool, len(top))
	for _, c := range cands {
		found[c.ChunkID] = true
	}
	for _, m := range top {
		if !found[m.id] {
			return true
		}
	}
	return false
}

// txStmt is readStmt's statement inside a read transaction, on the
// transaction's connection (closed with it), or on the pool when tx is
// nil. It never waits for another pool connection: a statement not
// prepared on the pool yet is prepared on the transaction's connection
// alone.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if tx == nil {
		return s.readStmt(ctx, query)
	}
	if st := s.cachedStmt(query); st != nil {
		return tx.StmtContext(ctx, st), nil
	}
	st, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, queryError(err)
	}
	return st, nil
}

// queryError turns FTS5 syntax errors into ErrInvalid.
func queryError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "fts5: syntax error") || strings.Contains(msg, "unterminated string") || strings.Contains(msg, "no such column") {
		return fmt.Errorf("%w: search query: %s", cairn.ErrInvalid, msg)
	}
	return fmt.Errorf("search index: %w", err)
}

// MatchCount counts chunks that m matches, newest first, stopping at max,
// and reports the id of the oldest one counted.
func (s *Store) MatchCount(ctx context.Context, m cairn.Match, max int) (cairn.MatchCount, error) {
	c, err := compile(m)
	if err != nil {
		return cairn.MatchCount{}, err
	}
	n, err := s.countExpr(ctx, c.expr, max)
	for i := 0; i < schemaRetries && schemaChanged(err); i++ {
		n, err = s.countExpr(ctx, c.expr, max)
	}
	return n, err
}

// countExpr is MatchCount of an FTS5 expression.
func (s *Store) countExpr(ctx context.Context, expr string, max int) (cairn.MatchCount, error) {
	var m cairn.MatchCount
	st, err := s.readStmt(ctx, `SELECT count(*), coalesce(min(rowid), 0) FROM (
		SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?)`)
	if err != nil {
		return m, err
	}
	if err := st.QueryRowContext(ctx, expr, max).Scan(&m.N, &m.Low); err != nil {
		return m, queryError(err)
	}
	return m, nil
}

// Span reports how many chunks the index holds and their id range, in
// constant time: the row count is FTS5's own (the first varint of its
// averages record, id 1 of the %_data table, which FTS5 keeps exact on
// every insert and delete), the range comes from the rowid b-tree. A
// count(*) over chunks walked every page: 75 ms a CLI search at 105k
// chunks, measured.
func (s *Store) Span(ctx context.Context) (cairn.IndexSpan, error) {
	var sp cairn.IndexSpan
	var avg []byte
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT min(id) FROM chunks), (SELECT max(id) FROM chunks),
		(SELECT block FROM chunks_fts_data WHERE id = 1)`).Scan(&sqlNullInt{&sp.MinID}, &sqlNullInt{&sp.MaxID}, &avg)
	if err != nil {
		return sp, fmt.Errorf("read index span: %w", err)
	}
	if len(avg) > 0 {
		n, ok := varint(avg)
		if !ok {
			return sp, fmt.Errorf("read index span: unreadable FTS5 averages record")
		}
		sp.Rows = int64(n)
	}
	return sp, nil
}

// sqlNullInt scans an integer that may be NULL (as 0).
type sqlNullInt struct{ p *int64 }

func (n *sqlNullInt) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n.p = 0
	case int64:
		*n.p = x
	default:
		return fmt.Errorf("not an integer: %T", v)
	}
	return nil
}

// varint decodes SQLite's variable-length integer (big-endian groups of 7
// bits, the high bit set on all but the last byte; a ninth byte carries 8).
func varint(b []byte) (uint64, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), true
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

// DocumentText returns the indexed text snapshot of one document.
func (s *Store) DocumentText(ctx context.Context, corpus, path string) (string, error) {
	var doc []byte
	err := s.r.QueryRowContext(ctx, `SELECT ct.doc FROM documents d JOIN content ct ON ct.id = d.cid
		WHERE d.corpus=? AND d.path=?`, corpus, path).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return "", cairn.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read document %s: %w", path, err)
	}
	return string(doc), nil
}

// Stats counts what the index holds (Bytes: the file and its WAL).
type Stats = cairn.IndexStats

// Stats reports index counts and size on disk.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM content),
		(SELECT count(*) FROM chunks)`).Scan(&st.Documents, &st.Contents, &st.Chunks)
	if err != nil {
		return st, fmt.Errorf("read index stats: %w", err)
	}
	st.Bytes = fileSize(s.Path) + fileSize(s.Path+"-wal")
	return st, nil
}

// CorpusStats is Stats of some corpora, for a caller that may read only
// those (engine.IndexStats under a scope): their documents, the contents
// those documents hold and the chunks of those contents, each content
// once. Bytes is 0: the file holds every corpus, and its size is not one
// corpus's to tell.
func (s *Store) CorpusStats(ctx context.Context, corpora []string) (Stats, error) {
	var st Stats
	if len(corpora) == 0 {
		return st, nil
	}
	list, _ := json.Marshal(corpora)
	err := s.r.QueryRowContext(ctx, `WITH d AS MATERIALIZED (SELECT cid FROM documents WHERE corpus IN (SELECT value FROM json_each(?))),
		c AS MATERIALIZED (SELECT DISTINCT cid FROM d)
		SELECT (SELECT count(*) FROM d), (SELECT count(*) FROM c),
			(SELECT count(*) FROM chunks WHERE cid IN (SELECT cid FROM c))`, string(list)).Scan(&st.Documents, &st.Contents, &st.Chunks)
	if err != nil {
		return st, s.diagnose("read index stats", fmt.Errorf("count corpora %s: %w", strings.Join(corpora, ", "), err))
	}
	return st, nil
}

// pathLimited reports whether LexicalQuery.Paths restricts a corpus: every
// corpus when PathCorpora is nil, else only those it names.
func pathLimited(pathCorpora []string) func(string) bool {
	if pathCorpora == nil {
		return func(string) bool { return true }
	}
	return func(c string) bool { return slices.Contains(pathCorpora, c) }
}
