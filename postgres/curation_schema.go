package postgres

// analysisSchema holds clustering runs (derived: a rebuild of the index
// drops them, reclustering makes them again). Members name chunks by
// (hash, seq); reads join the live chunks and documents. A write that
// changes what the latest run was made from marks it stale in Go
// (markStale), where SQLite uses triggers: a trigger on a Citus
// distributed table runs on its shard and needs enable_unsafe_triggers.
const analysisSchema = `
	CREATE TABLE analysis_runs(
		agent text NOT NULL,
		id text NOT NULL,
		created_at bigint NOT NULL,
		completed_at bigint NOT NULL,
		input_digest text NOT NULL,
		model text NOT NULL,
		embedding_fingerprint text NOT NULL,
		dimensions int NOT NULL,
		params_json text NOT NULL,
		corpora text NOT NULL,
		clusters int NOT NULL,
		members int NOT NULL,
		noise int NOT NULL,
		stale_at bigint,
		PRIMARY KEY(agent, id)
	);
	CREATE TABLE analysis_clusters(
		agent text NOT NULL,
		run_id text NOT NULL,
		cluster_id int NOT NULL,
		size int NOT NULL,
		mean_probability float8 NOT NULL,
		PRIMARY KEY(agent, run_id, cluster_id)
	);
	CREATE TABLE analysis_memberships(
		agent text NOT NULL,
		run_id text NOT NULL,
		hash text NOT NULL,
		seq int NOT NULL,
		cluster_id int NOT NULL,
		probability float8 NOT NULL,
		outlier_score float8 NOT NULL,
		x float8 NOT NULL,
		y float8 NOT NULL,
		representative_rank int,
		PRIMARY KEY(agent, run_id, hash, seq)
	);
	CREATE INDEX analysis_memberships_cluster ON analysis_memberships(agent, run_id, cluster_id, representative_rank);
	CREATE TABLE analysis_duplicate_occurrences(
		agent text NOT NULL,
		run_id text NOT NULL,
		content_fingerprint text NOT NULL,
		canonical_hash text NOT NULL,
		canonical_seq int NOT NULL,
		duplicate_hash text NOT NULL,
		duplicate_seq int NOT NULL,
		PRIMARY KEY(agent, run_id, duplicate_hash, duplicate_seq)
	);
	CREATE INDEX analysis_duplicates_canonical ON analysis_duplicate_occurrences(agent, run_id, canonical_hash, canonical_seq);`

// analysisTables are the derived curation tables, dropped with the index.
var analysisTables = []string{"analysis_runs", "analysis_clusters", "analysis_memberships", "analysis_duplicate_occurrences"}

// curationSchema holds what an agent decided (durable, like the memories):
// maintenance tasks (id: cairn.MaintenanceTaskID of the unique key),
// event-date annotations and cached judgments. Times are unix
// milliseconds.
const curationSchema = `
	CREATE TABLE maintenance_tasks(
		agent text NOT NULL,
		id text NOT NULL,
		type text NOT NULL CHECK(type IN ('ambiguous_event_time', 'exact_duplicate', 'quality_review')),
		corpus text NOT NULL,
		path text NOT NULL,
		reason text NOT NULL,
		content_fingerprint text NOT NULL DEFAULT '',
		detail text NOT NULL DEFAULT '',
		resolution_note text NOT NULL DEFAULT '',
		status text NOT NULL CHECK(status IN ('pending', 'resolved', 'deferred', 'irrelevant')),
		created_at bigint NOT NULL,
		updated_at bigint NOT NULL,
		PRIMARY KEY(agent, id),
		UNIQUE(agent, type, corpus, path, reason, content_fingerprint)
	);
	CREATE INDEX maintenance_tasks_status ON maintenance_tasks(agent, status, created_at, id);
	CREATE TABLE temporal_annotations(
		agent text NOT NULL,
		corpus text NOT NULL,
		path text NOT NULL,
		content_fingerprint text NOT NULL DEFAULT '',
		event_time bigint NOT NULL,
		basis text NOT NULL CHECK(basis IN ('path', 'frontmatter', 'session', 'agent_verified')),
		evidence text NOT NULL DEFAULT '',
		chunk_hash text NOT NULL DEFAULT '',
		chunk_seq int NOT NULL DEFAULT 0,
		created_at bigint NOT NULL,
		updated_at bigint NOT NULL,
		PRIMARY KEY(agent, corpus, path, content_fingerprint)
	);
	CREATE TABLE judgments(
		agent text NOT NULL,
		policy text NOT NULL,
		key text NOT NULL,
		value text NOT NULL,
		created_at bigint NOT NULL,
		PRIMARY KEY(agent, policy, key)
	);`
