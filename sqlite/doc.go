// Package sqlite is Cairn's embedded index store: one SQLite database per
// agent, through github.com/mattn/go-sqlite3 with FTS5 (build with
// -tags sqlite_fts5; without it the package does not compile, and the
// compiler's message names the tag: notag.go).
//
// Layout:
//
//	meta       key/value: schema_version, feature_version
//	content    id PK (in insertion order), hash UNIQUE, doc (BLOB, the indexed text snapshot), title
//	documents  corpus, path (UNIQUE together), hash, cid (content id, indexed), size, mtime
//	chunks     id PK, cid + seq UNIQUE, byte pos/len, lines, tokens, noise
//	chunks_fts FTS5 (title, body, ident), contentless with delete support,
//	           rowid = chunks.id, tokenizer "cairn porter unicode61 remove_diacritics 2"
//	           (common grams for phrases, grams.go)
//
// Content is found by its sha256, so a renamed or copied file reuses its
// chunks and index rows; rows point at content by its integer id, given in
// insertion order, so a write appends to the indexes instead of landing on
// a random page of each (contentid.go). Removing a document deletes its row at once (it
// leaves search in the same transaction); GC later deletes content no
// document references.
//
// Concurrency: one writer connection (all writes serialized through it, in
// IMMEDIATE transactions) and a pool of read-only connections; WAL lets
// readers run while the writer commits. Two versions are kept: the schema
// version (migrations, applied in order at open) and the feature version
// (chunker and tokenizer), whose change empties the index so the next sync
// rebuilds it instead of mixing chunkings.
package sqlite
