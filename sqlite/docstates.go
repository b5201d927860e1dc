package sqlite

/*
#include <stdlib.h>
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
typedef struct sqlite3_api_routines sqlite3_api_routines;
typedef long long sqlite3_int64;
typedef unsigned long long sqlite3_uint64;

int sqlite3_create_function_v2(sqlite3*, const char*, int, int, void*,
	void (*)(sqlite3_context*, int, sqlite3_value**),
	void (*)(sqlite3_context*, int, sqlite3_value**),
	void (*)(sqlite3_context*), void (*)(void*));
void *sqlite3_aggregate_context(sqlite3_context*, int);
const unsigned char *sqlite3_value_text(sqlite3_value*);
int sqlite3_value_bytes(sqlite3_value*);
sqlite3_int64 sqlite3_value_int64(sqlite3_value*);
void *sqlite3_realloc64(void*, sqlite3_uint64);
void sqlite3_free(void*);
void sqlite3_result_text64(sqlite3_context*, const char*, sqlite3_uint64, void(*)(void*), unsigned char);
void sqlite3_result_error_nomem(sqlite3_context*);
int sqlite3_auto_extension(void(*)(void));

// cairn_pack is the state of one cairn_pack_states aggregate: the records
// so far and whether an allocation failed.
typedef struct {
	unsigned char *buf;
	sqlite3_int64 n, cap;
	int nomem;
} cairn_pack;

static int cairn_pack_grow(cairn_pack *p, sqlite3_int64 need) {
	if (p->n + need <= p->cap) return 0;
	sqlite3_int64 c = p->cap ? p->cap : 1 << 16;
	while (c < p->n + need) c *= 2;
	unsigned char *b = (unsigned char*)sqlite3_realloc64(p->buf, (sqlite3_uint64)c);
	if (b == 0) return 1;
	p->buf = b;
	p->cap = c;
	return 0;
}

// cairn_pack_step appends one record: the path's and the hash's byte
// lengths (uint32) with their bytes, then size and mtime (int64), all in
// the machine's byte order. The buffer keeps a byte past the records for
// the terminator cairn_pack_final writes.
static void cairn_pack_step(sqlite3_context *ctx, int nArg, sqlite3_value **v) {
	cairn_pack *p = (cairn_pack*)sqlite3_aggregate_context(ctx, sizeof(cairn_pack));
	if (p == 0 || p->nomem) return;
	const unsigned char *path = sqlite3_value_text(v[0]); // text before bytes, as SQLite asks
	unsigned int pl = (unsigned int)sqlite3_value_bytes(v[0]);
	const unsigned char *hash = sqlite3_value_text(v[1]);
	unsigned int hl = (unsigned int)sqlite3_value_bytes(v[1]);
	sqlite3_int64 size = sqlite3_value_int64(v[2]), mtime = sqlite3_value_int64(v[3]);
	if ((pl && path == 0) || (hl && hash == 0) || cairn_pack_grow(p, 8 + (sqlite3_int64)pl + hl + 16 + 1)) {
		p->nomem = 1;
		return;
	}
	unsigned char *o = p->buf + p->n;
	memcpy(o, &pl, 4); o += 4;
	if (pl) memcpy(o, path, pl);
	o += pl;
	memcpy(o, &hl, 4); o += 4;
	if (hl) memcpy(o, hash, hl);
	o += hl;
	memcpy(o, &size, 8); o += 8;
	memcpy(o, &mtime, 8); o += 8;
	p->n = o - p->buf;
}

// cairn_pack_final returns the records as text (binary, but SQLite never
// checks or converts UTF-8 text here) marked zero-terminated
// (SQLITE_UTF8_ZT, 16): the driver hands a text column to Go as a string
// in one copy, where a blob took two (a []byte, then the string).
static void cairn_pack_final(sqlite3_context *ctx) {
	cairn_pack *p = (cairn_pack*)sqlite3_aggregate_context(ctx, 0);
	if (p == 0 || p->n == 0) {
		if (p != 0) sqlite3_free(p->buf);
		sqlite3_result_text64(ctx, "", 0, 0, 1);
		return;
	}
	if (p->nomem) {
		sqlite3_free(p->buf);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	p->buf[p->n] = 0;
	sqlite3_result_text64(ctx, (const char*)p->buf, (sqlite3_uint64)p->n, sqlite3_free, 16); // SQLite frees the buffer
}

static int cairn_pack_init(sqlite3 *db, char **err, const sqlite3_api_routines *unused) {
	// SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY: never from a
	// trigger or a view.
	return sqlite3_create_function_v2(db, "cairn_pack_states", 4, 0x1 | 0x800 | 0x80000, 0,
		0, cairn_pack_step, cairn_pack_final, 0);
}

static int cairn_pack_register(void) {
	return sqlite3_auto_extension((void(*)(void))cairn_pack_init);
}
*/
import "C"

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cairnmemory/cairn"
)

