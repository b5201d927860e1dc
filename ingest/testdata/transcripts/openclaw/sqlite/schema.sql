-- A trimmed OpenClaw agent store for Cairn's tests, written for Cairn (not
-- OpenClaw's own DDL): the tables and columns Cairn reads, plus the columns
-- seed.sql fills. Times are epoch milliseconds, tables STRICT, as in
-- OpenClaw's agent schema. Needs SQLite >= 3.43 (octet_length in a CHECK).
CREATE TABLE schema_meta (
  meta_key TEXT PRIMARY KEY,
  role TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  agent_id TEXT
) STRICT;

CREATE TABLE session_nodes (
  session_key TEXT PRIMARY KEY,
  current_session_id TEXT,
  entry_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  status TEXT,
  created_at INTEGER NOT NULL,
  created_via TEXT,
  display_name TEXT,
  last_interaction_at INTEGER,
  last_activity_at INTEGER
) STRICT;

CREATE TABLE conversations (
  conversation_id TEXT PRIMARY KEY,
  channel TEXT,
  account_id TEXT,
  kind TEXT,
  peer_id TEXT,
  delivery_target TEXT,
  native_channel_id TEXT,
  native_direct_user_id TEXT,
  label TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE session_windows (
  session_id TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  reason TEXT,
  session_scope TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  status TEXT,
  chat_type TEXT CHECK (chat_type IN ('direct', 'group', 'channel')),
  channel TEXT,
  account_id TEXT,
  primary_conversation_id TEXT REFERENCES conversations(conversation_id),
  model_provider TEXT,
  model TEXT,
  display_name TEXT
) STRICT;

CREATE TABLE session_conversations (
  session_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('primary', 'participant', 'related')),
  first_seen_at INTEGER,
  last_seen_at INTEGER,
  PRIMARY KEY (session_id, conversation_id, role)
) STRICT;

-- One event per row: event_json, or event_zstd (a zstd frame of the UTF-8
-- JSON) with its raw length and a navigation summary.
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  event_zstd BLOB,
  event_utf8_bytes INTEGER,
  navigation_json TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq),
  CHECK ((event_json IS NULL) <> (event_zstd IS NULL)),
  CHECK (event_zstd IS NULL OR (
    navigation_json IS NOT NULL
    AND event_utf8_bytes BETWEEN 1 AND 4194304
    AND length(event_zstd) BETWEEN 1 AND 4194304)),
  CHECK (navigation_json IS NULL OR (
    octet_length(navigation_json) <= 16384
    AND json_valid(navigation_json)
    AND json_extract(navigation_json, '$.version') = 1
    AND json_extract(navigation_json, '$.report.kind') IN ('canonical', 'leaf', 'link', 'ignored')
    AND json_type(navigation_json, '$.navigation') = 'object'
    AND json_type(navigation_json, '$.reset') = 'object'
    AND json_type(navigation_json, '$.model') = 'object'
    AND json_type(navigation_json, '$.modelBytes') = 'integer'
    AND json_extract(navigation_json, '$.modelBytes') BETWEEN 0 AND 4194304
    AND json_type(navigation_json, '$.modelWithoutCheckpointBytes') = 'integer'
    AND json_extract(navigation_json, '$.modelWithoutCheckpointBytes') BETWEEN 0 AND 4194304
    AND json_type(navigation_json, '$.withoutCustomDataBytes') = 'integer'
    AND json_extract(navigation_json, '$.withoutCustomDataBytes') BETWEEN 0 AND 4194304))
) STRICT;

CREATE TABLE session_transcript_active_events (
  session_id TEXT NOT NULL,
  active_position INTEGER NOT NULL,
  event_seq INTEGER NOT NULL,
  message_position INTEGER,
  context_eligible INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (session_id, active_position)
) STRICT;

CREATE TABLE session_transcript_cold_archives (
  session_id TEXT NOT NULL,
  generation INTEGER NOT NULL,
  archive_name TEXT NOT NULL,
  archive_sha256 TEXT,
  event_count INTEGER NOT NULL,
  raw_bytes INTEGER,
  archive_bytes INTEGER,
  last_seq INTEGER NOT NULL,
  archived_at INTEGER NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('file', 'sqlite')),
  archive_blob BLOB,
  PRIMARY KEY (session_id, generation)
) STRICT;
