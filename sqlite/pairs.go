package sqlite

// Pair tokens for an index's own frequent words.
//
// The cairn tokenizer pairs the twenty most frequent English words
// (GramWords). An index whose own most frequent terms are others (a
// generated corpus, another language, a code base) walks their doclists,
// positions and all, for every phrase of them: at 1M chunks of
// cairnbench's corpus "thoupleand" is in 80% of the chunks, and a phrase
// of such words took 35 to 80 ms CPU (bench/RESULTS.md). The tokenizer
// takes more common words as an argument ("words" LIST before the wrapped
// tokenizer), so each full-text table carries its own list in its schema:
// documents and queries of that table see the same list, which is what
// keeps a phrase's matches and scores exact whatever the list holds.
//
// A new list is built beside the old table in bounded steps (PairStep,
// each one write transaction): a table chunks_fts_next with the new list
// is filled in chunk id order while syncs go on writing chunks_fts;
// triggers on chunks note in pairs_dirty every chunk id at or below the
// step's cursor that a sync inserts or deletes, and the next step indexes
// those again. The last step swaps the new table in (the old one retired,
// the new one renamed) in its own transaction, so readers see the old
// table or the new one, never a half-built one, and an interrupted step
// rolls back and is redone. Later idle steps empty the retired table in
// bounded batches (optimize.go).

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// TermDocs is one indexed term and how many chunks hold it.
type TermDocs struct {
	Term string
	Docs int
}

