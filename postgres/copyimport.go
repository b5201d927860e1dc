package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// An import goes into an empty (or emptied) agent in one transaction, so
// a failed import leaves the agent as it was. The rows go in bulk:
//
//   - contents, documents, vectors and the other tables whose key is
//     the portable order (sessions, memories, windows, records, links,
//     curation and analysis state) by COPY, importCopyRows a statement;
//   - chunks by the statement a sync writes them with (insertChunks: one
//     INSERT over arrays, importChunkRows a statement), their tsvectors
//     made by the server from the words Go split and their tf maps
//     counted in Go (contentRows.countTerms), so an imported chunk is
//     stored exactly as a sync stores it; the ids come back with it and
//     name the vectors' chunks;
//   - the postings last, from every chunk in one statement in key order
//     (finishImport);
//   - meta rows and maintenance tasks (a second unique key) as pipelined
//     INSERTs, as before.
//
// COPY refuses a whole statement for one duplicate key, and a failed
// statement aborts the transaction, so duplicates are found here: the
// agent held nothing, so a key can only collide with an earlier row of the
// same file, and the keys seen are kept (a chunk's as a content index and
// a sequence; documents' and the small tables' as their key's values).
// Rejected rows are reported as the INSERT path reported them: a
// duplicate key "imported already", a vector without its chunk (or a
// second vector of one chunk) "no chunk", a duplicate content or chunk
// dropped silently (the first is kept, as ON CONFLICT DO NOTHING kept it).

const (
	importCopyRows  = 10_000
	importChunkRows = 5_000
	importBatch     = 500
)

// Import writes src into the agent in one transaction, then vacuums and
// analyzes the postings (Optimize, outside the transaction): a search
// reads them index-only, which skips the heap only on pages a vacuum has
// marked all-visible, and plans its joins from their statistics; the
// import's rows are all new, so without it every search visits the heap
// for every posting until autovacuum comes. A failed vacuum leaves the
// import committed and is logged, not returned.
//
// A failed import keeps nothing (one transaction). When opening this
// store created the agent, the agent's row goes too (forgetNewAgent), so
// an interrupted first import leaves no empty agent. A cancelled import
// (Ctrl-C) says so: pgx reports a statement begun on a done context as
// "timeout: context already done: context canceled", which reads as a
// server that did not answer. The error wraps ctx.Err() (errors.Is
// context.Canceled), not context.Cause, which for signal.NotifyContext
// matches nothing.
func (s *Store) Import(ctx context.Context, replace bool, src cairn.PortSource) error {
	if err := s.importTx(ctx, replace, src); err != nil {
		if ferr := s.forgetNewAgent(ctx); ferr != nil && s.logf != nil {
			s.logf("postgres: import failed; remove the agent row it was to fill: %v", ferr)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("import: interrupted, nothing was kept; run the import again: %w", ctx.Err())
		}
		return err
	}
	if err := s.Optimize(ctx); err != nil && s.logf != nil {
		s.logf("postgres: import committed; vacuum of the postings failed (autovacuum will do it): %v", err)
	}
	return nil
}

func (s *Store) importTx(ctx context.Context, replace bool, src cairn.PortSource) error {
	return s.write(ctx, "import", func(tx pgx.Tx) error {
		if err := s.clearForImport(ctx, tx, replace); err != nil {
			return err
		}
		im := newPgImport(s, tx, src)
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
		if err := im.flushAll(ctx); err != nil {
			return err
		}
		drop, err := src.Done()
		if err != nil {
			return err
		}
		if err := s.dropContent(ctx, tx, drop); err != nil {
			return err
		}
		return s.finishImport(ctx, tx, im.maxWindow)
	})
}

// chunkKey names an imported chunk: its content's index in the import
// and its sequence.
type chunkKey struct {
	content int32
	seq     int64
}

// chunkSlot is what the import knows of a chunk: its id once written
// (0 before), and whether a vector named it.
type chunkSlot struct {
	id  int64
	vec bool
}

// copyBuf holds one table's rows until they are copied.
type copyBuf struct {
	table string
	cols  []string
	rows  [][]any
}

// pgImport is one import: the rows queued for each path, the content the
// next chunks belong to, and the keys seen.
type pgImport struct {
	s   *Store
	tx  pgx.Tx
	src cairn.PortSource

	batch pgx.Batch       // meta rows and maintenance tasks
	rows  []cairn.PortRow // what each queued statement wrote, to reject on 0 rows

	copies map[string]*copyBuf
	order  []string // tables in the order their rows came (copied in that order)
	keys   map[string]map[string]bool

	contents map[string]int32 // content hash -> its index
	cur      int32            // the index of the content the next chunks follow
	hash     string
	title    string
	doc      []byte
	chunks   map[chunkKey]chunkSlot
	pending  contentRows // chunks not written yet
	pendKeys []chunkKey
	hashes   []string // content hash by index

	maxWindow int64
}

