package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// SchemaVersion is the newest schema this package migrates to.
var SchemaVersion = len(migrations)

// migrations[i] takes the schema from version i to i+1. Append only.
// Every table holds the agent in its primary key (Citus distributes by it);
// cairn_meta and agents are shared by every agent (reference tables on
// Citus). Text is bytea where offsets are bytes (content), so a chunk is
// cut from its document exactly.
var migrations = []string{
	`CREATE TABLE agents(
		agent text PRIMARY KEY,
		created_at bigint NOT NULL
	);
	CREATE TABLE agent_meta(
		agent text NOT NULL,
		key text NOT NULL,
		value text NOT NULL,
		PRIMARY KEY(agent, key)
	);
	CREATE TABLE content(
		agent text NOT NULL,
		hash text NOT NULL,
		doc bytea NOT NULL,
		title text NOT NULL DEFAULT '',
		created_at bigint NOT NULL,
		PRIMARY KEY(agent, hash)
	);
	CREATE TABLE documents(
		agent text NOT NULL,
		id bigserial NOT NULL,
		corpus text NOT NULL,
		path text NOT NULL,
		hash text NOT NULL,
		size bigint NOT NULL,
		mtime bigint NOT NULL,
		created_at bigint NOT NULL,
		modified_at bigint NOT NULL,
		PRIMARY KEY(agent, corpus, path)
	);
	CREATE INDEX documents_hash ON documents(agent, hash);
	CREATE TABLE chunks(
		agent text NOT NULL,
		id bigserial NOT NULL,
		hash text NOT NULL,
		seq int NOT NULL,
		pos bigint NOT NULL,
		len bigint NOT NULL,
		start_line int NOT NULL,
		end_line int NOT NULL,
		tokens int NOT NULL,
		noise boolean NOT NULL DEFAULT false,
		tsv tsvector,
		tf jsonb,
		PRIMARY KEY(agent, id),
		UNIQUE(agent, hash, seq)
	);
	CREATE INDEX chunks_tsv ON chunks USING gin(tsv) WHERE NOT noise;
	CREATE TABLE vectors(
		agent text NOT NULL,
		chunk_id bigint NOT NULL,
		identity text NOT NULL,
		vec vector NOT NULL,
		PRIMARY KEY(agent, chunk_id)
	);
	CREATE INDEX vectors_identity ON vectors(agent, identity, chunk_id);
	CREATE TABLE sessions(
		agent text NOT NULL,
		corpus text NOT NULL,
		path text NOT NULL,
		source text NOT NULL,
		session_id text NOT NULL,
		provider text NOT NULL DEFAULT '',
		chat_type text NOT NULL DEFAULT '',
		account_id text NOT NULL DEFAULT '',
		conversation_id text NOT NULL DEFAULT '',
		cwd text NOT NULL DEFAULT '',
		title text NOT NULL DEFAULT '',
		parent_id text NOT NULL DEFAULT '',
		started_at bigint NOT NULL DEFAULT 0,
		started_raw text NOT NULL DEFAULT '',
		transcript text NOT NULL,
		projection_hash text NOT NULL,
		projector_version int NOT NULL,
		spans text NOT NULL,
		PRIMARY KEY(agent, corpus, path)
	);
	CREATE INDEX sessions_transcript ON sessions(agent, corpus, transcript);
	CREATE TABLE transcript_files(
		agent text NOT NULL,
		corpus text NOT NULL,
		source text NOT NULL,
		path text NOT NULL,
		size bigint NOT NULL,
		mtime bigint NOT NULL,
		hash text NOT NULL,
		projector_version int NOT NULL,
		checked_at bigint NOT NULL,
		stats text NOT NULL DEFAULT '',
		error text NOT NULL DEFAULT '',
		PRIMARY KEY(agent, corpus, path)
	);
	CREATE TABLE memories(
		agent text NOT NULL,
		id text NOT NULL,
		kind text NOT NULL,
		title text NOT NULL DEFAULT '',
		summary text NOT NULL DEFAULT '',
		body text NOT NULL DEFAULT '',
		about text NOT NULL DEFAULT '',
		corpus text NOT NULL,
		thread text NOT NULL,
		told_at bigint NOT NULL DEFAULT 0,
		event_date text NOT NULL DEFAULT '',
		start_date text NOT NULL DEFAULT '',
		end_date text NOT NULL DEFAULT '',
		status text NOT NULL DEFAULT 'active',
		superseded_by text NOT NULL DEFAULT '',
		data text NOT NULL,
		created_at bigint NOT NULL,
		updated_at bigint NOT NULL,
		window_id bigint NOT NULL DEFAULT 0,
		PRIMARY KEY(agent, id)
	);
	CREATE INDEX memories_kind ON memories(agent, kind, status, told_at);
	CREATE INDEX memories_thread ON memories(agent, corpus, thread);
	CREATE INDEX memories_window ON memories(agent, window_id);
	CREATE TABLE consolidated_records(
		agent text NOT NULL,
		corpus text NOT NULL,
		thread text NOT NULL,
		pass text NOT NULL,
		uid text NOT NULL,
		window_id bigint NOT NULL,
		hash text NOT NULL DEFAULT '',
		PRIMARY KEY(agent, corpus, thread, pass, uid)
	);
	CREATE INDEX consolidated_records_window ON consolidated_records(agent, window_id);
	CREATE TABLE consolidation_windows(
		agent text NOT NULL,
		id bigserial NOT NULL,
		corpus text NOT NULL,
		thread text NOT NULL,
		pass text NOT NULL,
		records int NOT NULL,
		memories int NOT NULL,
		summary text NOT NULL DEFAULT '',
		tokens_in bigint NOT NULL DEFAULT 0,
		tokens_out bigint NOT NULL DEFAULT 0,
		created_at bigint NOT NULL,
		PRIMARY KEY(agent, id)
	);
	CREATE TABLE memory_links(
		agent text NOT NULL,
		from_id text NOT NULL,
		to_id text NOT NULL,
		kind text NOT NULL,
		reason text NOT NULL DEFAULT '',
		added text NOT NULL DEFAULT '',
		created_at bigint NOT NULL,
		PRIMARY KEY(agent, from_id, to_id, kind)
	);
	CREATE INDEX memory_links_to ON memory_links(agent, to_id);
	CREATE TABLE sleep_pairs(
		agent text NOT NULL,
		a text NOT NULL,
		b text NOT NULL,
		PRIMARY KEY(agent, a, b)
	);
	CREATE INDEX sleep_pairs_b ON sleep_pairs(agent, b);
	CREATE TABLE consolidation_failures(
		agent text NOT NULL,
		corpus text NOT NULL,
		thread text NOT NULL,
		pass text NOT NULL,
		uid text NOT NULL,
		hash text NOT NULL DEFAULT '',
		tries int NOT NULL,
		reason text NOT NULL DEFAULT '',
		updated_at bigint NOT NULL,
		PRIMARY KEY(agent, corpus, thread, pass, uid)
	);
	CREATE TABLE memory_neighbours(
		agent text NOT NULL,
		id text NOT NULL,
		identity text NOT NULL,
		hash text NOT NULL,
		near text NOT NULL,
		PRIMARY KEY(agent, id, identity)
	);` + analysisSchema + curationSchema,
	// 2: the postings table (see fillPostingsSQL). Created here, distributed
	// (on Citus) by migrate, then filled from the stored tsvectors and tf
	// maps by migrationFill; the GIN index it replaces is dropped there.
	// Each of those steps can run again, so a migration cut short (they
	// are not one transaction: Citus distributes a table outside one) is
	// finished by the next open.
	`CREATE TABLE IF NOT EXISTS postings(
		agent text NOT NULL,
		lexeme text COLLATE "C" NOT NULL,
		chunk bigint NOT NULL,
		tf real NOT NULL,
		PRIMARY KEY(agent, lexeme, chunk) INCLUDE (tf)
	);`,
	// 3: each posting's positions (the tsvector's, for the lexeme), in the
	// primary key too, so a phrase's word order is checked index-only
	// instead of on every candidate chunk's tsvector (13 of the 15
	// statements over 300 ms at 100k chunks were phrases). Filled from the
	// tsvectors and the key rebuilt by migrationFill.
	`ALTER TABLE postings ADD COLUMN IF NOT EXISTS pos smallint[]`,
	// 4: a larger sample of lexemes for the planner (the default keeps the
	// 100 most common lexemes and guesses the rest alike: at 100k chunks
	// 5,638 lexemes, 551 of them with over 2,000 postings, so a phrase or
	// all-words join of two common lexemes was planned as if each had a
	// few hundred, "into" 934 for its 7,221). 1,000 keeps every lexeme
	// common enough to matter (ANALYZE samples 300,000 postings: 27 s at
	// 100k chunks under load 22). Analyzed by migrate.
	`ALTER TABLE postings ALTER COLUMN lexeme SET STATISTICS 1000`,
	// 5: pair postings for phrases of common words (pairs.go), written for
	// the stored chunks by fillPairs (migrationSteps); no DDL.
	"",
	// 6: pair postings of an agent's own frequent words (ownpairs.go), and
	// their list in agent_meta; no DDL. The version is the fence: a build
	// before it would write and delete chunks without the own pairs, and
	// phrases read through them would then miss chunks, so it refuses
	// the schema ("schema version 6 is newer than this binary's 5").
	// Agents get their lists later (Optimize, import, RebuildFTS).
	"",
}

