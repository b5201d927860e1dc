package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// The portable form of one agent (cairn.Porter): exported from one
// repeatable-read transaction, imported in one transaction holding the
// agent's write lock, so a failed import leaves the agent as it was and
// other agents are never touched. Rows go in pipelined batches; a row the
// tables refuse is rejected by ON CONFLICT DO NOTHING (never by a failing
// statement, which would abort the transaction), and values PostgreSQL
// text cannot hold (NUL, invalid UTF-8) are rejected before they are sent.

var _ cairn.Porter = (*Store)(nil)

// pgColumn maps a portable column to this schema's name.
func pgColumn(table, col string) string {
	if table == "memory_neighbours" && col == "memory_id" {
		return "id"
	}
	return col
}

func pgColumns(t cairn.PortTable, prefix string) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = prefix + pgColumn(t.Name, c.Name)
	}
	return strings.Join(names, ", ")
}

func pgOrder(t cairn.PortTable) string {
	if t.Name == "memory_neighbours" {
		return "id, identity"
	}
	return t.Order
}

const pgMetaWhere = `(key LIKE 'redact:%' OR key LIKE 'projection:%')`

// PortInfo counts the agent's rows of every portable table and its
// vectors by embedder identity.
func (s *Store) PortInfo(ctx context.Context) (cairn.PortInfo, error) {
	info := cairn.PortInfo{Backend: "postgres", Counts: map[string]int64{},
		Schema: fmt.Sprintf("postgres %d (citus: %v)", SchemaVersion, s.citus), FeatureVersion: s.feature}
	for _, t := range cairn.PortTables {
		q := `SELECT count(*) FROM ` + t.Name + ` WHERE agent = $1`
		switch t.Name {
		case "meta":
			q = `SELECT count(*) FROM agent_meta WHERE agent = $1 AND ` + pgMetaWhere
		case cairn.PortVectors:
			q = `SELECT count(*) FROM vectors v JOIN chunks c ON c.agent = v.agent AND c.id = v.chunk_id WHERE v.agent = $1`
		}
		var n int64
		if err := s.pool.QueryRow(ctx, q, s.agent).Scan(&n); err != nil {
			return info, classify("count "+t.Name, err)
		}
		info.Counts[t.Name] = n
	}
	rows, err := s.pool.Query(ctx, `SELECT v.identity, max(vector_dims(v.vec)), count(*) FROM vectors v
		JOIN chunks c ON c.agent = v.agent AND c.id = v.chunk_id WHERE v.agent = $1 GROUP BY v.identity ORDER BY v.identity`, s.agent)
	if err != nil {
		return info, classify("count vectors", err)
	}
	ms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cairn.PortModel, error) {
		var m cairn.PortModel
		err := r.Scan(&m.Identity, &m.Dimension, &m.Vectors)
		return m, err
	})
	info.Models = ms
	return info, classify("count vectors", err)
}