// termDocs reads every term of the index (words, not pair tokens) with the
// chunks holding it, through FTS5's fts5vocab on a reader connection: it
// reads every doclist, about 6 s CPU at 1M chunks. keep says which terms
// to return.
func (s *Store) termDocs(ctx context.Context, keep func(TermDocs) bool) ([]TermDocs, error) {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("read term counts: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.cairn_vocab USING fts5vocab(main, chunks_fts, row)`); err != nil {
		return nil, fmt.Errorf("read term counts: %w", err)
	}
	defer conn.ExecContext(context.Background(), `DROP TABLE IF EXISTS temp.cairn_vocab`)
	// Pair tokens start with the separator, below every word's first byte.
	rows, err := conn.QueryContext(ctx, `SELECT term, doc FROM temp.cairn_vocab WHERE term >= '0'`)
	if err != nil {
		return nil, fmt.Errorf("read term counts: %w", err)
	}
	defer rows.Close()
	var out []TermDocs
	for rows.Next() {
		var t TermDocs
		if err := rows.Scan(&t.Term, &t.Docs); err != nil {
			return nil, fmt.Errorf("read term counts: %w", err)
		}
		if !strings.HasPrefix(t.Term, gramMarker) && keep(t) {
			out = append(out, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read term counts: %w", err)
	}
	slices.SortFunc(out, func(a, b TermDocs) int { return cmp.Or(cmp.Compare(b.Docs, a.Docs), cmp.Compare(a.Term, b.Term)) })
	return out, nil
}

// driftSample bounds the chunks the drift check reads: above it the
// check counts terms in every k-th chunk by id (about driftSample of them)
// and scales the counts to rows, instead of reading every doclist. The
// list only decides which words pair, never a match or a score, and the
// check's 2x margins (a missing term in 20% of the chunks, a listed one
// under 5%) dwarf the estimate's error: a share of 20% is off by 0.4
// points at one standard deviation. Measured at 1M chunks (lextail
// -terms 300, bench/RESULTS.md): 2.94 to 3.11 s CPU exact, 0.83 to 0.92 s
// sampled; the largest share error over terms in 5% or more 1.14 points;
// 92 terms in 10% of the chunks exactly, 91 sampled, two of them other
// words at 10.0 to 10.3%. 20,000 chunks: 1.30 to 1.62 s, 0.54 points.
var driftSample = 10000

// driftTerms returns the terms held by at least the chunks keep asks, as
// termDocs does, counted exactly up to driftSample rows and estimated
// from an even sample of chunks above it.
func (s *Store) driftTerms(ctx context.Context, rows int, keep func(TermDocs) bool) ([]TermDocs, error) {
	if rows <= driftSample {
		return s.termDocs(ctx, keep)
	}
	return s.sampledTermDocs(ctx, rows, keep)
}

// sampledTermDocs counts the terms of every k-th chunk by id (but noise),
// k the id range over driftSample, in a temporary full-text table with
// the wrapped tokenizer alone (the cairn tokenizer's words are its
// tokens), and scales each count by rows over the chunks read.
func (s *Store) sampledTermDocs(ctx context.Context, rows int, keep func(TermDocs) bool) ([]TermDocs, error) {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	defer conn.Close()
	var top sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT max(id) FROM chunks`).Scan(&top); err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	stride := max(1, top.Int64/int64(driftSample))
	defer conn.ExecContext(context.Background(), `DROP TABLE IF EXISTS temp.cairn_sample_vocab`)
	defer conn.ExecContext(context.Background(), `DROP TABLE IF EXISTS temp.cairn_sample`)
	for _, q := range []string{
		`DROP TABLE IF EXISTS temp.cairn_sample_vocab`,
		`DROP TABLE IF EXISTS temp.cairn_sample`,
		`CREATE VIRTUAL TABLE temp.cairn_sample USING fts5(title, body, ident, content='', tokenize='porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE temp.cairn_sample_vocab USING fts5vocab(temp, cairn_sample, row)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("sample term counts: %w", err)
		}
	}
	type chunk struct {
		id          int64
		title, body string
	}
	var sample []chunk
	rs, err := conn.QueryContext(ctx, `SELECT c.id, ct.title, substr(ct.doc, c.pos + 1, c.len)
		FROM chunks c JOIN content ct ON `+joinByID+` WHERE c.noise = 0 AND c.id % ? = 0`, stride)
	if err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	for rs.Next() {
		var c chunk
		var body []byte
		if err := rs.Scan(&c.id, &c.title, &body); err != nil {
			rs.Close()
			return nil, fmt.Errorf("sample term counts: %w", err)
		}
		c.body = string(body)
		sample = append(sample, c)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	if len(sample) == 0 {
		return nil, nil
	}
	tx, err := conn.BeginTx(ctx, nil) // temp only: one transaction for the inserts
	if err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO temp.cairn_sample(rowid, title, body, ident) VALUES(?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	defer ins.Close()
	for _, c := range sample {
		ident := ""
		if s.Ident != nil {
			ident = s.Ident(c.body)
		}
		if _, err := ins.ExecContext(ctx, c.id, c.title, c.body, ident); err != nil {
			return nil, fmt.Errorf("sample term counts: %w", err)
		}
	}
	vs, err := tx.QueryContext(ctx, `SELECT term, doc FROM temp.cairn_sample_vocab`)
	if err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	defer vs.Close()
	scale := float64(rows) / float64(len(sample))
	var out []TermDocs
	for vs.Next() {
		var t TermDocs
		if err := vs.Scan(&t.Term, &t.Docs); err != nil {
			return nil, fmt.Errorf("sample term counts: %w", err)
		}
		t.Docs = int(float64(t.Docs)*scale + 0.5)
		if keep(t) {
			out = append(out, t)
		}
	}
	if err := vs.Err(); err != nil {
		return nil, fmt.Errorf("sample term counts: %w", err)
	}
	slices.SortFunc(out, func(a, b TermDocs) int { return cmp.Or(cmp.Compare(b.Docs, a.Docs), cmp.Compare(a.Term, b.Term)) })
	return out, nil
}

// EstimatedTerms returns the n terms held by the most chunks as the
// drift check sees them: exact up to driftSample rows, estimated from a
// sample above (driftTerms).
func (s *Store) EstimatedTerms(ctx context.Context, n int) ([]TermDocs, error) {
	sp, err := s.Span(ctx)
	if err != nil {
		return nil, err
	}
	all, err := s.driftTerms(ctx, int(sp.Rows), func(TermDocs) bool { return true })
	if err != nil {
		return nil, err
	}
	return all[:min(n, len(all))], nil
}

// FrequentTerms returns the n terms (words, not pair tokens) held by the
// most chunks, most first (ties by term).
func (s *Store) FrequentTerms(ctx context.Context, n int) ([]TermDocs, error) {
	all, err := s.termDocs(ctx, func(TermDocs) bool { return true })
	if err != nil {
		return nil, err
	}
	return all[:min(n, len(all))], nil
}

// MaxPairWords is the most words a table's pair list may hold (the
// tokenizer keeps at most 512 common words, GramWords included).
const MaxPairWords = 400

// pairsTable is the CREATE statement of a full-text table whose tokenizer
// pairs words beside GramWords.
func pairsTable(name string, words []string) (string, error) {
	if len(words) > MaxPairWords {
		return "", fmt.Errorf("pair words: %d words: allowed at most %d", len(words), MaxPairWords)
	}
	for _, w := range words {
		if w == "" || strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
			return "", fmt.Errorf("pair words: %q: want a token of letters and digits", w)
		}
	}
	tok := "cairn porter unicode61 remove_diacritics 2"
	if len(words) > 0 {
		// A quoted argument of tokenize= is a single-quoted literal,
		// doubled inside the option's own single quotes.
		tok = `cairn words ''` + strings.Join(words, " ") + `'' porter unicode61 remove_diacritics 2`
	}
	return `CREATE VIRTUAL TABLE ` + name + ` USING fts5(
		title, body, ident,
		content='', contentless_delete=1,
		tokenize='` + tok + `'
	)`, nil
}

// Meta keys of the pair list: the last chunk id a rebuild indexed into
// chunks_fts_next, and the row count at the last drift check. The lists
// are read from the tables' schema (PairWords).
const (
	pairCursorKey  = "pair_cursor"
	pairCheckedKey = "pair_checked_rows"
)

// pairTriggers note in pairs_dirty the chunks at or below the build's
// cursor that a write inserts or deletes (chunks are never updated).
var pairTriggers = []string{
	`CREATE TABLE pairs_dirty(id INTEGER PRIMARY KEY)`,
	`CREATE TRIGGER pairs_dirty_ins AFTER INSERT ON chunks
		WHEN new.id <= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'pair_cursor')
		BEGIN INSERT OR IGNORE INTO pairs_dirty(id) VALUES(new.id); END`,
	`CREATE TRIGGER pairs_dirty_del AFTER DELETE ON chunks
		WHEN old.id <= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'pair_cursor')
		BEGIN INSERT OR IGNORE INTO pairs_dirty(id) VALUES(old.id); END`,
}

// dropPairBuild removes a build's table, triggers and state.
var dropPairBuild = []string{
	`DROP TRIGGER IF EXISTS pairs_dirty_ins`,
	`DROP TRIGGER IF EXISTS pairs_dirty_del`,
	`DROP TABLE IF EXISTS pairs_dirty`,
	`DROP TABLE IF EXISTS chunks_fts_next`,
	// pair_next, pair_words: the lists as builds before the fence
	// (fence.go) kept them.
	`DELETE FROM meta WHERE key IN ('pair_next', 'pair_cursor', 'pair_words')`,
}

// PairWords returns the current full-text table's own pair words (none for
// a table with only GramWords), as its schema names them: what its
// tokenizer pairs, whatever rebuilt the table (RebuildFTS makes it plain).
func (s *Store) PairWords(ctx context.Context) ([]string, error) {
	var create string
	if err := s.r.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chunks_fts'`).Scan(&create); err != nil {
		return nil, fmt.Errorf("read the full-text table: %w", err)
	}
	return tableWords(create), nil
}

// tableWords returns the pair words a full-text table's CREATE statement
// (pairsTable) names.
func tableWords(create string) []string {
	_, rest, ok := strings.Cut(create, "cairn words ''")
	if !ok {
		return nil
	}
	list, _, _ := strings.Cut(rest, "''")
	return strings.Fields(list)
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) readMeta(ctx context.Context, q queryer, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, nil
}

// StartPairs begins building a full-text table whose tokenizer pairs words
// (index tokens, as FrequentTerms returns them) beside GramWords; PairStep
// fills it and swaps it in. A build in progress is dropped first.
func (s *Store) StartPairs(ctx context.Context, words []string) error {
	create, err := pairsTable("chunks_fts_next", words)
	if err != nil {
		return err
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("start pair rebuild: %w", err)
	}
	defer tx.Rollback()
	// A build in progress is retired, not dropped (as swapPairs does).
	if err := retireFTS(ctx, tx, "chunks_fts_next"); err != nil {
		return fmt.Errorf("start pair rebuild: %w", err)
	}
	for _, q := range append(append(slices.Clone(dropPairBuild), create), pairTriggers...) {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("start pair rebuild: %w", err)
		}
	}
	if err := setMeta(ctx, tx, pairCursorKey, "-1"); err != nil {
		return err
	}
	if err := fencePairs(ctx, tx); err != nil { // fence.go: the new table may pair words
		return err
	}
	if err := tx.Commit(); err != nil {
		return interrupted(ctx, err)
	}
	return nil
}