func init() {
	if rc := C.cairn_pack_register(); rc != 0 {
		panic(fmt.Sprintf("sqlite: register cairn_pack_states: error code %d", rc))
	}
}

// docStatesPage is the range of document ids one cairn_pack_states call
// packs: it bounds the pack (SQLite refuses a value over a gigabyte; a
// page of typical paths is about 25 MB with hashes, 12 MB without).
var docStatesPage = 1 << 18

// DocStates returns the indexed documents of a corpus keyed by path.
func (s *Store) DocStates(ctx context.Context, corpus string) (map[string]cairn.DocState, error) {
	list, err := s.SortedDocStates(ctx, corpus)
	if err != nil {
		return nil, err
	}
	out := make(map[string]cairn.DocState, len(list))
	for _, d := range list {
		out[d.Path] = d
	}
	return out, nil
}

// SortedDocStates returns the indexed documents of a corpus ordered by
// path (byte order, as strings.Compare orders them), for a sync that
// merges them with a sorted scan.
//
// A no-op sync of 480,000 files read them row by row through database/sql
// in about a second of CPU (a cgo step, two strings and two boxed integers
// a row, then Scan's conversions). Here SQLite packs a page of rows into
// one string in C (cairn_pack_states, registered on every connection), Go
// receives it in one copy, and each path and hash is a substring of it: no
// allocation per document. The rows come in rowid order (a plain scan; the
// (corpus, path) index would cost a table lookup per row), which is path
// order for an index built in one sync, so sorting is skipped unless a
// later sync added paths out of order.
func (s *Store) SortedDocStates(ctx context.Context, corpus string) ([]cairn.DocState, error) {
	return s.sortedStates(ctx, corpus, true)
}

// SortedFileStates is SortedDocStates without the content hashes (Hash is
// ""): the path, size and mtime a sync compares with each file's stat, and
// DocHashes then gives the hashes of the few files it reads. The hash is 64
// of the 110 bytes a document packs at 480,000 notes; without it a no-op
// sync's pack, and the fresh memory it is copied into, is 60% smaller.
func (s *Store) SortedFileStates(ctx context.Context, corpus string) ([]cairn.DocState, error) {
	return s.sortedStates(ctx, corpus, false)
}

func (s *Store) sortedStates(ctx context.Context, corpus string, hashes bool) ([]cairn.DocState, error) {
	out, err := s.readStates(ctx, corpus, hashes)
	if err != nil {
		return nil, s.diagnose("read index", fmt.Errorf("list documents of %s: %w", corpus, err))
	}
	byPath := func(a, b cairn.DocState) int { return cmp.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(out, byPath) {
		slices.SortFunc(out, byPath)
	}
	return out, nil
}

// readStates reads the documents of corpus a range of docStatesPage ids
// at a time, all in one read transaction (one snapshot).
func (s *Store) readStates(ctx context.Context, corpus string, hashes bool) ([]cairn.DocState, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, docIDBoundsQuery).Scan(&lo, &hi); err != nil || !hi.Valid {
		return nil, err
	}
	q := fileStatesQuery
	if hashes {
		q = docStatesQuery
	}
	var out []cairn.DocState
	for from := lo.Int64; ; {
		upto := hi.Int64
		if hi.Int64-from >= int64(docStatesPage) {
			upto = from + int64(docStatesPage) - 1
		}
		if err := docStatesRange(ctx, tx, q, corpus, from, upto, &out); err != nil {
			return nil, err
		}
		if upto == hi.Int64 {
			return out, nil
		}
		from = upto + 1
	}
}

// docIDBoundsQuery is the smallest and largest document id, each one seek
// at an end of the rowid b-tree. SQLite seeks for min() or max() only when
// it is the query's one aggregate: "SELECT min(id), max(id) FROM
// documents" read every entry of an index instead, 70 to 126 ms of CPU
// at 480,000 documents (Python's sqlite3 on the no-op's index, load 14;
// 0.4 ms now), a second scan of the table beside the one that packs it.
const docIDBoundsQuery = `SELECT (SELECT min(id) FROM documents), (SELECT max(id) FROM documents)`

