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
} GramTokenizer;

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

static int gram_tokenize(Fts5Tokenizer *t, void *ctx, int flags, const char *text, int n, fts5_token_fn xToken) {
	GramTokenizer *p = (GramTokenizer*)t;
	if (flags & FTS5_TOKENIZE_DOCUMENT) {
		GramDoc d;
		d.p = p; d.ctx = ctx; d.xToken = xToken; d.nPrev = -1; d.prevStart = 0; d.prevCommon = 0;
		return p->inner.xTokenize(p->pInner, &d, flags, text, n, gram_doc_token);
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