// PairBuilding reports whether a pair rebuild is in progress.
func (s *Store) PairBuilding(ctx context.Context) (bool, error) {
	v, err := s.readMeta(ctx, s.r, pairCursorKey)
	return v != "", err
}

// PairStep indexes up to chunks chunks into the table StartPairs began:
// first the chunks that writes since the last step inserted or deleted at
// or below its cursor, then the next ones by id. When nothing is left it
// swaps the new table in for chunks_fts, in the same transaction, and
// reports done. Each step is one write transaction: a sync waits for at
// most one, readers see the old table until the swap commits, and a
// cancelled step rolls back whole. Without a build in progress it reports
// done and changes nothing.
func (s *Store) PairStep(ctx context.Context, chunks int) (done bool, err error) {
	if chunks <= 0 {
		return false, fmt.Errorf("pair rebuild step: %d chunks: want a positive number", chunks)
	}
	w, err := s.writer()
	if err != nil {
		return false, err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("pair rebuild step: %w", err)
	}
	defer tx.Rollback()
	cur, err := s.readMeta(ctx, tx, pairCursorKey)
	if err != nil || cur == "" {
		return true, err
	}
	cursor, err := strconv.ParseInt(cur, 10, 64)
	if err != nil {
		return false, fmt.Errorf("pair rebuild step: cursor %q: %w", cur, err)
	}
	n, err := s.redoDirty(ctx, tx, chunks)
	if err != nil {
		return false, err
	}
	left := chunks - n
	if left > 0 {
		last, m, err := indexChunks(ctx, s, tx, "chunks_fts_next", cursor, left)
		if err != nil {
			return false, err
		}
		if m > 0 {
			if err := setMeta(ctx, tx, pairCursorKey, strconv.FormatInt(last, 10)); err != nil {
				return false, err
			}
		} else if n == 0 {
			if err := s.swapPairs(ctx, tx); err != nil {
				return false, err
			}
			done = true
		}
	}
	if err := tx.Commit(); err != nil {
		return false, interrupted(ctx, err)
	}
	if done {
		s.gen.Add(1) // the same matches; cached counts are cheap to redo
	}
	return done, nil
}