// migrationSteps run after migration i's SQL, distribution and fill, in
// Go: each writes the schema version itself, in its own transaction.
var migrationSteps = map[int]func(ctx context.Context, c *pgx.Conn, schema string, to int, logf func(string, ...any)) error{
	4: fillPairs,
}

// The lexical index is a table of postings, one row per
// (agent, lexeme, chunk) with the lexeme's weighted count in the chunk
// (title 2, body and identifiers 1, as the tf map holds it), its primary
// key covering tf so a search reads a lexeme's postings index-only, in
// chunk order, without visiting the chunks (a GIN index on the tsvector
// holds no counts: every match cost a heap visit for its tf map, 51x
// SQLite's lexical p99 at 100k chunks). The chunk's tsvector stays: a
// phrase is checked against its positions, for the chunks that hold all
// its lexemes. Noise chunks have no postings. The lexeme column sorts
// bytewise ("C") so a prefix is a key range.

// migrationDistribute names, per migration index, the tables it creates
// that Citus distributes by agent (co-located with the first migration's
// tables) before migrationFill runs.
var migrationDistribute = map[int][]string{1: {"postings"}}

// migrationFill runs after migration i (and its distribution), on a new
// database too (where it fills nothing): the postings of every stored
// chunk, from its tsvector's lexemes and its tf map; the GIN index is no
// longer read, so it goes.
// Each statement runs by itself (Citus refuses some DDL in a transaction
// that has already written shards in parallel).
var migrationFill = map[int][]string{1: {fillPostingsSQL, `DROP INDEX IF EXISTS chunks_tsv`},
	2: {`UPDATE postings p SET pos = x.positions FROM chunks c CROSS JOIN LATERAL unnest(c.tsv) x
		WHERE p.pos IS NULL AND c.agent = p.agent AND c.id = p.chunk AND x.lexeme = p.lexeme`,
		`ALTER TABLE postings DROP CONSTRAINT postings_pkey`,
		`ALTER TABLE postings ADD PRIMARY KEY (agent, lexeme, chunk) INCLUDE (tf, pos)`}}

