package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairnmemory/cairn"
)

// The portable form of a data directory's storage (cairn.Porter): the
// index and the durable store read in one read transaction (one snapshot
// of both files) and written in one write transaction on the writer
// connection, which has both attached. An error rolls both files back. A
// crash during the commit itself can leave one file committed and not the
// other (WAL makes a commit atomic per file only): run the import again
// with --replace, which deletes what either file holds first.

var _ cairn.Porter = (*Store)(nil)

// portMetaWhere selects the meta keys the portable form carries.
const portMetaWhere = `key LIKE 'redact:%' OR key LIKE 'projection:%'`

// PortInfo counts the rows of every portable table and the vectors of
// each embedder identity.
func (s *Store) PortInfo(ctx context.Context) (cairn.PortInfo, error) {
	info := cairn.PortInfo{Backend: "sqlite", Counts: map[string]int64{},
		Schema: fmt.Sprintf("index %d, durable %d", SchemaVersion, DurableVersion), FeatureVersion: s.FeatureVersion}
	for _, t := range cairn.PortTables {
		q := `SELECT count(*) FROM ` + t.Name
		switch t.Name {
		case "meta":
			q += ` WHERE ` + portMetaWhere
		case cairn.PortVectors:
			q += ` WHERE chunk_id IN (SELECT id FROM chunks)`
		}
		var n int64
		if err := s.r.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return info, fmt.Errorf("count %s: %w", t.Name, err)
		}
		info.Counts[t.Name] = n
	}
	rows, err := s.r.QueryContext(ctx, portModelsSQL)
	if err != nil {
		return info, fmt.Errorf("count vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var m cairn.PortModel
		if err := rows.Scan(&m.Identity, &m.Dimension, &m.Vectors); err != nil {
			return info, fmt.Errorf("count vectors: %w", err)
		}
		info.Models = append(info.Models, m)
	}
	return info, rows.Err()
}

// portModelsSQL counts the vectors of each identity and their dimension,
// reading them in identity order from vectors_identity. Grouped from a
// scan of the table, SQLite sorted the rows in a temporary b-tree that
// held every vector's blob for length() (temp_store is MEMORY): 1.5 KB a
// vector of 384 floats in memory, the 1.65 GB peak of an export of 1M
// vectors.
const portModelsSQL = `SELECT identity, max(length(vec)) / 4, count(*) FROM vectors INDEXED BY vectors_identity
	WHERE chunk_id IN (SELECT id FROM chunks) GROUP BY identity ORDER BY identity`