// redoDirty indexes again up to limit chunks that writes noted in
// pairs_dirty: each leaves chunks_fts_next and, when it is still stored
// (and not noise), goes back in with its text.
func (s *Store) redoDirty(ctx context.Context, tx *sql.Tx, limit int) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM pairs_dirty ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return 0, fmt.Errorf("pair rebuild step: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("pair rebuild step: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("pair rebuild step: %w", err)
	}
	for _, id := range ids {
		// Only a row the table holds is deleted: FTS5 takes a contentless
		// row's sizes off the table's totals from its docsize entry.
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_fts_next WHERE rowid = ?1
			AND EXISTS (SELECT 1 FROM chunks_fts_next_docsize WHERE id = ?1)`, id); err != nil {
			return 0, fmt.Errorf("pair rebuild step: chunk %d: %w", id, err)
		}
		if _, _, err := indexChunksWhere(ctx, s, tx, "chunks_fts_next", `c.id = ?`, joinByID, id, id); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM pairs_dirty WHERE id = ?`, id); err != nil {
			return 0, fmt.Errorf("pair rebuild step: %w", err)
		}
	}
	return len(ids), nil
}

// joinByID joins chunks to their content (schema 12 and later).
const joinByID = "ct.id = c.cid"

// swapPairs puts chunks_fts_next in place of chunks_fts and drops the
// build's triggers and state. The old table is retired (optimize.go), not
// dropped: idle-time steps empty it afterwards, so the swap writes a few
// pages instead of zeroing the whole old index.
func (s *Store) swapPairs(ctx context.Context, tx *sql.Tx) error {
	if err := retireFTS(ctx, tx, "chunks_fts"); err != nil {
		return fmt.Errorf("swap in the paired full-text table: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE chunks_fts_next RENAME TO chunks_fts`); err != nil {
		return fmt.Errorf("swap in the paired full-text table: %w", err)
	}
	for _, q := range dropPairBuild {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("swap in the paired full-text table: %w", err)
		}
	}
	return fencePairs(ctx, tx) // fence.go: a list dropped again lowers the version
}

// PairRebuild reports what RebuildPairs did.
type PairRebuild struct {
	Steps   int
	Longest time.Duration
	Took    time.Duration
}

// RebuildPairs builds a table pairing words and swaps it in, in steps of
// chunks chunks back to back (StartPairs, then PairStep until done), then
// empties the retired old table in steps of retiredDataRows*chunks of its
// pages.
func (s *Store) RebuildPairs(ctx context.Context, words []string, chunks int) (PairRebuild, error) {
	t0 := time.Now()
	var r PairRebuild
	if err := s.StartPairs(ctx, words); err != nil {
		return r, err
	}
	for done := false; !done; r.Steps++ {
		t1 := time.Now()
		var err error
		if done, err = s.PairStep(ctx, chunks); err != nil {
			return r, err
		}
		r.Longest = max(r.Longest, time.Since(t1))
	}
	for {
		retired, err := s.Retired(ctx)
		if err != nil {
			return r, err
		}
		if !retired {
			break
		}
		t1 := time.Now()
		if _, err := s.dropRetiredStep(ctx, min(chunks, 1<<20)); err != nil {
			return r, err
		}
		r.Steps++
		r.Longest = max(r.Longest, time.Since(t1))
	}
	r.Took = time.Since(t0)
	return r, nil
}