// citusMigrations replace, per migration index, a migration Citus does
// not take on a distributed table: ALTER COLUMN ... SET STATISTICS runs on
// every shard of the postings instead (the coordinator's table holds no
// rows to analyze). A shard moved later (a rebalance) may come back with
// the default statistics target.
var citusMigrations = map[int]string{
	3: `DO $$BEGIN
		IF EXISTS (SELECT 1 FROM run_command_on_shards('postings', $c$ALTER TABLE %s ALTER COLUMN lexeme SET STATISTICS 1000$c$)
			WHERE NOT success) THEN
			RAISE EXCEPTION 'set the statistics target of the postings shards: a shard refused';
		END IF;
	END$$`,
}

// postingsRewritten names, per migration index, the migrations that
// write the postings of stored chunks or change what their statistics
// keep: migrate vacuums and analyzes the postings after them.
var postingsRewritten = map[int]bool{1: true, 2: true, 3: true, 4: true}

// fillPostingsSQL writes the postings of every indexed chunk of every
// agent (the migration of a database made before the postings table).
const fillPostingsSQL = `INSERT INTO postings(agent, lexeme, chunk, tf)
	SELECT c.agent, x.lexeme, c.id, coalesce((c.tf->>x.lexeme)::real, 0)
	FROM chunks c CROSS JOIN LATERAL unnest(c.tsv) x WHERE NOT c.noise AND c.tsv IS NOT NULL
	ON CONFLICT DO NOTHING`