// Export reads every portable table of the agent in one snapshot.
func (s *Store) Export(ctx context.Context, fn func(cairn.PortRow) error) error {
	return s.read(ctx, "export", func(tx pgx.Tx) error {
		for _, t := range cairn.PortTables {
			var err error
			switch t.Name {
			case cairn.PortContent:
				err = s.exportContent(ctx, tx, fn)
			case cairn.PortChunks:
				continue
			case cairn.PortVectors:
				err = s.exportRows(ctx, tx, t, `SELECT v.identity, c.hash, c.seq, v.vec FROM vectors v
					JOIN chunks c ON c.agent = v.agent AND c.id = v.chunk_id WHERE v.agent = $1 ORDER BY v.chunk_id`, fn)
			case "meta":
				err = s.exportRows(ctx, tx, t, `SELECT key, value FROM agent_meta WHERE agent = $1 AND `+pgMetaWhere+` ORDER BY key`, fn)
			default:
				err = s.exportRows(ctx, tx, t, `SELECT `+pgColumns(t, "")+` FROM `+t.Name+` WHERE agent = $1 ORDER BY `+pgOrder(t), fn)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Store) exportRows(ctx context.Context, tx pgx.Tx, t cairn.PortTable, q string, fn func(cairn.PortRow) error, args ...any) error {
	rows, err := tx.Query(ctx, q, append([]any{s.agent}, args...)...)
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

func scanPortRow(rows pgx.Rows, t cairn.PortTable) (cairn.PortRow, error) {
	dst := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		switch c.Type {
		case cairn.PortText:
			dst[i] = new(string)
		case cairn.PortInt, cairn.PortNullInt:
			dst[i] = new(*int64)
		case cairn.PortFloat:
			dst[i] = new(float64)
		case cairn.PortBytes:
			dst[i] = new([]byte)
		case cairn.PortVector:
			dst[i] = new(pgvector.Vector)
		}
		if t.Name == cairn.PortChunks && c.Name == "noise" {
			dst[i] = new(bool)
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
		case **int64:
			switch {
			case *v != nil:
				r.Values[i] = **v
			case c.Type == cairn.PortInt:
				r.Values[i] = int64(0)
			}
		case *float64:
			r.Values[i] = *v
		case *[]byte:
			r.Values[i] = *v
		case *pgvector.Vector:
			r.Values[i] = v.Slice()
		case *bool:
			r.Values[i] = map[bool]int64{false: 0, true: 1}[*v]
		}
	}
	return r, nil
}

// exportContent writes each content row before its chunks: contents
// without chunks first, then pages of chunks in id order, the content of
// each new hash read when its first chunk comes (pgx reads one result at
// a time, so a page is read whole before its contents are).
func (s *Store) exportContent(ctx context.Context, tx pgx.Tx, fn func(cairn.PortRow) error) error {
	ct, _ := cairn.PortTableNamed(cairn.PortContent)
	ch, _ := cairn.PortTableNamed(cairn.PortChunks)
	if err := s.exportRows(ctx, tx, ct, `SELECT hash, title, doc, created_at FROM content ct WHERE agent = $1
		AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.agent = ct.agent AND c.hash = ct.hash) ORDER BY hash`, fn); err != nil {
		return err
	}
	const page = 5000
	last, after := "", int64(0)
	for {
		var chunks []cairn.PortRow
		var ids []int64
		rows, err := tx.Query(ctx, `SELECT id, hash, seq, pos, len, start_line, end_line, tokens, noise FROM chunks
			WHERE agent = $1 AND id > $2 ORDER BY id LIMIT $3`, s.agent, after, page)
		if err != nil {
			return fmt.Errorf("export chunks: %w", err)
		}
		for rows.Next() {
			var id, seq, pos, n, sl, el, tok int64
			var hash string
			var noise bool
			if err := rows.Scan(&id, &hash, &seq, &pos, &n, &sl, &el, &tok, &noise); err != nil {
				rows.Close()
				return fmt.Errorf("export chunks: %w", err)
			}
			ids = append(ids, id)
			chunks = append(chunks, cairn.PortRow{Table: ch.Name, Values: []any{hash, seq, pos, n, sl, el, tok, map[bool]int64{false: 0, true: 1}[noise]}})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("export chunks: %w", err)
		}
		if len(chunks) == 0 {
			return nil
		}
		for _, r := range chunks {
			if h := r.Values[0].(string); h != last {
				last = h
				var title string
				var doc []byte
				var created int64
				if err := tx.QueryRow(ctx, `SELECT title, doc, created_at FROM content WHERE agent = $1 AND hash = $2`,
					s.agent, h).Scan(&title, &doc, &created); err != nil {
					return fmt.Errorf("export content %s: %w", h, err)
				}
				if err := fn(cairn.PortRow{Table: ct.Name, Values: []any{h, title, doc, created}}); err != nil {
					return err
				}
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		after = ids[len(ids)-1]
	}
}

// clearForImport refuses an agent that holds anything unless replace,
// and then deletes all its rows.
func (s *Store) clearForImport(ctx context.Context, tx pgx.Tx, replace bool) error {
	held, err := s.portableHeld(ctx, tx)
	if err != nil {
		return err
	}
	if len(held) == 0 {
		return nil
	}
	if !replace {
		return cairn.Invalidf("import into agent %q: the agent is not empty (%s); pass --replace to delete it first", s.agent, strings.Join(held, ", "))
	}
	if _, err := tx.Exec(ctx, `DELETE FROM agent_meta WHERE agent = $1 AND `+pgMetaWhere, s.agent); err != nil {
		return fmt.Errorf("empty agent for import: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM postings WHERE agent = $1`, s.agent); err != nil {
		return fmt.Errorf("empty agent for import: %w", err)
	}
	for _, t := range cairn.PortTables {
		if t.Name == "meta" {
			continue
		}
		if _, err := tx.Exec(ctx, `DELETE FROM `+t.Name+` WHERE agent = $1`, s.agent); err != nil {
			return fmt.Errorf("empty agent for import: %w", err)
		}
	}
	return nil
}

// portableHeld counts the agent's rows of every portable table, as
// "N table" for each table that holds any.
func (s *Store) portableHeld(ctx context.Context, tx pgx.Tx) ([]string, error) {
	var held []string
	for _, t := range cairn.PortTables {
		q := `SELECT count(*) FROM ` + t.Name + ` WHERE agent = $1`
		if t.Name == "meta" {
			q = `SELECT count(*) FROM agent_meta WHERE agent = $1 AND ` + pgMetaWhere
		}
		var n int
		if err := tx.QueryRow(ctx, q, s.agent).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, err)
		}
		if n > 0 {
			held = append(held, fmt.Sprintf("%d %s", n, t.Name))
		}
	}
	return held, nil
}

// forgetNewAgent deletes the agent's row and meta rows after a failed
// import when opening this store registered the agent (it was not there
// before) and the agent still holds no portable row: another writer may
// have filled it since, and then it stays. It runs on a context of its
// own, since the import's may be the cancelled one.
func (s *Store) forgetNewAgent(ctx context.Context) error {
	if !s.created {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return s.write(ctx, "remove new agent", func(tx pgx.Tx) error {
		held, err := s.portableHeld(ctx, tx)
		if err != nil || len(held) > 0 {
			return err
		}
		for _, q := range []string{`DELETE FROM agent_meta WHERE agent = $1`, `DELETE FROM agents WHERE agent = $1`} {
			if _, err := tx.Exec(ctx, q, s.agent); err != nil {
				return fmt.Errorf("remove new agent: %w", err)
			}
		}
		s.created = false
		return nil
	})
}

// dropContent deletes the contents an import found lost chunks on the
// way, with their chunks, vectors and the documents naming them.
func (s *Store) dropContent(ctx context.Context, tx pgx.Tx, hashes []string) error {
	if len(hashes) == 0 {
		return nil
	}
	for _, q := range []string{
		`DELETE FROM vectors WHERE agent = $1 AND chunk_id IN (SELECT id FROM chunks WHERE agent = $1 AND hash = ANY($2))`,
		deletePostings,
		`DELETE FROM chunks WHERE agent = $1 AND hash = ANY($2)`,
		`DELETE FROM documents WHERE agent = $1 AND hash = ANY($2)`,
		`DELETE FROM content WHERE agent = $1 AND hash = ANY($2)`,
	} {
		if _, err := tx.Exec(ctx, q, s.agent, hashes); err != nil {
			return fmt.Errorf("drop incomplete content: %w", err)
		}
	}
	return nil
}

// finishImport moves on what the import's raw rows bypassed: the indexed
// row count, the vectors version and memories stamp (caches elsewhere
// see a change), and the window sequence past the largest imported id.
func (s *Store) finishImport(ctx context.Context, tx pgx.Tx, maxWindow int64) error {
	// The postings of every imported chunk, in one statement (the agent
	// held none: an import goes into an empty or emptied agent), sorted
	// by the key, so the key's b-tree fills page after page instead of
	// taking each posting at a random place (at 1M chunks, 56M postings,
	// the key is several times shared_buffers: random inserts read and
	// write a page per posting). The sort gets work memory of its own
	// for this transaction.
	if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
		return fmt.Errorf("write postings: %w", err)
	}
	// The agent's own pair words (ownpairs.go) gain the imported chunks'
	// frequent lexemes first, so the one statement writes their pairs too.
	v, _, err := getMeta(ctx, tx, s.agent, pairWordsKey)
	if err != nil {
		return fmt.Errorf("read pair words: %w", err)
	}
	all, added, err := s.choosePairWords(ctx, tx, strings.Fields(v))
	if err != nil {
		return err
	}
	if len(added) > 0 {
		if err := setMeta(ctx, tx, s.agent, pairWordsKey, strings.Join(all, " ")); err != nil {
			return err
		}
		if s.logf != nil {
			s.logf("postgres: agent %q: pairing its %d most frequent words for phrases (%s)", s.agent, len(added), strings.Join(added, " "))
		}
	}
	if _, err := tx.Exec(ctx, importPostingsSQL, s.agent); err != nil {
		return fmt.Errorf("write postings: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO agent_meta(agent, key, value)
		SELECT $1, 'fts_rows', count(*)::text FROM chunks WHERE agent = $1 AND NOT noise
		ON CONFLICT(agent, key) DO UPDATE SET value = excluded.value`, s.agent); err != nil {
		return fmt.Errorf("count indexed chunks: %w", err)
	}
	if err := addMeta(ctx, tx, s.agent, vectorsVersionKey, 1); err != nil {
		return err
	}
	if err := addMeta(ctx, tx, s.agent, memoriesStampKey, 1); err != nil {
		return err
	}
	if maxWindow > 0 {
		if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence('consolidation_windows', 'id'),
			greatest($1::bigint, nextval(pg_get_serial_sequence('consolidation_windows', 'id'))))`, maxWindow); err != nil {
			return fmt.Errorf("move window ids past the imported: %w", err)
		}
	}
	return nil
}

// importPostingsSQL is agentPostingsSQL in the key's order.
var importPostingsSQL = postingsOf(`c.agent = $1`, `y.lexeme COLLATE "C", c.id`)

// pgUnfit names what PostgreSQL cannot store of r: text with NUL or
// invalid UTF-8 ("" when all fits).
func pgUnfit(r cairn.PortRow) string {
	t, _ := cairn.PortTableNamed(r.Table)
	for i, c := range t.Columns {
		if c.Type != cairn.PortText {
			continue
		}
		v := r.Values[i].(string)
		if strings.IndexByte(v, 0) >= 0 || !utf8.ValidString(v) {
			return fmt.Sprintf("%s.%s holds NUL or invalid UTF-8, which PostgreSQL text cannot store", r.Table, c.Name)
		}
	}
	return ""
}
