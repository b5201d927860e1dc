package sqlite

// The cairn tokenizer: common grams for fast phrase queries.
//
// FTS5 answers a quoted phrase by walking every row that holds all of the
// phrase's words and checking their positions. When the words are frequent
// ("of the server", "it the thing") that is most of the index for a handful
// of matches: 5 to 10 ms at 105k chunks, the slowest queries Cairn had
// (measured, see docs/design.md). Common grams, an old trick of phrase
// search engines, index each pair of adjacent words in which at least one
// word is common as one extra token, so such a phrase becomes a phrase of
// rare pair tokens.
//
// The tokenizer wraps another (tokenize = 'cairn porter unicode61
// remove_diacritics 2') and changes two things:
//
//   - Documents: after each token, when it or the token before it is a
//     common word, it emits the pair "\x1fprev\x1fcur" colocated with the
//     second word (the leading separator keeps pairs out of prefix
//     queries). Column sizes count positions, not colocated tokens, so
//     BM25 length normalization is unchanged.
//   - Queries: a quoted string that starts with \x1f is a phrase to answer
//     with pairs: each word that forms a pair with the word before it
//     becomes that pair token, at the word's position; the other words stay
//     words, except a first word that the next pair token already fixes.
//     "\x1fof the server" becomes the two-token phrase "\x1fof\x1fthe"
//     "\x1fthe\x1fserver", which matches exactly the rows where "of the
//     server" does, as a phrase on its own: the rewritten phrase has fewer
//     tokens and may start a position later, so inside NEAR(), after +
//     or after ^ it means something else (package search never writes
//     those). Strings without the marker are tokenized as the wrapped
//     tokenizer does.
//
// Pairs are made of the wrapped tokenizer's output, so both sides see the
// same stemmed words; the common words are stemmed the same way when the
// tokenizer is created. Whether two words form a pair depends only on the
// two words, which is what makes the query rewrite exact.