// agentPostingsSQL writes the postings (lexemes and pairs) of every
// indexed chunk of agent $1 (an import, a rebuild).
var agentPostingsSQL = postingsOf(`c.agent = $1`, "") + ` ON CONFLICT DO NOTHING`

// referenceTables are shared by every agent; distributedTables are
// distributed by agent and co-located with the first (Citus).
var (
	referenceTables   = []string{"agents"}
	distributedTables = []string{"content", "agent_meta", "documents", "chunks", "vectors", "sessions", "transcript_files",
		"memories", "consolidated_records", "consolidation_windows", "memory_links", "sleep_pairs", "consolidation_failures",
		"memory_neighbours", "analysis_runs", "analysis_clusters", "analysis_memberships", "analysis_duplicate_occurrences",
		"maintenance_tasks", "temporal_annotations", "judgments"}
)

// textSearchDict and textSearchConfig are the cairn text search
// configuration: the default parser (which sees only the words Go has
// already split, see tokens.go) and English Snowball stemming without stop
// words, so every word is indexed as SQLite's porter tokenizer indexes
// every word. The configuration and its mappings are one statement string,
// so one transaction: made whole or not at all.
const (
	textSearchDict   = `CREATE TEXT SEARCH DICTIONARY cairn_stem (TEMPLATE = snowball, Language = english)`
	textSearchConfig = `CREATE TEXT SEARCH CONFIGURATION cairn (PARSER = default);
	ALTER TEXT SEARCH CONFIGURATION cairn ADD MAPPING FOR asciiword, word, numword, asciihword, hword, numhword,
		hword_asciipart, hword_part, hword_numpart, uint, int, float, sfloat, version WITH cairn_stem;`
)