func newPgImport(s *Store, tx pgx.Tx, src cairn.PortSource) *pgImport {
	return &pgImport{s: s, tx: tx, src: src, copies: map[string]*copyBuf{}, keys: map[string]map[string]bool{},
		contents: map[string]int32{}, cur: -1, chunks: map[chunkKey]chunkSlot{}}
}

// copyKey is the key a table's rows must not repeat within an import,
// as the positions of its columns: the portable order, which is the
// table's key after the agent, except where the order is the backend's
// id (documents: corpus and path). nil: the table does not go by COPY.
func copyKey(t cairn.PortTable) []int {
	order := t.Order
	switch t.Name {
	case "documents":
		order = "corpus, path"
	case "maintenance_tasks", "meta", cairn.PortChunks, cairn.PortContent, cairn.PortVectors:
		return nil
	}
	var at []int
	for _, name := range strings.Split(order, ",") {
		name = strings.TrimSpace(name)
		i := -1
		for j, c := range t.Columns {
			if c.Name == name {
				i = j
			}
		}
		if i < 0 {
			return nil
		}
		at = append(at, i)
	}
	return at
}

func (im *pgImport) queue(r cairn.PortRow, q string, args ...any) {
	im.batch.Queue(q, args...)
	im.rows = append(im.rows, r)
}

// copyRow buffers one row for table's COPY, copying when the buffer is
// full.
func (im *pgImport) copyRow(ctx context.Context, table string, cols []string, vals []any) error {
	b := im.copies[table]
	if b == nil {
		b = &copyBuf{table: table, cols: cols}
		im.copies[table] = b
		im.order = append(im.order, table)
	}
	b.rows = append(b.rows, vals)
	if len(b.rows) >= importCopyRows {
		return im.copyOut(ctx, b)
	}
	return nil
}

func (im *pgImport) copyOut(ctx context.Context, b *copyBuf) error {
	if len(b.rows) == 0 {
		return nil
	}
	n, err := im.tx.CopyFrom(ctx, pgx.Identifier{b.table}, b.cols, pgx.CopyFromRows(b.rows))
	if err != nil {
		return fmt.Errorf("import %s: %w", b.table, err)
	}
	if int(n) != len(b.rows) {
		return fmt.Errorf("import %s: copied %d of %d rows", b.table, n, len(b.rows))
	}
	b.rows = b.rows[:0]
	return nil
}

// flushBatch sends the queued statements and rejects the rows that wrote
// nothing (a duplicate key).
func (im *pgImport) flushBatch(ctx context.Context) error {
	if im.batch.Len() == 0 {
		return nil
	}
	br := im.tx.SendBatch(ctx, &im.batch)
	for _, r := range im.rows {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return fmt.Errorf("import %s (line %d): %w", r.Table, r.Line, err)
		}
		if tag.RowsAffected() == 0 && r.Table != "meta" {
			im.src.Reject(r, "a row with this key was imported already")
		}
	}
	im.batch, im.rows = pgx.Batch{}, nil
	return br.Close()
}