// Export reads every portable table in one read transaction.
func (s *Store) Export(ctx context.Context, fn func(cairn.PortRow) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin export: %w", err)
	}
	defer tx.Rollback()
	for _, t := range cairn.PortTables {
		switch t.Name {
		case cairn.PortContent:
			err = exportContent(ctx, tx, fn)
		case cairn.PortChunks:
			continue // with their content
		case cairn.PortVectors:
			// CROSS JOIN keeps vectors the outer loop, read in chunk id
			// order: a plain join lets the planner scan chunks by
			// (cid, seq) and sort every vector in a temporary b-tree
			// (150 MB at 100k vectors of 384 floats).
			err = exportRows(ctx, tx, t, `SELECT v.identity, ct.hash, c.seq, v.vec FROM vectors v CROSS JOIN chunks c ON c.id = v.chunk_id
				CROSS JOIN content ct ON ct.id = c.cid ORDER BY v.chunk_id`, fn)
		case "meta":
			err = exportRows(ctx, tx, t, `SELECT key, value FROM meta WHERE `+portMetaWhere+` ORDER BY key`, fn)
		default:
			err = exportRows(ctx, tx, t, `SELECT `+columnList(t)+` FROM `+t.Name+` ORDER BY `+t.Order, fn)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func columnList(t cairn.PortTable) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// exportRows runs q and calls fn with each row as t's column types.
func exportRows(ctx context.Context, tx *sql.Tx, t cairn.PortTable, q string, fn func(cairn.PortRow) error) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("export %s: %w", t.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanPortRow(rows, t)
		if err != nil {
			return fmt.Errorf("export %s: %w", t.Name, err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export %s: %w", t.Name, err)
	}
	return nil
}

func scanPortRow(rows *sql.Rows, t cairn.PortTable) (cairn.PortRow, error) {
	dst := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		switch c.Type {
		case cairn.PortText:
			dst[i] = new(string)
		case cairn.PortInt:
			dst[i] = new(int64)
		case cairn.PortNullInt:
			dst[i] = new(sql.NullInt64)
		case cairn.PortFloat:
			dst[i] = new(float64)
		case cairn.PortBytes, cairn.PortVector:
			dst[i] = new([]byte)
		}
	}
	if err := rows.Scan(dst...); err != nil {
		return cairn.PortRow{}, err
	}
	r := cairn.PortRow{Table: t.Name, Values: make([]any, len(dst))}
	for i, c := range t.Columns {
		switch v := dst[i].(type) {
		case *string:
			r.Values[i] = *v
		case *int64:
			r.Values[i] = *v
		case *sql.NullInt64:
			if v.Valid {
				r.Values[i] = v.Int64
			}
		case *float64:
			r.Values[i] = *v
		case *[]byte:
			if c.Type == cairn.PortVector {
				r.Values[i] = decodeInto(nil, *v)
			} else {
				r.Values[i] = append([]byte{}, *v...)
			}
		}
	}
	return r, nil
}

// exportContent writes each content row followed by its chunks: the
// contents without chunks first, then the chunks in id order, each
// content written before the first of its chunks (again, should its
// chunks not be consecutive: the import keeps the first).
func exportContent(ctx context.Context, tx *sql.Tx, fn func(cairn.PortRow) error) error {
	ct, _ := cairn.PortTableNamed(cairn.PortContent)
	ch, _ := cairn.PortTableNamed(cairn.PortChunks)
	if err := exportRows(ctx, tx, ct, `SELECT hash, title, doc, created_at FROM content ct
		WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.cid = ct.id) ORDER BY hash`, fn); err != nil {
		return err
	}
	content, err := tx.PrepareContext(ctx, `SELECT hash, title, doc, created_at FROM content WHERE hash = ?`)
	if err != nil {
		return fmt.Errorf("export content: %w", err)
	}
	defer content.Close()
	last := ""
	return exportRows(ctx, tx, ch, `SELECT ct.hash, c.seq, c.pos, c.len, c.start_line, c.end_line, c.tokens, c.noise
		FROM chunks c CROSS JOIN content ct ON ct.id = c.cid ORDER BY c.id`,
		func(r cairn.PortRow) error {
			if h := r.Values[0].(string); h != last {
				last = h
				var title string
				var doc []byte
				var created int64
				if err := content.QueryRowContext(ctx, h).Scan(&h, &title, &doc, &created); err != nil {
					return fmt.Errorf("export content %s: %w", h, err)
				}
				if err := fn(cairn.PortRow{Table: cairn.PortContent, Values: []any{h, title, doc, created}}); err != nil {
					return err
				}
			}
			return fn(r)
		})
}

// Import writes src into the index and the durable store in one
// transaction of the writer connection.
func (s *Store) Import(ctx context.Context, replace bool, src cairn.PortSource) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin import: %w", err)
	}
	defer tx.Rollback()
	if err := s.clearForImport(ctx, tx, replace); err != nil {
		return err
	}
	im := &sqliteImport{s: s, tx: tx, src: src, stmts: map[string]*sql.Stmt{}}
	defer im.close()
	for {
		r, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := im.put(ctx, r); err != nil {
			return err
		}
	}
	drop, err := src.Done()
	if err != nil {
		return err
	}
	if err := im.drop(ctx, drop); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit import: %w", err)
	}
	s.wrote.Store(true)
	s.gen.Add(1)
	return nil
}