// migrate brings the schema to SchemaVersion under a session advisory
// lock, so two processes opening one database migrate it once. On Citus
// it distributes the tables by agent.
func migrate(ctx context.Context, c *pgx.Conn, schema string, logf func(string, ...any)) error {
	if _, err := c.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey("migrate", schema)); err != nil {
		return classify("migrate store", err)
	}
	defer c.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey("migrate", schema))
	version, err := schemaVersion(ctx, c, schema)
	if err != nil {
		return err
	}
	if version > SchemaVersion {
		return &cairn.Error{Op: "open store", Path: "schema " + schema,
			Err:  fmt.Errorf("schema version %d is newer than this binary's %d", version, SchemaVersion),
			Hint: "upgrade cairn or use another schema"}
	}
	if version == SchemaVersion {
		return nil
	}
	citus, err := hasCitus(ctx, c)
	if err != nil {
		return err
	}
	if version == 0 {
		if err := createBase(ctx, c, schema); err != nil {
			return err
		}
	}
	filled := false // postings of stored chunks written or rewritten
	for i := version; i < SchemaVersion; i++ {
		q := migrations[i]
		if alt, ok := citusMigrations[i]; ok && citus {
			q = alt
		}
		if i == 0 {
			made, err := firstMade(ctx, c, schema)
			if err != nil {
				return err
			}
			if made {
				q = "" // an earlier first open made them and was cut short
			}
		}
		if q != "" {
			if _, err := c.Exec(ctx, q); err != nil {
				return classify(fmt.Sprintf("migrate store to version %d", i+1), err)
			}
		}
		if i == 0 && citus {
			if err := distribute(ctx, c); err != nil {
				return err
			}
		}
		for _, t := range migrationDistribute[i] {
			if !citus {
				break
			}
			if _, err := c.Exec(ctx, `SELECT create_distributed_table($1, 'agent', colocate_with => $2)
				WHERE NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass)`, t, distributedTables[0]); err != nil {
				return classify("distribute "+t, err)
			}
		}
		for _, q := range migrationFill[i] {
			if _, err := c.Exec(ctx, q); err != nil {
				return classify(fmt.Sprintf("migrate store to version %d", i+1), err)
			}
		}
		if step := migrationSteps[i]; step != nil {
			if err := step(ctx, c, schema, i+1, logf); err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("migrate store to version %d: interrupted, nothing was changed; open the store again to upgrade: %w", i+1, ctx.Err())
				}
				return classify(fmt.Sprintf("migrate store to version %d", i+1), err)
			}
		}
		filled = filled || version > 0 && postingsRewritten[i]
		if _, err := c.Exec(ctx, `INSERT INTO cairn_meta(key, value) VALUES('schema_version', $1)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, strconv.Itoa(i+1)); err != nil {
			return classify("migrate store", err)
		}
	}
	if filled {
		// The migration wrote or rewrote the postings of stored chunks
		// (migration 3's UPDATE leaves a dead row for each): until a
		// vacuum sets the visibility map, every index-only read of the
		// postings visits the heap as well (lexical p99 1,210 ms at 100k
		// chunks after migrating to 3), and until an analyze the planner
		// has no lexeme statistics. Autovacuum would come, but later.
		if err := vacuumPostings(ctx, c); err != nil {
			return classify("vacuum postings after migrating", err)
		}
	}
	if logf != nil {
		logf("postgres: schema %s migrated from version %d to %d (citus: %v)", schema, version, SchemaVersion, citus)
	}
	return nil
}

// createBase creates the schema, the extension, the meta table and the
// text search configuration, each only when missing. A schema's creation
// is several transactions (on Citus distribution runs outside one), so a
// first open cut short (a killed import) leaves a schema half made at
// version 0; the next open finishes it (createBase, firstMade,
// distribute) instead of failing on what is there already.
func createBase(ctx context.Context, c *pgx.Conn, schema string) error {
	if _, err := c.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
		return createError(schema, err, "install pgvector on the server; the user in [store] url must be allowed to CREATE EXTENSION vector")
	}
	for _, q := range []string{
		`CREATE SCHEMA IF NOT EXISTS ` + quoteIdent(schema),
		`CREATE TABLE IF NOT EXISTS cairn_meta(key text PRIMARY KEY, value text NOT NULL)`,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return createError(schema, err, "")
		}
	}
	if err := createTextSearch(ctx, c, schema); err != nil {
		return err
	}
	if err := pgxvec.RegisterTypes(ctx, c); err != nil {
		return classify("register vector type", err)
	}
	if ok, err := hasCitus(ctx, c); err == nil && ok {
		if _, err := c.Exec(ctx, `SELECT create_reference_table('cairn_meta') WHERE NOT EXISTS
			(SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'cairn_meta'::regclass)`); err != nil {
			return classify("distribute cairn_meta", err)
		}
	}
	return nil
}

// createTextSearch makes the text search dictionary and configuration of
// schema that are not there.
func createTextSearch(ctx context.Context, c *pgx.Conn, schema string) error {
	var dict, config bool
	if err := c.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM pg_ts_dict d JOIN pg_namespace n ON n.oid = d.dictnamespace WHERE n.nspname = $1 AND d.dictname = 'cairn_stem'),
		EXISTS (SELECT 1 FROM pg_ts_config f JOIN pg_namespace n ON n.oid = f.cfgnamespace WHERE n.nspname = $1 AND f.cfgname = 'cairn')`,
		schema).Scan(&dict, &config); err != nil {
		return classify("create store schema", err)
	}
	for _, q := range []struct {
		sql  string
		have bool
	}{{textSearchDict, dict}, {textSearchConfig, config}} {
		if q.have {
			continue
		}
		if _, err := c.Exec(ctx, q.sql); err != nil {
			return createError(schema, err, "")
		}
	}
	return nil
}

