package sqlite

// analysisSchema is the migration for clustering runs (C17): derived
// state, in the index, rebuilt by reclustering. Runs hold no text: the
// members name chunks by (hash, seq) and every read joins the live
// chunks and documents. Times are unix milliseconds.
//
// The triggers make the latest run stale (stale_at set once, never moved)
// when a write changes what the run was made from: a document indexed,
// given new content or removed (Apply, PruneCorpora, a feature-version
// reset), or a vector stored (an embedding pass). A document only
// touched (same content, new mtime) keeps the run fresh, as does a sync
// that changes nothing. Every statement is IF NOT EXISTS, so a store whose
// recorded version was set back (as the migration tests do) migrates.
const analysisSchema = `CREATE TABLE IF NOT EXISTS analysis_runs(
		id TEXT PRIMARY KEY,
		created_at INTEGER NOT NULL,
		completed_at INTEGER NOT NULL,
		input_digest TEXT NOT NULL,
		model TEXT NOT NULL,
		embedding_fingerprint TEXT NOT NULL,
		dimensions INTEGER NOT NULL,
		params_json TEXT NOT NULL,
		corpora TEXT NOT NULL,
		clusters INTEGER NOT NULL,
		members INTEGER NOT NULL,
		noise INTEGER NOT NULL,
		stale_at INTEGER
	);
	CREATE TABLE IF NOT EXISTS analysis_clusters(
		run_id TEXT NOT NULL REFERENCES analysis_runs(id) ON DELETE CASCADE,
		cluster_id INTEGER NOT NULL,
		size INTEGER NOT NULL,
		mean_probability REAL NOT NULL,
		PRIMARY KEY(run_id, cluster_id)
	) WITHOUT ROWID;
	CREATE TABLE IF NOT EXISTS analysis_memberships(
		run_id TEXT NOT NULL REFERENCES analysis_runs(id) ON DELETE CASCADE,
		hash TEXT NOT NULL,
		seq INTEGER NOT NULL,
		cluster_id INTEGER NOT NULL,
		probability REAL NOT NULL,
		outlier_score REAL NOT NULL,
		x REAL NOT NULL,
		y REAL NOT NULL,
		representative_rank INTEGER,
		PRIMARY KEY(run_id, hash, seq)
	) WITHOUT ROWID;
	CREATE INDEX IF NOT EXISTS analysis_memberships_cluster ON analysis_memberships(run_id, cluster_id, representative_rank);
	CREATE TABLE IF NOT EXISTS analysis_duplicate_occurrences(
		run_id TEXT NOT NULL REFERENCES analysis_runs(id) ON DELETE CASCADE,
		content_fingerprint TEXT NOT NULL,
		canonical_hash TEXT NOT NULL,
		canonical_seq INTEGER NOT NULL,
		duplicate_hash TEXT NOT NULL,
		duplicate_seq INTEGER NOT NULL,
		PRIMARY KEY(run_id, duplicate_hash, duplicate_seq)
	) WITHOUT ROWID;
	CREATE INDEX IF NOT EXISTS analysis_duplicates_canonical ON analysis_duplicate_occurrences(run_id, canonical_hash, canonical_seq);
	CREATE TRIGGER IF NOT EXISTS analysis_stale_document_insert AFTER INSERT ON documents BEGIN ` + staleNow + ` END;
	CREATE TRIGGER IF NOT EXISTS analysis_stale_document_update AFTER UPDATE OF hash ON documents WHEN old.hash <> new.hash BEGIN ` + staleNow + ` END;
	CREATE TRIGGER IF NOT EXISTS analysis_stale_document_delete AFTER DELETE ON documents BEGIN ` + staleNow + ` END;
	CREATE TRIGGER IF NOT EXISTS analysis_stale_vector_insert AFTER INSERT ON vectors BEGIN ` + staleNow + ` END;`

// staleNow marks every fresh run stale as of now (there is at most one
// run: PutAnalysis deletes the others). Once set, the WHERE makes it a
// read of one row, so a sync of many documents pays almost nothing.
const staleNow = `UPDATE analysis_runs SET stale_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE stale_at IS NULL;`

// curationSchema is the durable migration for the curation state (C21):
// what an agent decided cannot be rebuilt from the corpora, so it lives in
// memory.db beside the memories. Times are unix milliseconds. A task's id
// is cairn.MaintenanceTaskID of its unique key.
const curationSchema = `CREATE TABLE durable.maintenance_tasks(
		id TEXT PRIMARY KEY,
		type TEXT NOT NULL CHECK(type IN ('ambiguous_event_time', 'exact_duplicate', 'quality_review')),
		corpus TEXT NOT NULL,
		path TEXT NOT NULL,
		reason TEXT NOT NULL,
		content_fingerprint TEXT NOT NULL DEFAULT '',
		detail TEXT NOT NULL DEFAULT '',
		resolution_note TEXT NOT NULL DEFAULT '',
		status TEXT NOT NULL CHECK(status IN ('pending', 'resolved', 'deferred', 'irrelevant')),
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL,
		UNIQUE(type, corpus, path, reason, content_fingerprint)
	);
	CREATE INDEX durable.maintenance_tasks_status ON maintenance_tasks(status, created_at, id);
	CREATE TABLE durable.temporal_annotations(
		corpus TEXT NOT NULL,
		path TEXT NOT NULL,
		content_fingerprint TEXT NOT NULL DEFAULT '',
		event_time INTEGER NOT NULL,
		basis TEXT NOT NULL CHECK(basis IN ('path', 'frontmatter', 'session', 'agent_verified')),
		evidence TEXT NOT NULL DEFAULT '',
		chunk_hash TEXT NOT NULL DEFAULT '',
		chunk_seq INTEGER NOT NULL DEFAULT 0,
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL,
		PRIMARY KEY(corpus, path, content_fingerprint)
	);
	CREATE TABLE durable.judgments(
		policy TEXT NOT NULL,
		key TEXT NOT NULL,
		value TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		PRIMARY KEY(policy, key)
	);`
