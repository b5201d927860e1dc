// Package sqlite is Cairn's embedded index store: one SQLite database per
// agent, through github.com/mattn/go-sqlite3 with FTS5 (build with
// -tags sqlite_fts5; without it the package does not compile, and the
// compiler's message names the tag: notag.go).
//
// Layout:
//
//	meta       key/value: schema_version, feature_version (and pairs.go's
//	           rebuild state)
//	content    id PK (in insertion order), hash UNIQUE, doc (BLOB, the indexed text snapshot), title
//	documents  corpus, path (UNIQUE together), hash, cid (content id, indexed), size, mtime
//	chunks     id PK, cid + seq UNIQUE, byte pos/len, lines, tokens, noise
//	chunks_fts FTS5 (title, body, ident), contentless with delete support,
//	           rowid = chunks.id, tokenizer "cairn porter unicode61 remove_diacritics 2"
//	           (common grams for phrases, grams.go), or "cairn words 'LIST' porter ..."
//	           for an index of 200,000 chunks or more with its own frequent words
//	           paired (pairs.go)
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
//
// Older builds and pair lists: an index whose full-text table pairs its
// own frequent words (pairs.go; serve's idle-time maintenance builds one
// for an index of 200,000 chunks or more) records schema version 13, and
// a build from before pair lists (index schema 12 in `cairn version`)
// refuses it at open: "cairn: open store .../index.db: schema version 13
// is newer than this binary's 12 (upgrade cairn or use another data
// directory)", exit status 1, for a search, a sync or any other command,
// and changes nothing in it (bench/fence-check.sh). An index without such a table records 12 and older builds
// go on opening it, so small indexes (the most common kind) stay readable
// both ways. The version follows the schema: it becomes 13 in the
// transaction that starts a rebuild with pair words (the new table is
// built beside the old one) or swaps such a table in, and 12 again in the
// one that swaps in a table without them (the list dropped because the
// index's words changed) or rebuilds the table plain (`cairn doctor
// --repair`); every open checks it against the schema, so an index paired
// by a build between the first pair lists and the fence (recorded 12 with
// a pair list) is fenced at its next open by this build. Without the
// fence (an index paired by builds baf82f0 to 28a0aac, opened by 1df441c)
// the older build opened the index, `cairn doctor` found nothing wrong,
// and every search and every sync with a chunk to write failed with
// "error in tokenizer constructor" (bench/fence-check.sh). To go back to
// an older build with a paired index, remove index.db (with index.db-wal
// and index.db-shm) and sync with that build: documents are read again
// from their sources, memory.db stays. Two builds must not use one data
// directory at the same time: a process of an older build that opened
// the index before a rebuild with pair words began fails at its first
// search after the swap (fence.go).
package sqlite