// createError is a failed statement of a schema's creation; hint, or when
// empty and the server refused the user the privilege, the CREATE hint.
func createError(schema string, err error, hint string) error {
	var pe *pgconn.PgError
	if hint == "" && errors.As(err, &pe) && pe.Code == "42501" {
		hint = "the user in [store] url needs CREATE on the database"
	}
	return &cairn.Error{Op: "create store schema", Path: schema, Err: classify("create store schema", err), Hint: hint}
}

// firstTables are the tables the first migration creates.
func firstTables() []string { return append(slices.Clone(referenceTables), distributedTables...) }

// firstMade reports whether the first migration's tables are in schema:
// all of them (an earlier first open made them and was cut short before
// it recorded the version: the migration is one statement string, so one
// transaction) or none. Some but not all are tables Cairn did not make,
// and the schema is refused with their names.
func firstMade(ctx context.Context, c *pgx.Conn, schema string) (bool, error) {
	tables := firstTables()
	var have []string
	if err := c.QueryRow(ctx, `SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM unnest($1::text[]) t
		WHERE to_regclass(quote_ident($2) || '.' || quote_ident(t)) IS NOT NULL`, tables, schema).Scan(&have); err != nil {
		return false, classify("read store schema", err)
	}
	switch len(have) {
	case 0:
		return false, nil
	case len(tables):
		return true, nil
	}
	return false, &cairn.Error{Op: "open store", Path: "schema " + schema,
		Err: fmt.Errorf("it has no schema version and holds %d of the %d tables Cairn creates (%s), not all of them: they are not Cairn's",
			len(have), len(tables), strings.Join(have, ", ")),
		Hint: "set [store] schema to another schema, or drop those tables"}
}

// schemaVersion reads the schema version, 0 for a schema not created yet.
func schemaVersion(ctx context.Context, c *pgx.Conn, schema string) (int, error) {
	var exists bool
	if err := c.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, quoteIdent(schema)+".cairn_meta").Scan(&exists); err != nil {
		return 0, classify("read schema version", err)
	}
	if !exists {
		return 0, nil
	}
	var v string
	err := c.QueryRow(ctx, `SELECT value FROM cairn_meta WHERE key = 'schema_version'`).Scan(&v)
	if err == pgx.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, classify("read schema version", err)
	}
	n, _ := strconv.Atoi(v)
	return n, nil
}

// hasCitus reports whether the database runs the Citus extension.
func hasCitus(ctx context.Context, c *pgx.Conn) (bool, error) {
	var ok bool
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&ok); err != nil {
		return false, classify("look for citus", err)
	}
	return ok, nil
}

// distribute makes the shared tables reference tables and distributes the
// others by agent, co-located, so one agent's rows of every table live on
// the same node and a query naming one agent runs there whole. Tables
// already distributed (by a first open cut short) are left as they are.
func distribute(ctx context.Context, c *pgx.Conn) error {
	const notYet = ` WHERE NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass)`
	for _, t := range referenceTables {
		if _, err := c.Exec(ctx, `SELECT create_reference_table($1)`+notYet, t); err != nil {
			return classify("distribute "+t, err)
		}
	}
	for i, t := range distributedTables {
		with := "default"
		if i > 0 {
			with = distributedTables[0]
		}
		if _, err := c.Exec(ctx, `SELECT create_distributed_table($1, 'agent', colocate_with => $2)`+notYet, t, with); err != nil {
			return classify("distribute "+t, err)
		}
	}
	return nil
}