// clearForImport refuses a storage that holds anything unless replace,
// and then deletes it all.
func (s *Store) clearForImport(ctx context.Context, tx *sql.Tx, replace bool) error {
	var held []string
	for _, t := range cairn.PortTables {
		q := `SELECT count(*) FROM ` + t.Name
		if t.Name == "meta" {
			q += ` WHERE ` + portMetaWhere
		}
		var n int
		if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return fmt.Errorf("count %s: %w", t.Name, err)
		}
		if n > 0 {
			held = append(held, fmt.Sprintf("%d %s", n, t.Name))
		}
	}
	if len(held) == 0 {
		return nil
	}
	if !replace {
		return cairn.Invalidf("import into %s: the storage is not empty (%s); pass --replace to delete what it holds first, or import into another agent (--agent NAME) or data directory", s.Path, strings.Join(held, ", "))
	}
	stmts := []string{`DELETE FROM chunks_fts`, `DELETE FROM meta WHERE ` + portMetaWhere}
	for _, t := range cairn.PortTables {
		if t.Name != "meta" {
			stmts = append(stmts, `DELETE FROM `+t.Name)
		}
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("empty storage for import: %w", err)
		}
	}
	return nil
}

// sqliteImport is one import's statements and the content its next
// chunks belong to.
type sqliteImport struct {
	s     *Store
	tx    *sql.Tx
	src   cairn.PortSource
	stmts map[string]*sql.Stmt

	hash, title string // the last content row
	doc         []byte
	cid         int64 // its id
}

func (im *sqliteImport) close() {
	for _, st := range im.stmts {
		st.Close()
	}
}

func (im *sqliteImport) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := im.stmts[q]; ok {
		return st, nil
	}
	st, err := im.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare import: %w", err)
	}
	im.stmts[q] = st
	return st, nil
}

// put writes one row; a row the tables refuse (a duplicate key, a
// failed check, a vector without its chunk) is rejected and the import
// goes on.
func (im *sqliteImport) put(ctx context.Context, r cairn.PortRow) error {
	t, _ := cairn.PortTableNamed(r.Table)
	vals := append([]any{}, r.Values...)
	var q string
	switch r.Table {
	case cairn.PortVectors:
		q = `INSERT OR IGNORE INTO vectors(chunk_id, identity, vec) SELECT c.id, ?, ? FROM content ct JOIN chunks c ON c.cid = ct.id WHERE ct.hash = ? AND c.seq = ?`
		vals = []any{vals[0], EncodeVector(vals[3].([]float32)), vals[1], vals[2]}
	case cairn.PortChunks:
		return im.putChunk(ctx, r)
	case "meta":
		k := vals[0].(string)
		if !strings.HasPrefix(k, "redact:") && !strings.HasPrefix(k, "projection:") {
			im.src.Reject(r, "meta key "+k+" is not carried (only redact:<corpus> and projection:<corpus>)")
			return nil
		}
		q = `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`
	case "documents":
		// A document points at its content by id: one named by a hash
		// the import holds no content for fails cid's NOT NULL and is
		// rejected.
		q = `INSERT OR IGNORE INTO documents(` + columnList(t) + `, cid) VALUES(?` + strings.Repeat(", ?", len(t.Columns)-1) + `,
			(SELECT id FROM content WHERE hash = ?))`
		vals = append(vals, vals[2])
	default:
		q = `INSERT OR IGNORE INTO ` + t.Name + `(` + columnList(t) + `) VALUES(?` + strings.Repeat(", ?", len(t.Columns)-1) + `)`
	}
	if r.Table == cairn.PortContent {
		im.hash, im.title, im.doc = vals[0].(string), vals[1].(string), vals[2].([]byte)
		im.cid = 0 // until it is stored
	}
	st, err := im.stmt(ctx, q)
	if err != nil {
		return err
	}
	res, err := st.ExecContext(ctx, vals...)
	if isConstraint(err) {
		im.src.Reject(r, err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", r.Table, err)
	}
	if r.Table == cairn.PortContent {
		if err := im.contentID(ctx, res); err != nil {
			return err
		}
	}
	if n, _ := res.RowsAffected(); n == 0 {
		switch r.Table {
		case cairn.PortVectors:
			im.src.Reject(r, fmt.Sprintf("no chunk %v:%v for the vector", vals[2], vals[3]))
		case cairn.PortContent:
			// written again before chunks that were not consecutive
		default:
			im.src.Reject(r, "a row with this key was imported already")
		}
	}
	return nil
}

// contentID sets im.cid to the id of the content row just put (written
// now, or before when its chunks were not consecutive).
func (im *sqliteImport) contentID(ctx context.Context, res sql.Result) error {
	if n, _ := res.RowsAffected(); n > 0 {
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("import content: %w", err)
		}
		im.cid = id
		return nil
	}
	if err := im.tx.QueryRowContext(ctx, `SELECT id FROM content WHERE hash = ?`, im.hash).Scan(&im.cid); err != nil {
		return fmt.Errorf("import content %s: %w", im.hash, err)
	}
	return nil
}

