package sqlite

// The ranking function. FTS5's built-in bm25() counts, on every query, the
// rows that match each phrase by walking its whole doclist: 1.5 to 13 ms at
// 105k chunks for a common word or a frequent phrase, however few rows the
// query then scores (measured, see docs/design.md). cairn_tf leaves inverse
// document frequency to the caller, which counts each term once per index
// generation and caches it, and returns for each phrase of the MATCH
// expression its BM25 term-frequency factor:
//
//	tf' = f·(k1+1) / (f + k1·(1 − b + b·dl/avgdl))
//
// where f is the phrase's occurrences in the row, each weighted by its
// column, dl the row's length in tokens and avgdl the mean over the table;
// k1 = 1.2 as in FTS5 and b given by the caller. The caller's score is
// Σ idfᵢ·tf'ᵢ: with b = 0.75 the same sum bm25() computes (sign flipped).
//
// Usage: cairn_tf(chunks_fts, b, w_col0, w_col1, ...) returns a blob of one
// float64 per phrase, in the machine's byte order. b is the length
// normalization; with b = 0 the row length is never read, which is where
// most of the per-row cost is (FTS5 looks it up in its docsize table:
// about 0.36 µs of 0.48 µs a row, measured).
//
// The function is registered on every connection the process opens, through
// sqlite3_auto_extension; connections without FTS5 are left alone. The
// declarations below are the parts of SQLite's public C interface (sqlite3.h,
// its FTS5 extension API) this file uses; the definitions come from the
// SQLite that github.com/mattn/go-sqlite3 compiles into the binary.