/*
#include <string.h>
#include "fts5.h"

#define GRAM_SEP 0x1f
#define GRAM_MAX_TOKEN 64   // longer words never form pairs
#define GRAM_PAIR_MAX (2 * GRAM_MAX_TOKEN + 2)
#define GRAM_SLOTS 1024     // open-addressing table of common words

typedef struct GramTokenizer {
	fts5_tokenizer inner;
	Fts5Tokenizer *pInner;
	int nWord;
	char *words[GRAM_SLOTS]; // stemmed common words, or 0
	unsigned char lens[GRAM_SLOTS];
	unsigned long long cfg; // gram_cfg of the arguments it was made with
} GramTokenizer;

// gram_cfg is an FNV-1a hash of a tokenizer's arguments: two instances
// with the same one tokenize alike (pretok.go).
static unsigned long long gram_cfg(const char **args, int nArg) {
	unsigned long long h = 1469598103934665603ull;
	for (int i = 0; i < nArg; i++) {
		for (const char *c = args[i]; *c; c++) { h ^= (unsigned char)*c; h *= 1099511628211ull; }
		h ^= 0xff; h *= 1099511628211ull; // the end of an argument
	}
	return h;
}

static const char *gram_words = 0; // space-separated, set once from Go

void cairn_grams_set_words(const char *w) { gram_words = w; }

static unsigned gram_hash(const char *s, int n) {
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 16777619u; }
	return h;
}

static int gram_common(GramTokenizer *p, const char *s, int n) {
	if (n > GRAM_MAX_TOKEN) return 0;
	for (unsigned i = gram_hash(s, n) & (GRAM_SLOTS - 1);; i = (i + 1) & (GRAM_SLOTS - 1)) {
		if (p->words[i] == 0) return 0;
		if (p->lens[i] == n && memcmp(p->words[i], s, n) == 0) return 1;
	}
}

static int gram_add_word(void *ctx, int tflags, const char *s, int n, int start, int end) {
	GramTokenizer *p = (GramTokenizer*)ctx;
	if (n > GRAM_MAX_TOKEN || gram_common(p, s, n)) return 0;
	if (p->nWord >= GRAM_SLOTS / 2) return 0; // keep the table sparse
	unsigned i = gram_hash(s, n) & (GRAM_SLOTS - 1);
	while (p->words[i] != 0) i = (i + 1) & (GRAM_SLOTS - 1);
	p->words[i] = (char*)sqlite3_malloc(n);
	if (p->words[i] == 0) return 7; // SQLITE_NOMEM
	memcpy(p->words[i], s, n);
	p->lens[i] = (unsigned char)n;
	p->nWord++;
	return 0;
}

static void gram_delete(Fts5Tokenizer *t) {
	GramTokenizer *p = (GramTokenizer*)t;
	if (p == 0) return;
	if (p->pInner) p->inner.xDelete(p->pInner);
	for (int i = 0; i < GRAM_SLOTS; i++) sqlite3_free(p->words[i]);
	sqlite3_free(p);
}

// gram_add_tokens adds the space-separated tokens of w as common words as
// they are: they are already the wrapped tokenizer's output (an index's own
// frequent terms), which stemming them again could change.
static int gram_add_tokens(GramTokenizer *p, const char *w) {
	while (*w) {
		while (*w == ' ') w++;
		const char *e = w;
		while (*e && *e != ' ') e++;
		if (e > w) {
			int rc = gram_add_word(p, 0, w, (int)(e - w), 0, 0);
			if (rc != 0) return rc;
		}
		w = e;
	}
	return 0;
}

// gram_create makes the wrapped tokenizer from args and stems the common
// words with it. Arguments "words" LIST before the wrapped tokenizer's
// name add LIST's space-separated tokens, unstemmed, to the common words
// (an index's own most frequent terms, pairs.go).
static int gram_create(void *user, const char **args, int nArg, Fts5Tokenizer **out) {
	fts5_api *api = (fts5_api*)user;
	*out = 0;
	const char *extra = 0;
	if (nArg >= 2 && strcmp(args[0], "words") == 0) {
		extra = args[1];
		args += 2;
		nArg -= 2;
	}
	if (nArg < 1) return 1; // SQLITE_ERROR: the wrapped tokenizer is required
	GramTokenizer *p = (GramTokenizer*)sqlite3_malloc(sizeof(GramTokenizer));
	if (p == 0) return 7;
	memset(p, 0, sizeof(*p));
	p->cfg = gram_cfg(args - (extra ? 2 : 0), nArg + (extra ? 2 : 0));
	void *innerUser = 0;
	int rc = api->xFindTokenizer(api, args[0], &innerUser, &p->inner);
	if (rc == 0) rc = p->inner.xCreate(innerUser, args + 1, nArg - 1, &p->pInner);
	if (rc == 0 && gram_words != 0) {
		rc = p->inner.xTokenize(p->pInner, p, FTS5_TOKENIZE_DOCUMENT, gram_words, (int)strlen(gram_words), gram_add_word);
	}
	if (rc == 0 && extra != 0) rc = gram_add_tokens(p, extra);
	if (rc != 0) { gram_delete((Fts5Tokenizer*)p); return rc; }
	*out = (Fts5Tokenizer*)p;
	return 0;
}

// GramDoc carries a document tokenization: the previous word and the caller.
typedef struct GramDoc {
	GramTokenizer *p;
	void *ctx;
	fts5_token_fn xToken;
	int nPrev; // -1: no previous word that can pair
	int prevStart, prevCommon;
	char prev[GRAM_MAX_TOKEN];
	char buf[GRAM_PAIR_MAX];
} GramDoc;

// gram_pair writes the pair token of words a and b into buf (GRAM_PAIR_MAX
// bytes) and returns its length: separator, a, separator, b. Starting with
// the separator, which no word contains, keeps pairs out of prefix queries
// ("walr"* must not match the pair of walrus and of).
static int gram_pair(char *buf, const char *a, int na, const char *b, int nb) {
	buf[0] = GRAM_SEP;
	memcpy(buf + 1, a, na);
	buf[1 + na] = GRAM_SEP;
	memcpy(buf + 2 + na, b, nb);
	return 2 + na + nb;
}

static int gram_doc_token(void *ctx, int tflags, const char *s, int n, int start, int end) {
	GramDoc *d = (GramDoc*)ctx;
	int rc = d->xToken(d->ctx, tflags, s, n, start, end);
	if (rc != 0 || (tflags & FTS5_TOKEN_COLOCATED)) return rc;
	if (n > GRAM_MAX_TOKEN) { d->nPrev = -1; return 0; }
	int common = gram_common(d->p, s, n);
	if (d->nPrev >= 0 && (common || d->prevCommon)) {
		int len = gram_pair(d->buf, d->prev, d->nPrev, s, n);
		rc = d->xToken(d->ctx, FTS5_TOKEN_COLOCATED, d->buf, len, d->prevStart, end);
		if (rc != 0) return rc;
	}
	memcpy(d->prev, s, n);
	d->nPrev = n;
	d->prevStart = start;
	d->prevCommon = common;
	return 0;
}

// GramWord is one word of a query phrase.
typedef struct GramWord { int off, n, start, end, common; } GramWord;

typedef struct GramQuery {
	GramTokenizer *p;
	char *text;  // the words, back to back
	int nText, capText;
	GramWord *words;
	int nWord, capWord;
} GramQuery;

static int gram_query_token(void *ctx, int tflags, const char *s, int n, int start, int end) {
	GramQuery *q = (GramQuery*)ctx;
	if (tflags & FTS5_TOKEN_COLOCATED) return 0;
	if (q->nWord == q->capWord) {
		int c = q->capWord ? 2 * q->capWord : 16;
		GramWord *w = (GramWord*)sqlite3_realloc(q->words, c * (int)sizeof(GramWord));
		if (w == 0) return 7;
		q->words = w; q->capWord = c;
	}
	if (q->nText + n > q->capText) {
		int c = 2 * (q->nText + n) + 64;
		char *t = (char*)sqlite3_realloc(q->text, c);
		if (t == 0) return 7;
		q->text = t; q->capText = c;
	}
	memcpy(q->text + q->nText, s, n);
	GramWord w = {q->nText, n, start, end, n <= GRAM_MAX_TOKEN && gram_common(q->p, s, n)};
	q->words[q->nWord++] = w;
	q->nText += n;
	return 0;
}

// gram_pairs reports whether words a and b were indexed as a pair.
static int gram_pairs(const GramWord *a, const GramWord *b) {
	return a->n <= GRAM_MAX_TOKEN && b->n <= GRAM_MAX_TOKEN && (a->common || b->common);
}

// gram_document tokenizes a document: the wrapped tokenizer's tokens and
// the pairs.
static int gram_document(GramTokenizer *p, void *ctx, int flags, const char *text, int n, fts5_token_fn xToken) {
	GramDoc d;
	d.p = p; d.ctx = ctx; d.xToken = xToken; d.nPrev = -1; d.prevStart = 0; d.prevCommon = 0;
	return p->inner.xTokenize(p->pInner, &d, flags, text, n, gram_doc_token);
}

// Pretokenized values (pretok.go). A value the writer binds in place of
// a column's text holds the tokens the cairn tokenizer makes of it:
// PRETOK_MAGIC_LEN bytes of pretok_magic (four fixed bytes, then sixteen
// random ones the process drew at start, so no stored text can pose as
// one), the 8-byte gram_cfg of the tokenizer that made them (little
// endian), then the tokens in order. A token is a byte holding 0x80 for a
// colocated token and its length (1 to 126), or the flag alone followed
// by a 4-byte length, then the token's bytes; the byte PRETOK_PAIR alone
// is the pair token of the two tokens before it (colocated), which is
// what most pairs are. Positions follow from the order and the flags;
// FTS5 does not read a document token's byte offsets.
#define PRETOK_MAGIC_LEN 20
#define PRETOK_HDR (PRETOK_MAGIC_LEN + 8)
#define PRETOK_PAIR 0xff
static unsigned char pretok_magic[PRETOK_MAGIC_LEN];
static int pretok_keyed = 0;

void cairn_pretok_set_key(const unsigned char *key) {
	pretok_magic[0] = GRAM_SEP; pretok_magic[1] = 0x1e; pretok_magic[2] = 'C'; pretok_magic[3] = 'T';
	memcpy(pretok_magic + 4, key, PRETOK_MAGIC_LEN - 4);
	pretok_keyed = 1;
}

static void pretok_put(unsigned char *b, unsigned long long v, int n) {
	for (int i = 0; i < n; i++) { b[i] = (unsigned char)(v & 0xff); v >>= 8; }
}

static unsigned long long pretok_get(const unsigned char *b, int n) {
	unsigned long long v = 0;
	for (int i = n - 1; i >= 0; i--) v = v << 8 | b[i];
	return v;
}

// pretok_replay hands the tokens of a pretokenized value to xToken. A
// value made by a tokenizer with other arguments (the table changed since:
// a pair rebuild) fails with SQLITE_MISMATCH, and a cut one with
// SQLITE_CORRUPT; neither tokenizes anything in its place.
static int pretok_replay(GramTokenizer *p, void *ctx, const unsigned char *v, int n, fts5_token_fn xToken) {
	if (pretok_get(v + PRETOK_MAGIC_LEN, 8) != p->cfg) return 20; // SQLITE_MISMATCH
	const unsigned char *q = v + PRETOK_HDR, *end = v + n;
	const unsigned char *a = 0, *b = 0; // the last two tokens that were not colocated
	long long na = 0, nb = 0;
	char pair[GRAM_PAIR_MAX];
	while (q < end) {
		int rc;
		if (q[0] == PRETOK_PAIR) {
			q++;
			if (a == 0 || na > GRAM_MAX_TOKEN || nb > GRAM_MAX_TOKEN) return 11; // SQLITE_CORRUPT
			int len = gram_pair(pair, (const char*)a, (int)na, (const char*)b, (int)nb);
			if ((rc = xToken(ctx, FTS5_TOKEN_COLOCATED, pair, len, 0, 0)) != 0) return rc;
			continue;
		}
		int colocated = q[0] & 0x80;
		long long len = q[0] & 0x7f;
		q++;
		if (len == 0) {
			if (end - q < 4) return 11;
			len = (long long)pretok_get(q, 4);
			q += 4;
		}
		if (end - q < len) return 11;
		if ((rc = xToken(ctx, colocated ? FTS5_TOKEN_COLOCATED : 0, (const char*)q, (int)len, 0, 0)) != 0) return rc;
		if (!colocated) { a = b; na = nb; b = q; nb = len; }
		q += len;
	}
	return 0;
}

typedef struct PretokOut {
	unsigned char *buf;
	long long cap, n;
	// the last two tokens that were not colocated, as pairs are made of them
	char a[GRAM_MAX_TOKEN], b[GRAM_MAX_TOKEN];
	int na, nb; // -1: none, or longer than GRAM_MAX_TOKEN
} PretokOut;

static int pretok_is_pair(PretokOut *o, const char *s, int n) {
	return o->na >= 0 && o->nb >= 0 && n == 2 + o->na + o->nb && s[0] == GRAM_SEP && s[1 + o->na] == GRAM_SEP &&
		memcmp(s + 1, o->a, o->na) == 0 && memcmp(s + 2 + o->na, o->b, o->nb) == 0;
}

static int pretok_record(void *ctx, int tflags, const char *s, int n, int start, int end) {
	PretokOut *o = (PretokOut*)ctx;
	int colocated = tflags & FTS5_TOKEN_COLOCATED;
	if (colocated && pretok_is_pair(o, s, n)) {
		if (o->n < o->cap) o->buf[o->n] = PRETOK_PAIR;
		o->n++;
		return 0;
	}
	int head = (n > 0 && n < 127) ? 1 : 5;
	if (o->n + head + n <= o->cap) {
		unsigned char *b = o->buf + o->n;
		unsigned char flag = colocated ? 0x80 : 0;
		if (head == 1) {
			b[0] = flag | (unsigned char)n;
		} else {
			b[0] = flag;
			pretok_put(b + 1, (unsigned long long)n, 4);
		}
		memcpy(b + head, s, n);
	}
	o->n += head + n;
	if (!colocated) {
		memcpy(o->a, o->b, o->nb > 0 ? o->nb : 0);
		o->na = o->nb;
		o->nb = n <= GRAM_MAX_TOKEN ? n : -1;
		if (o->nb > 0) memcpy(o->b, s, n);
	}
	return 0;
}

// cairn_pretok writes the pretokenized value of text (n bytes), tokenized
// as a document by t, into out (cap bytes) and returns its length; when
// that is more than cap, out holds only part of it and the caller calls
// again with room for all. A negative result is an SQLite error code.
long long cairn_pretok(Fts5Tokenizer *t, const char *text, int n, unsigned char *out, long long cap) {
	GramTokenizer *p = (GramTokenizer*)t;
	if (!pretok_keyed) return -21; // SQLITE_MISUSE
	PretokOut o;
	o.buf = out; o.cap = cap; o.n = PRETOK_HDR; o.na = -1; o.nb = -1;
	if (cap >= PRETOK_HDR) {
		memcpy(out, pretok_magic, PRETOK_MAGIC_LEN);
		pretok_put(out + PRETOK_MAGIC_LEN, p->cfg, 8);
	}
	int rc = gram_document(p, &o, FTS5_TOKENIZE_DOCUMENT, text, n, pretok_record);
	return rc != 0 ? -(long long)rc : o.n;
}

// Document values tokenized by a table's tokenizer, and of those the
// pretokenized ones (tests read them: cairn_doc_counts).
static long long doc_values = 0, doc_replays = 0;

void cairn_doc_counts(long long *values, long long *replays) {
	*values = __atomic_load_n(&doc_values, __ATOMIC_RELAXED);
	*replays = __atomic_load_n(&doc_replays, __ATOMIC_RELAXED);
}

static int gram_tokenize(Fts5Tokenizer *t, void *ctx, int flags, const char *text, int n, fts5_token_fn xToken) {
	GramTokenizer *p = (GramTokenizer*)t;
	if (flags & FTS5_TOKENIZE_DOCUMENT) {
		__atomic_fetch_add(&doc_values, 1, __ATOMIC_RELAXED);
		if (pretok_keyed && n >= PRETOK_HDR && memcmp(text, pretok_magic, PRETOK_MAGIC_LEN) == 0) {
			__atomic_fetch_add(&doc_replays, 1, __ATOMIC_RELAXED);
			return pretok_replay(p, ctx, (const unsigned char*)text, n, xToken);
		}
		return gram_document(p, ctx, flags, text, n, xToken);
	}
	if (!(flags & FTS5_TOKENIZE_QUERY) || (flags & FTS5_TOKENIZE_PREFIX) || n < 1 || text[0] != GRAM_SEP) {
		return p->inner.xTokenize(p->pInner, ctx, flags, text, n, xToken);
	}
	GramQuery q;
	memset(&q, 0, sizeof(q));
	q.p = p;
	int rc = p->inner.xTokenize(p->pInner, &q, flags, text + 1, n - 1, gram_query_token);
	char buf[GRAM_PAIR_MAX];
	for (int i = 0; rc == 0 && i < q.nWord; i++) {
		GramWord *w = &q.words[i];
		if (i == 0 && q.nWord > 1 && gram_pairs(w, &q.words[1])) {
			continue; // the pair token that follows fixes the first word
		}
		if (i > 0 && gram_pairs(&q.words[i - 1], w)) {
			GramWord *v = &q.words[i - 1];
			int len = gram_pair(buf, q.text + v->off, v->n, q.text + w->off, w->n);
			rc = xToken(ctx, 0, buf, len, v->start + 1, w->end + 1);
		} else {
			rc = xToken(ctx, 0, q.text + w->off, w->n, w->start + 1, w->end + 1);
		}
	}
	sqlite3_free(q.text);
	sqlite3_free(q.words);
	return rc;
}

int cairn_grams_register(fts5_api *api) {
	fts5_tokenizer t = {gram_create, gram_delete, gram_tokenize};
	return api->xCreateTokenizer(api, "cairn", api, &t, 0);
}

// The pretokenizers' FTS5: a private in-memory connection, open for the
// life of the process (the wrapped tokenizers it made may refer to its
// modules), whose fts5_api makes cairn tokenizers outside any table.
static sqlite3 *pretok_db = 0;
static fts5_api *pretok_api = 0;

int cairn_pretok_open(void) {
	if (pretok_api != 0) return 0;
	int rc = sqlite3_open(":memory:", &pretok_db);
	if (rc != 0) return rc;
	sqlite3_stmt *st = 0;
	rc = sqlite3_prepare_v2(pretok_db, "SELECT fts5(?1)", -1, &st, 0);
	if (rc != 0) return rc;
	sqlite3_bind_pointer(st, 1, (void*)&pretok_api, "fts5_api_ptr", 0);
	sqlite3_step(st);
	sqlite3_finalize(st);
	return pretok_api == 0 ? 1 : 0;
}

// cairn_pretok_new makes a cairn tokenizer from its arguments (as a
// table's tokenize option lists them after "cairn"); 0 on failure, with
// the error code in *rc.
Fts5Tokenizer *cairn_pretok_new(const char **args, int nArg, int *rc) {
	Fts5Tokenizer *t = 0;
	*rc = pretok_api == 0 ? 21 : gram_create(pretok_api, args, nArg, &t);
	return *rc == 0 ? t : 0;
}

void cairn_pretok_free(Fts5Tokenizer *t) { gram_delete(t); }
*/
import "C"

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