// LiveBytes is the size of the index file's pages in use (pages freed by
// a rebuild stay in the file until a vacuum).
func (s *Store) LiveBytes(ctx context.Context) (int64, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, `SELECT ((SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count()))
		* (SELECT page_size FROM pragma_page_size())`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read index size: %w", err)
	}
	return n, nil
}

// pairPolicy decides when an index gets its own pair list and when the
// list has drifted. A term held by Share of the chunks or more is paired
// (at most MaxWords of them, the most frequent); the list is rebuilt when
// it lacks a term held by twice Share or holds one that fell below half of
// it, so a term near the line does not flap. The check counts terms
// (exactly, every doclist, up to driftSample rows; in a sample of
// driftSample chunks above: 0.8 to 0.9 s CPU at 1M chunks against 2.9 to
// 3.1 s exact), so it runs again only once the rows moved by Recheck since
// the last one; indexes under MinRows keep GramWords alone.
//
// Measured (bench/RESULTS.md, issue 19 item 4, LP): at 1M chunks of
// cairnbench's corpus the terms in 10% of the chunks are 93, and the table
// rebuilt with the top 100 paired cut lexical CPU p99 13.3 -> 10.1 ms and
// phrase p99 28.0 -> 5.3 ms (both sides merged into one segment), for 14%
// more pages and 144 s CPU of rebuild. Pairs make every later insert
// dearer: the docs corpus (31.6k chunks) indexed 2.2 s CPU into the table
// with GramWords alone, 2.7 to 3.3 s with its own top 45 and 3.8 to 4.1 s
// with its top 100; at 100k chunks phrase p99 was 4.6 ms without them. So
// only an index of MinRows chunks or more gets its own list.
var pairPolicy = struct {
	MinRows  int
	Share    float64
	MaxWords int
	Recheck  float64
}{MinRows: 200000, Share: 0.1, MaxWords: 200, Recheck: 0.25}

// pairStepChunks bounds an idle-time rebuild step: at 1M chunks about
// 0.1 ms CPU a chunk, so a fraction of a second (bench/RESULTS.md).
const pairStepChunks = 2000

// pairsDrifted checks, when the rows moved enough since the last check,
// whether the index's frequent terms drifted from its pair list, and
// returns the list it should have when they did.
func (s *Store) pairsDrifted(ctx context.Context, rows int) (want []string, drifted bool, err error) {
	p := pairPolicy
	if rows < p.MinRows {
		return nil, false, nil
	}
	v, err := s.readMeta(ctx, s.r, pairCheckedKey)
	if err != nil {
		return nil, false, err
	}
	if checked, err := strconv.Atoi(v); err == nil && checked > 0 && float64(max(rows-checked, checked-rows)) < p.Recheck*float64(checked) {
		return nil, false, nil
	}
	current, err := s.PairWords(ctx)
	if err != nil {
		return nil, false, err
	}
	low := p.Share / 2 * float64(rows)
	terms, err := s.driftTerms(ctx, rows, func(t TermDocs) bool { return float64(t.Docs) >= low })
	if err != nil {
		return nil, false, err
	}
	held := make(map[string]int, len(terms))
	for _, t := range terms {
		held[t.Term] = t.Docs
		if float64(t.Docs) >= p.Share*float64(rows) && len(want) < p.MaxWords {
			want = append(want, t.Term)
		}
	}
	for _, w := range want {
		if float64(held[w]) >= 2*p.Share*float64(rows) && !slices.Contains(current, w) {
			drifted = true
		}
	}
	for _, w := range current {
		if _, ok := held[w]; !ok {
			drifted = true
		}
	}
	if err := s.setMetaNow(ctx, pairCheckedKey, strconv.Itoa(rows)); err != nil {
		return nil, false, err
	}
	return want, drifted, nil
}

// setMetaNow writes one meta key in a transaction of its own.
func (s *Store) setMetaNow(ctx context.Context, key, value string) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	defer tx.Rollback()
	if err := setMeta(ctx, tx, key, value); err != nil {
		return err
	}
	return tx.Commit()
}