// putChunk writes a chunk of the last content row and its full-text row.
func (im *sqliteImport) putChunk(ctx context.Context, r cairn.PortRow) error {
	v := r.Values
	hash, pos, n := v[0].(string), v[2].(int64), v[3].(int64)
	switch {
	case hash != im.hash || im.cid == 0:
		im.src.Reject(r, "chunk "+hash+" does not follow its content row")
		return nil
	case pos < 0 || n < 0 || pos+n > int64(len(im.doc)):
		im.src.Reject(r, fmt.Sprintf("chunk range %d+%d outside the text of %d bytes", pos, n, len(im.doc)))
		return nil
	}
	st, err := im.stmt(ctx, `INSERT OR IGNORE INTO chunks(cid, seq, pos, len, start_line, end_line, tokens, noise) VALUES(?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	noise := v[7].(int64) != 0
	res, err := st.ExecContext(ctx, im.cid, v[1], pos, n, v[4], v[5], v[6], noise)
	if err != nil {
		return fmt.Errorf("import chunks: %w", err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		im.src.Reject(r, fmt.Sprintf("chunk %s:%v was imported already", hash, v[1]))
		return nil
	}
	if noise {
		return nil
	}
	id, _ := res.LastInsertId()
	body := string(im.doc[pos : pos+n])
	ident := ""
	if im.s.Ident != nil {
		ident = im.s.Ident(body)
	}
	fts, err := im.stmt(ctx, `INSERT INTO chunks_fts(rowid, title, body, ident) VALUES(?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	if _, err := fts.ExecContext(ctx, id, im.title, body, ident); err != nil {
		return fmt.Errorf("import chunks: full-text row of %s:%v: %w", hash, v[1], err)
	}
	return nil
}

// drop deletes the contents src found lost chunks on the way, with
// their chunks, full-text rows, vectors and the documents naming them.
func (im *sqliteImport) drop(ctx context.Context, hashes []string) error {
	for _, h := range hashes {
		for _, q := range []string{
			`DELETE FROM chunks_fts WHERE rowid IN (SELECT c.id FROM content ct JOIN chunks c ON c.cid = ct.id WHERE ct.hash = ? AND NOT c.noise)`,
			`DELETE FROM vectors WHERE chunk_id IN (SELECT c.id FROM content ct JOIN chunks c ON c.cid = ct.id WHERE ct.hash = ?)`,
			`DELETE FROM chunks WHERE cid IN (SELECT id FROM content WHERE hash = ?)`,
			`DELETE FROM documents WHERE cid IN (SELECT id FROM content WHERE hash = ?)`,
			`DELETE FROM content WHERE hash = ?`,
		} {
			if _, err := im.tx.ExecContext(ctx, q, h); err != nil {
				return fmt.Errorf("drop incomplete content %s: %w", h, err)
			}
		}
	}
	return nil
}

// isConstraint reports a statement refused by a table's constraints.
func isConstraint(err error) bool {
	return err != nil && strings.Contains(err.Error(), "constraint failed")
}
