// Package postgres is Cairn's server storage: a cairn.Backend over
// PostgreSQL 15 or later with pgvector, for a team that shares one
// database, and over Citus, which spreads it across nodes.
//
// Every table carries the agent (the tenant) in its primary key, and every
// query names one agent: one agent's documents, chunks, vectors, sessions
// and memories are one tenant, and on Citus each table is distributed by
// agent and co-located, so a search runs on the one node that holds its
// agent's shard. A Backend serves one agent (Backend.Agent); without one it
// names the tenant after the data directory, so separate folders stay
// separate as they do with SQLite.
//
//	b := postgres.Backend{URL: "postgres://cairn@db/cairn", Agent: "alice"}
//	eng, err := engine.Open(ctx, engine.Options{Dir: dir, Backend: b})
//
// The lexical index: text is split into words in Go as SQLite's unicode61
// tokenizer splits it (letters and digits, folded to lower case, diacritics
// removed), then stemmed by PostgreSQL's English Snowball stemmer (no stop
// words) into a tsvector with a GIN index; title, body and identifier
// words carry weights A, B and C. A chunk's score is Σ w·tf over the
// leaves of a cairn.Match, tf being BM25's term-frequency factor with
// k1 = 1.2 and b = 0 over the weighted count of the leaf's lexeme (title
// words count 2, as in SQLite); the counts are kept per chunk in a jsonb
// map beside the tsvector, so scoring reads one value per leaf. A phrase's
// count is bounded by its rarest word's (positions are not walked), where
// SQLite counts the phrase exactly.
//
// Vectors are pgvector vectors; the engine loads them into its in-memory
// index (EachVector) as it does from SQLite. Store.Nearest searches them in
// the database with an HNSW index (cosine) per embedder identity.
package postgres