/*
#include <stdlib.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
typedef long long sqlite3_int64;
typedef struct sqlite3_api_routines sqlite3_api_routines;

int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
int sqlite3_bind_pointer(sqlite3_stmt*, int, void*, const char*, void(*)(void*));
int sqlite3_step(sqlite3_stmt*);
int sqlite3_finalize(sqlite3_stmt*);
double sqlite3_value_double(sqlite3_value*);
void sqlite3_result_blob(sqlite3_context*, const void*, int, void(*)(void*));
void sqlite3_result_error_code(sqlite3_context*, int);
void *sqlite3_malloc(int);
void sqlite3_free(void*);
int sqlite3_auto_extension(void(*)(void));

typedef struct Fts5Context Fts5Context;
typedef struct Fts5PhraseIter { const unsigned char *a; const unsigned char *b; } Fts5PhraseIter;
typedef struct Fts5ExtensionApi Fts5ExtensionApi;
struct Fts5ExtensionApi {
	int iVersion;
	void *(*xUserData)(Fts5Context*);
	int (*xColumnCount)(Fts5Context*);
	int (*xRowCount)(Fts5Context*, sqlite3_int64*);
	int (*xColumnTotalSize)(Fts5Context*, int, sqlite3_int64*);
	int (*xTokenize)(Fts5Context*, const char*, int, void*, int (*)(void*, int, const char*, int, int, int));
	int (*xPhraseCount)(Fts5Context*);
	int (*xPhraseSize)(Fts5Context*, int);
	int (*xInstCount)(Fts5Context*, int*);
	int (*xInst)(Fts5Context*, int, int*, int*, int*);
	sqlite3_int64 (*xRowid)(Fts5Context*);
	int (*xColumnText)(Fts5Context*, int, const char**, int*);
	int (*xColumnSize)(Fts5Context*, int, int*);
	int (*xQueryPhrase)(Fts5Context*, int, void*, int (*)(const Fts5ExtensionApi*, Fts5Context*, void*));
	int (*xSetAuxdata)(Fts5Context*, void*, void (*)(void*));
	void *(*xGetAuxdata)(Fts5Context*, int);
	int (*xPhraseFirst)(Fts5Context*, int, Fts5PhraseIter*, int*, int*);
	void (*xPhraseNext)(Fts5Context*, Fts5PhraseIter*, int*, int*);
};
typedef void (*fts5_extension_function)(const Fts5ExtensionApi*, Fts5Context*, sqlite3_context*, int, sqlite3_value**);
typedef struct fts5_api {
	int iVersion;
	void *xCreateTokenizer;
	void *xFindTokenizer;
	int (*xCreateFunction)(struct fts5_api*, const char*, void*, fts5_extension_function, void (*)(void*));
} fts5_api;

#define CAIRN_K1 1.2
#define CAIRN_MAX_COLS 8
#define CAIRN_MAX_PHRASES 256

// cairn_tf_fn computes the per-phrase BM25 term-frequency factors of the
// current row.
static void cairn_tf_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
		int nVal, sqlite3_value **vals) {
	double *avgdl = (double*)api->xGetAuxdata(fts, 0);
	if (avgdl == 0) {
		sqlite3_int64 rows = 0, toks = 0;
		int rc = api->xRowCount(fts, &rows);
		if (rc == 0) rc = api->xColumnTotalSize(fts, -1, &toks);
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return; }
		avgdl = (double*)sqlite3_malloc(sizeof(double));
		if (avgdl == 0) { sqlite3_result_error_code(ctx, 7); return; }
		*avgdl = rows > 0 && toks > 0 ? (double)toks / (double)rows : 1.0;
		rc = api->xSetAuxdata(fts, avgdl, sqlite3_free);
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return; }
	}
	double b = nVal > 0 ? sqlite3_value_double(vals[0]) : 0.75;
	double w[CAIRN_MAX_COLS];
	int nCol = api->xColumnCount(fts);
	if (nCol > CAIRN_MAX_COLS) nCol = CAIRN_MAX_COLS;
	for (int c = 0; c < nCol; c++) w[c] = c + 1 < nVal ? sqlite3_value_double(vals[c + 1]) : 1.0;
	int rc = 0;
	double norm = CAIRN_K1;
	if (b != 0) {
		int dl = 0;
		rc = api->xColumnSize(fts, -1, &dl);
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return; }
		norm = CAIRN_K1 * (1.0 - b + b * (double)dl / *avgdl);
	}
	int nPhrase = api->xPhraseCount(fts);
	if (nPhrase > CAIRN_MAX_PHRASES) nPhrase = CAIRN_MAX_PHRASES;
	double out[CAIRN_MAX_PHRASES];
	for (int i = 0; i < nPhrase; i++) {
		Fts5PhraseIter it;
		int col = -1, off = 0;
		double f = 0;
		rc = api->xPhraseFirst(fts, i, &it, &col, &off);
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return; }
		for (; col >= 0; api->xPhraseNext(fts, &it, &col, &off)) {
			f += col < nCol ? w[col] : 1.0;
		}
		out[i] = f > 0 ? f * (CAIRN_K1 + 1.0) / (f + norm) : 0;
	}
	sqlite3_result_blob(ctx, out, nPhrase * (int)sizeof(double), (void(*)(void*))-1);
}

// cairn_init registers cairn_tf on a new connection that has FTS5.
static int cairn_init(sqlite3 *db, char **err, const sqlite3_api_routines *unused) {
	fts5_api *fts = 0;
	sqlite3_stmt *st = 0;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0) != 0) {
		return 0; // no FTS5 here: nothing to register
	}
	sqlite3_bind_pointer(st, 1, (void*)&fts, "fts5_api_ptr", 0);
	sqlite3_step(st);
	sqlite3_finalize(st);
	if (fts == 0 || fts->iVersion < 2) return 0;
	return fts->xCreateFunction(fts, "cairn_tf", 0, cairn_tf_fn, 0);
}

static int cairn_register(void) {
	return sqlite3_auto_extension((void(*)(void))cairn_init);
}
*/
import "C"

import "fmt"

func init() {
	if rc := C.cairn_register(); rc != 0 {
		panic(fmt.Sprintf("sqlite: register cairn_tf: error code %d", rc))
	}
}