// flushChunks writes the pending chunks in one statement and keeps the
// ids it gave them.
func (im *pgImport) flushChunks(ctx context.Context) error {
	c := &im.pending.chunk
	if len(c.hash) == 0 {
		return nil
	}
	if err := im.pending.countTerms(ctx, im.tx, &im.s.lex); err != nil {
		return err
	}
	rows, err := im.tx.Query(ctx, insertChunks+` RETURNING id`, im.s.agent, c.hash, c.seq, c.pos, c.len, c.sl, c.el, c.tok, c.noise,
		c.body, c.ident, c.title, c.tf)
	if err != nil {
		return fmt.Errorf("import chunks: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("import chunks: %w", err)
	}
	if len(ids) != len(im.pendKeys) {
		return fmt.Errorf("import chunks: wrote %d of %d", len(ids), len(im.pendKeys))
	}
	for i, k := range im.pendKeys {
		im.chunks[k] = chunkSlot{id: ids[i]}
	}
	im.pending, im.pendKeys = contentRows{}, im.pendKeys[:0]
	return nil
}

// flushAll writes everything still queued.
func (im *pgImport) flushAll(ctx context.Context) error {
	if err := im.flushChunks(ctx); err != nil {
		return err
	}
	for _, t := range im.order {
		if err := im.copyOut(ctx, im.copies[t]); err != nil {
			return err
		}
	}
	return im.flushBatch(ctx)
}

func (im *pgImport) put(ctx context.Context, r cairn.PortRow) error {
	if reason := pgUnfit(r); reason != "" {
		im.src.Reject(r, reason)
		return nil
	}
	s, t := im.s, r.Table
	pt, _ := cairn.PortTableNamed(t)
	switch t {
	case cairn.PortContent:
		im.hash, im.title, im.doc = r.Values[0].(string), r.Values[1].(string), r.Values[2].([]byte)
		if i, ok := im.contents[im.hash]; ok {
			// A repeated content: the first is kept; its chunks
			// are checked against this text, as before.
			im.cur = i
			return nil
		}
		im.cur = int32(len(im.hashes))
		im.contents[im.hash] = im.cur
		im.hashes = append(im.hashes, im.hash)
		return im.copyRow(ctx, "content", []string{"agent", "hash", "title", "doc", "created_at"},
			[]any{s.agent, r.Values[0], r.Values[1], r.Values[2], r.Values[3]})
	case cairn.PortChunks:
		return im.putChunk(ctx, r)
	case cairn.PortVectors:
		hash, seq := r.Values[1].(string), r.Values[2].(int64)
		ci, ok := im.contents[hash]
		k := chunkKey{ci, seq}
		slot, found := im.chunks[k]
		if !ok || !found || slot.vec {
			im.src.Reject(r, fmt.Sprintf("no chunk %v:%v for the vector", hash, seq))
			return nil
		}
		if slot.id == 0 {
			if err := im.flushChunks(ctx); err != nil {
				return err
			}
			slot = im.chunks[k]
		}
		slot.vec = true
		im.chunks[k] = slot
		return im.copyRow(ctx, "vectors", []string{"agent", "chunk_id", "identity", "vec"},
			[]any{s.agent, slot.id, r.Values[0], pgvector.NewVector(r.Values[3].([]float32))})
	case "meta":
		k := r.Values[0].(string)
		if !strings.HasPrefix(k, "redact:") && !strings.HasPrefix(k, "projection:") {
			im.src.Reject(r, "meta key "+k+" is not carried (only redact:<corpus> and projection:<corpus>)")
			return nil
		}
		im.queue(r, setMetaSQL, s.agent, k, r.Values[1])
	default:
		if t == cairn.PortWindows {
			im.maxWindow = max(im.maxWindow, r.Values[0].(int64))
		}
		if key := copyKey(pt); key != nil {
			parts := make([]string, len(key))
			for i, at := range key {
				parts[i] = fmt.Sprint(r.Values[at])
			}
			seen := im.keys[t]
			if seen == nil {
				seen = map[string]bool{}
				im.keys[t] = seen
			}
			id := strings.Join(parts, "\x00")
			if seen[id] {
				im.src.Reject(r, "a row with this key was imported already")
				return nil
			}
			seen[id] = true
			cols := append([]string{"agent"}, strings.Split(pgColumns(pt, ""), ", ")...)
			return im.copyRow(ctx, t, cols, append([]any{s.agent}, r.Values...))
		}
		ph := make([]string, len(pt.Columns))
		for i := range ph {
			ph[i] = fmt.Sprintf("$%d", i+2)
		}
		im.queue(r, `INSERT INTO `+t+`(agent, `+pgColumns(pt, "")+`) VALUES($1, `+strings.Join(ph, ", ")+`) ON CONFLICT DO NOTHING`,
			append([]any{s.agent}, r.Values...)...)
	}
	if im.batch.Len() >= importBatch {
		return im.flushBatch(ctx)
	}
	return nil
}

// putChunk checks a chunk against the content it follows and queues it.
func (im *pgImport) putChunk(ctx context.Context, r cairn.PortRow) error {
	v := r.Values
	hash, seq, pos, n := v[0].(string), v[1].(int64), v[2].(int64), v[3].(int64)
	switch {
	case im.cur < 0 || hash != im.hash:
		im.src.Reject(r, "chunk "+hash+" does not follow its content row")
		return nil
	case pos < 0 || n < 0 || pos+n > int64(len(im.doc)):
		im.src.Reject(r, fmt.Sprintf("chunk range %d+%d outside the text of %d bytes", pos, n, len(im.doc)))
		return nil
	case seq != int64(int32(seq)):
		// the table's seq is an int4, and insertChunks sends int32s
		im.src.Reject(r, fmt.Sprintf("chunk seq %d outside the table's range (%d to %d)", seq, math.MinInt32, math.MaxInt32))
		return nil
	}
	k := chunkKey{im.cur, seq}
	if _, ok := im.chunks[k]; ok {
		return nil // a repeated chunk: the first is kept
	}
	im.chunks[k] = chunkSlot{}
	noise := v[7].(int64) != 0
	var body, ident string
	if !noise {
		text := string(im.doc[pos : pos+n])
		body = plain(text)
		if im.s.ident != nil {
			ident = plain(im.s.ident(text))
		}
		im.pending.indexed++
	}
	c := &im.pending.chunk
	c.hash = append(c.hash, hash)
	c.seq, c.sl, c.el, c.tok = append(c.seq, int32(seq)), append(c.sl, int32(v[4].(int64))), append(c.el, int32(v[5].(int64))), append(c.tok, int32(v[6].(int64)))
	c.pos, c.len, c.noise = append(c.pos, pos), append(c.len, n), append(c.noise, noise)
	c.body, c.ident, c.title = append(c.body, body), append(c.ident, ident), append(c.title, plain(im.title))
	im.pendKeys = append(im.pendKeys, k)
	if len(im.pendKeys) >= importChunkRows {
		return im.flushChunks(ctx)
	}
	return nil
}
