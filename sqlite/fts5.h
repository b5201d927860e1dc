// Declarations shared by the package's cgo files: the parts of SQLite's
// public C interface (sqlite3.h and its FTS5 extension API, fts5.h) that
// cairn_tf and the cairn tokenizer use. The definitions come from the
// SQLite that github.com/mattn/go-sqlite3 compiles into the binary.

#ifndef CAIRN_FTS5_H
#define CAIRN_FTS5_H
#include <stdlib.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
typedef long long sqlite3_int64;
typedef struct sqlite3_api_routines sqlite3_api_routines;

int sqlite3_open(const char*, sqlite3**);
int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
int sqlite3_bind_pointer(sqlite3_stmt*, int, void*, const char*, void(*)(void*));
int sqlite3_step(sqlite3_stmt*);
int sqlite3_finalize(sqlite3_stmt*);
double sqlite3_value_double(sqlite3_value*);
const void *sqlite3_value_blob(sqlite3_value*);
int sqlite3_value_bytes(sqlite3_value*);
void sqlite3_result_double(sqlite3_context*, double);
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
typedef struct Fts5Tokenizer Fts5Tokenizer;
typedef int (*fts5_token_fn)(void *ctx, int tflags, const char *token, int n, int start, int end);
typedef struct fts5_tokenizer {
	int (*xCreate)(void*, const char **args, int nArg, Fts5Tokenizer **out);
	void (*xDelete)(Fts5Tokenizer*);
	int (*xTokenize)(Fts5Tokenizer*, void *ctx, int flags, const char *text, int n, fts5_token_fn xToken);
} fts5_tokenizer;
typedef struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(struct fts5_api*, const char *name, void *user, fts5_tokenizer*, void (*destroy)(void*));
	int (*xFindTokenizer)(struct fts5_api*, const char *name, void **user, fts5_tokenizer*);
	int (*xCreateFunction)(struct fts5_api*, const char*, void*, fts5_extension_function, void (*)(void*));
} fts5_api;

#define FTS5_TOKENIZE_QUERY 0x0001
#define FTS5_TOKENIZE_PREFIX 0x0002
#define FTS5_TOKENIZE_DOCUMENT 0x0004
#define FTS5_TOKENIZE_AUX 0x0008
#define FTS5_TOKEN_COLOCATED 0x0001

void *sqlite3_realloc(void*, int);

// cairn_grams_register registers the cairn tokenizer (grams.go).
int cairn_grams_register(fts5_api *api);

// Pretokenizing (grams.go, pretok.go).
void cairn_pretok_set_key(const unsigned char *key);
int cairn_pretok_open(void);
Fts5Tokenizer *cairn_pretok_new(const char **args, int nArg, int *rc);
void cairn_pretok_free(Fts5Tokenizer *t);
long long cairn_pretok(Fts5Tokenizer *t, const char *text, int n, unsigned char *out, long long cap);
void cairn_doc_counts(long long *values, long long *replays);

#endif