// The range queries, with and without the hash (packed as empty). A flat
// aggregate over the rowid range: the subquery with ORDER BY id LIMIT it
// replaces ran as a co-routine, a third more CPU for the same rows. +corpus
// keeps the planner on the rowid range (the (corpus, path) index would
// read the rows out of id order and cost a table lookup each).
const (
	docStatesQuery  = `SELECT cairn_pack_states(path, hash, size, mtime), count(*) FROM documents WHERE +corpus=?1 AND id>=?2 AND id<=?3`
	fileStatesQuery = `SELECT cairn_pack_states(path, '', size, mtime), count(*) FROM documents WHERE +corpus=?1 AND id>=?2 AND id<=?3`
)

// docStatesRange appends the documents of corpus with ids from..upto (at
// most docStatesPage of them, so the pack stays far below SQLite's
// gigabyte limit on a value) to out.
func docStatesRange(ctx context.Context, tx *sql.Tx, q, corpus string, from, upto int64, out *[]cairn.DocState) error {
	var packed string
	var n int
	if err := tx.QueryRowContext(ctx, q, corpus, from, upto).Scan(&packed, &n); err != nil {
		return err
	}
	*out = slices.Grow(*out, n) // a second range would otherwise regrow the first (0.14 s at 480,000)
	before := len(*out)
	var err error
	if *out, err = unpackStates(packed, *out); err != nil {
		return err
	}
	if got := len(*out) - before; got != n {
		return fmt.Errorf("unpack documents: %d records for %d rows", got, n)
	}
	return nil
}

// docHashesLookups is the most paths DocHashes looks up one by one; for
// more it reads the corpus's states once (a lookup costs a few
// microseconds, the whole list of 480,000 about a third of a second).
var docHashesLookups = 1 << 14

// DocHashes returns the content hash of each of paths that is an indexed
// document of corpus; paths not indexed are left out.
func (s *Store) DocHashes(ctx context.Context, corpus string, paths []string) (map[string]string, error) {
	out := make(map[string]string, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	if len(paths) > docHashesLookups {
		list, err := s.SortedDocStates(ctx, corpus)
		if err != nil {
			return nil, err
		}
		want := make(map[string]bool, len(paths))
		for _, p := range paths {
			want[p] = true
		}
		for _, d := range list {
			if want[d.Path] {
				out[d.Path] = d.Hash
			}
		}
		return out, nil
	}
	err := s.docHashLookups(ctx, corpus, paths, out)
	if err != nil {
		return nil, s.diagnose("read index", fmt.Errorf("look up documents of %s: %w", corpus, err))
	}
	return out, nil
}

// docHashLookups looks each path up in the (corpus, path) index, on one
// connection in one read transaction.
func (s *Store) docHashLookups(ctx context.Context, corpus string, paths []string, out map[string]string) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `SELECT hash FROM documents WHERE corpus=?1 AND path=?2`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, p := range paths {
		var h string
		switch err := stmt.QueryRowContext(ctx, corpus, p).Scan(&h); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			out[p] = h
		}
	}
	return nil
}

// unpackStates appends the records of a cairn_pack_states blob to out.
// Paths and hashes are substrings of packed.
func unpackStates(packed string, out []cairn.DocState) ([]cairn.DocState, error) {
	for i := 0; i < len(packed); {
		var d cairn.DocState
		var ok bool
		if d.Path, i, ok = packedString(packed, i); ok {
			d.Hash, i, ok = packedString(packed, i)
		}
		if !ok || len(packed)-i < 16 {
			return out, fmt.Errorf("unpack documents: record cut at byte %d of %d", i, len(packed))
		}
		d.Size = int64(binary.NativeEndian.Uint64([]byte(packed[i : i+8])))
		d.ModTime = int64(binary.NativeEndian.Uint64([]byte(packed[i+8 : i+16])))
		i += 16
		out = append(out, d)
	}
	return out, nil
}

// packedString reads a uint32 length and that many bytes at i.
func packedString(packed string, i int) (string, int, bool) {
	if len(packed)-i < 4 {
		return "", i, false
	}
	n := int(binary.NativeEndian.Uint32([]byte(packed[i : i+4])))
	i += 4
	if len(packed)-i < n {
		return "", i, false
	}
	return packed[i : i+n], i + n, true
}
