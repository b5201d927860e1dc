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
// cairn_score(chunks_fts, idf, order, b, w_col0, ...) returns Σ idfᵢ·tf'ᵢ
// as one double, idf being a blob of float64s in phrase order and order a
// blob of int32 phrase indexes giving the order of the sum (empty: phrase
// order; compile writes an AND's members rarest first and keeps the sum in
// the query's order with it): the score Go would sum from cairn_tf, in the
// same order, so the two agree bit for bit. It
// lets SQLite keep the best rows of a scan itself, so only those cross
// into Go (see Store.lexical).
//
// The functions are registered on every connection the process opens, through
// sqlite3_auto_extension, together with the cairn tokenizer (grams.go);
// connections without FTS5 are left alone. fts5.h declares the parts of
// SQLite's C interface both use.

/*
#include <stdlib.h>
#include <string.h>
#include "fts5.h"

#define CAIRN_K1 1.2
#define CAIRN_MAX_COLS 8
#define CAIRN_MAX_PHRASES 256

// cairn_tf_compute fills out with the per-phrase BM25 term-frequency
// factors of the current row; vals are b and the column weights. It
// returns the number of phrases, or -1 after setting an error on ctx.
static int cairn_tf_compute(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
		int nVal, sqlite3_value **vals, double *out) {
	double *avgdl = (double*)api->xGetAuxdata(fts, 0);
	if (avgdl == 0) {
		sqlite3_int64 rows = 0, toks = 0;
		int rc = api->xRowCount(fts, &rows);
		if (rc == 0) rc = api->xColumnTotalSize(fts, -1, &toks);
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return -1; }
		avgdl = (double*)sqlite3_malloc(sizeof(double));
		if (avgdl == 0) { sqlite3_result_error_code(ctx, 7); return -1; }
		*avgdl = rows > 0 && toks > 0 ? (double)toks / (double)rows : 1.0;
		rc = api->xSetAuxdata(fts, avgdl, sqlite3_free);
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return -1; }
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
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return -1; }
		norm = CAIRN_K1 * (1.0 - b + b * (double)dl / *avgdl);
	}
	int nPhrase = api->xPhraseCount(fts);
	if (nPhrase > CAIRN_MAX_PHRASES) nPhrase = CAIRN_MAX_PHRASES;
	for (int i = 0; i < nPhrase; i++) {
		Fts5PhraseIter it;
		int col = -1, off = 0;
		double f = 0;
		rc = api->xPhraseFirst(fts, i, &it, &col, &off);
		if (rc != 0) { sqlite3_result_error_code(ctx, rc); return -1; }
		for (; col >= 0; api->xPhraseNext(fts, &it, &col, &off)) {
			f += col < nCol ? w[col] : 1.0;
		}
		out[i] = f > 0 ? f * (CAIRN_K1 + 1.0) / (f + norm) : 0;
	}
	return nPhrase;
}

// cairn_tf_fn returns the per-phrase factors as a blob of doubles.
static void cairn_tf_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
		int nVal, sqlite3_value **vals) {
	double out[CAIRN_MAX_PHRASES];
	int n = cairn_tf_compute(api, fts, ctx, nVal, vals, out);
	if (n < 0) return;
	sqlite3_result_blob(ctx, out, n * (int)sizeof(double), (void(*)(void*))-1);
}

// cairn_score_fn returns the row's score: the factors weighted by the
// inverse document frequencies in its first argument (a blob of doubles,
// one per phrase; a phrase without one weighs 1), summed in phrase order.
static void cairn_score_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
		int nVal, sqlite3_value **vals) {
	if (nVal < 2) { sqlite3_result_error_code(ctx, 1); return; }
	const double *idf = (const double*)sqlite3_value_blob(vals[0]);
	int nIdf = sqlite3_value_bytes(vals[0]) / (int)sizeof(double);
	const int *order = (const int*)sqlite3_value_blob(vals[1]);
	int nOrder = sqlite3_value_bytes(vals[1]) / (int)sizeof(int);
	double out[CAIRN_MAX_PHRASES];
	int n = cairn_tf_compute(api, fts, ctx, nVal - 2, vals + 2, out);
	if (n < 0) return;
	double sum = 0;
	for (int k = 0; k < n; k++) {
		int i = k;
		if (k < nOrder) {
			memcpy(&i, order + k, sizeof(int)); // the blobs may be unaligned
			if (i < 0 || i >= n) { sqlite3_result_error_code(ctx, 1); return; } // SQLITE_ERROR: an order out of range
		}
		double w = 1.0;
		if (i < nIdf) memcpy(&w, idf + i, sizeof(double));
		sum += w * out[i];
	}
	if (sum != sum) sum = 0; // SQLite would store a NaN as NULL
	sqlite3_result_double(ctx, sum);
}

// cairn_init registers cairn_tf and the cairn tokenizer on a new connection that has FTS5.
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
	int rc = fts->xCreateFunction(fts, "cairn_tf", 0, cairn_tf_fn, 0);
	if (rc == 0) rc = fts->xCreateFunction(fts, "cairn_score", 0, cairn_score_fn, 0);
	if (rc != 0) return rc;
	return cairn_grams_register(fts);
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