// gramsTable moves the full-text index to the cairn tokenizer. The table
// keeps no content, so rebuildFTS then indexes the stored chunks again,
// in the same transaction: documents, chunks and vectors stay.
const gramsTable = `DROP TABLE chunks_fts;
	CREATE VIRTUAL TABLE chunks_fts USING fts5(
		title, body, ident,
		content='', contentless_delete=1,
		tokenize='cairn porter unicode61 remove_diacritics 2'
	);`

// rebuildFTS indexes every stored chunk (but noise) into an empty
// chunks_fts, as Apply does, reading in batches of ids. The table is
// gramsTable's, without pair words: the schema version follows it
// (fence.go), and the next idle-time check reads the index's terms again
// (pairs.go) instead of waiting for the rows to move.
func rebuildFTS(ctx context.Context, s *Store, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, pairCheckedKey); err != nil {
		return fmt.Errorf("rebuild full-text index: %w", err)
	}
	if err := fencePairs(ctx, tx); err != nil {
		return err
	}
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE noise = 0`).Scan(&total); err != nil {
		return fmt.Errorf("rebuild full-text index: %w", err)
	}
	if total == 0 {
		return nil
	}
	if s.Logf != nil {
		s.Logf("rebuilding the full-text index for the new tokenizer: %d chunks", total)
	}
	for last := int64(-1); ; {
		next, _, err := indexChunks(ctx, s, tx, "chunks_fts", last, 2000)
		if err != nil || next == last {
			return err
		}
		last = next
	}
}

// indexChunks indexes up to limit stored chunks (but noise) with ids above
// after, in id order, into the full-text table named table, and returns
// the last id it indexed (after when none was left) and how many.
func indexChunks(ctx context.Context, s *Store, tx *sql.Tx, table string, after int64, limit int) (last int64, n int, err error) {
	// This runs before contentIDs on an old index (chunks name their
	// content by hash; the grams migration) and after it when a test sets
	// the recorded version back.
	join := "ct.hash = c.hash"
	if byID, err := hasColumn(ctx, tx, "chunks", "cid"); err != nil {
		return after, 0, fmt.Errorf("rebuild full-text index: %w", err)
	} else if byID {
		join = "ct.id = c.cid"
	}
	return indexChunksWhere(ctx, s, tx, table, `c.id > ? ORDER BY c.id LIMIT ?`, join, after, after, limit)
}

// indexChunksWhere indexes the stored chunks (but noise) that cond (with
// args) selects into table; last is the highest id indexed, or floor.
func indexChunksWhere(ctx context.Context, s *Store, tx *sql.Tx, table, cond, join string, floor int64, args ...any) (last int64, n int, err error) {
	type row struct {
		id          int64
		title, body string
	}
	var batch []row
	rows, err := tx.QueryContext(ctx, `SELECT c.id, ct.title, substr(ct.doc, c.pos + 1, c.len)
		FROM chunks c JOIN content ct ON `+join+`
		WHERE c.noise = 0 AND `+cond, args...)
	if err != nil {
		return floor, 0, fmt.Errorf("rebuild full-text index: %w", err)
	}
	for rows.Next() {
		var r row
		var body []byte
		if err := rows.Scan(&r.id, &r.title, &body); err != nil {
			rows.Close()
			return floor, 0, fmt.Errorf("rebuild full-text index: %w", err)
		}
		r.body = string(body)
		batch = append(batch, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return floor, 0, fmt.Errorf("rebuild full-text index: %w", err)
	}
	if len(batch) == 0 {
		return floor, 0, nil
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+table+`(rowid, title, body, ident) VALUES(?, ?, ?, ?)`)
	if err != nil {
		return floor, 0, fmt.Errorf("rebuild full-text index: %w", err)
	}
	defer ins.Close()
	last = floor
	for _, r := range batch {
		ident := ""
		if s.Ident != nil {
			ident = s.Ident(r.body)
		}
		if _, err := ins.ExecContext(ctx, r.id, r.title, r.body, ident); err != nil {
			return floor, 0, fmt.Errorf("rebuild full-text index: chunk %d: %w", r.id, err)
		}
		last = max(last, r.id)
	}
	return last, len(batch), nil
}

// GramWords are the common words of the cairn tokenizer: each pair of
// adjacent words in which one of these is indexed as one more token. They
// are the twenty most frequent English words (in the usual corpus counts);
// the longer stop-word list the search package drops from queries costs
// more to index than it saves (measured, docs/design.md). Changing the list
// changes the index: it needs a migration that rebuilds the table, as
// gramsTable does. The list is the root package's, shared with the
// PostgreSQL store's pair postings, so the two stores pair the same words.
var GramWords = cairn.GramWords

func init() {
	// The C string lives for the life of the process.
	C.cairn_grams_set_words(C.CString(strings.Join(GramWords, " ")))
}
