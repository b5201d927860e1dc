package mcpserver

// The In and Out types of the tools. The MCP server advertises schemas
// inferred from them (descriptions from the jsonschema tags, limits added by
// schema.go); the HTTP API decodes the same types, rejecting unknown fields.
// JSON names follow the spec (shared/spec/tools-and-corpora.md C11 to C16).

// SearchIn is the input of memory_search (spec C11, local mode).
type SearchIn struct {
	Query         string         `json:"query" jsonschema:"what to look for: words, identifiers, \"quoted phrases\" or prefix*; must not be blank"`
	Corpora       []string       `json:"corpora,omitempty" jsonschema:"names of the corpora to search; default every configured corpus (the memories corpus included when it exists)"`
	SessionFilter *SessionFilter `json:"sessionFilter,omitempty" jsonschema:"keeps only the session hits that match every given field; hits from the other corpora searched stay eligible"`
	MemoryFilter  *MemoryFilter  `json:"memoryFilter,omitempty" jsonschema:"keeps only the memory hits that match every given field (active memories only, filter or not); hits from the other corpora searched stay eligible"`
	MaxResults    *int           `json:"maxResults,omitempty" jsonschema:"most results to return, 1 to 20 (default 5); up to 200 when corpora is [\"memories\"]"`
	MinScore      *float64       `json:"minScore,omitempty" jsonschema:"lowest score to return, 0 to 1 (default 0.3); the score is the calibrated probability that a hit answers the query, on the same scale in every mode"`
	Mode          string         `json:"mode,omitempty" jsonschema:"which lanes answer: hybrid (default; BM25 alone when no embedder is configured), lexical or vector"`
}

// SessionFilter selects sessions (spec C11 sessionFilter).
type SessionFilter struct {
	StartedFrom    string `json:"startedFrom,omitempty" jsonschema:"sessions started at or after this ISO-8601 time with an offset, e.g. 2026-05-04T09:00:00+02:00"`
	StartedTo      string `json:"startedTo,omitempty" jsonschema:"sessions started at or before this ISO-8601 time with an offset"`
	Provider       string `json:"provider,omitempty" jsonschema:"messaging channel or source id, case-insensitive"`
	ChatType       string `json:"chatType,omitempty" jsonschema:"chat type (direct, group, channel); never matches sessions without one"`
	AccountID      string `json:"accountId,omitempty" jsonschema:"account id, exact after trimming"`
	ConversationID string `json:"conversationId,omitempty" jsonschema:"conversation id (the project folder for coding agents), exact after trimming"`
	Source         string `json:"source,omitempty" jsonschema:"transcript source: claude-code, codex, openclaw, gemini, aider, openai-chat, cursor or loggie"`
	Cwd            string `json:"cwd,omitempty" jsonschema:"working folder the session ran in, exact"`
}

// MemoryFilter selects memories (memory_search memoryFilter).
type MemoryFilter struct {
	Kinds    []string `json:"kinds,omitempty" jsonschema:"memory kinds: episode, observation, decision, procedure, snippet, template, pitfall, fact, architecture, preference or reference"`
	Scope    string   `json:"scope,omitempty" jsonschema:"items of this scope: project, global or person"`
	Project  string   `json:"project,omitempty" jsonschema:"memories from sessions run in this working folder (the session's cwd), exact"`
	Status   string   `json:"status,omitempty" jsonschema:"active (the default and the only status searched: superseded memories are listed by cairn memories list)"`
	ToldFrom string   `json:"toldFrom,omitempty" jsonschema:"memories told at or after this ISO-8601 time with an offset"`
	ToldTo   string   `json:"toldTo,omitempty" jsonschema:"memories told at or before this ISO-8601 time with an offset"`
	From     string   `json:"from,omitempty" jsonschema:"start of the event-time range: YYYY, YYYY-MM or YYYY-MM-DD; a memory matches when its event date or its start-to-end span overlaps the range at the precision it has (2023-06 overlaps 2023-06-10); memories without an event date do not match a range"`
	To       string   `json:"to,omitempty" jsonschema:"end of the event-time range, inclusive: YYYY, YYYY-MM or YYYY-MM-DD"`
}

// SearchOut is the output of memory_search.
type SearchOut struct {
	Warning string      `json:"warning,omitempty" jsonschema:"why the results may be partial: vectors pending or off, so only the lexical lane answered"`
	Notice  string      `json:"notice,omitempty" jsonschema:"the state of the index when it matters: empty, never synced, or its first sync still running or failed"`
	Error   string      `json:"error,omitempty" jsonschema:"why no search could run (the index or the embedder is unavailable)"`
	Results []SearchHit `json:"results" jsonschema:"best first"`
}

// SearchHit is one result of memory_search.
type SearchHit struct {
	Path             string      `json:"path" jsonschema:"cairn://<corpus>/<path>: pass it to memory_get"`
	StartLine        int         `json:"startLine" jsonschema:"first line of the snippet, 1-based"`
	EndLine          int         `json:"endLine" jsonschema:"last line of the snippet, inclusive"`
	Score            float64     `json:"score" jsonschema:"0 to 1, rounded to hundredths; ranking used full precision"`
	Snippet          any         `json:"snippet" jsonschema:"the matching text: a string for files, an array of messages ({type, name, timestamp, body, partial}) for sessions"`
	Corpus           string      `json:"corpus"`
	Session          *HitSession `json:"session,omitempty" jsonschema:"the session a session hit belongs to"`
	MessageTimestamp string      `json:"messageTimestamp,omitempty" jsonschema:"time of the first message of the snippet"`
	VectorScore      *float64    `json:"vectorScore,omitempty" jsonschema:"cosine similarity of the vector lane, rounded to hundredths"`
	TextScore        *float64    `json:"textScore,omitempty" jsonschema:"normalized BM25 score of the lexical lane, rounded to hundredths"`
	Memory           *HitMemory  `json:"memory,omitempty" jsonschema:"the memory a hit of the memories corpus is"`
}

// HitMemory is the memory of a memories-corpus hit.
type HitMemory struct {
	ID        string         `json:"id" jsonschema:"the memory's id (cairn memories show ID)"`
	Kind      string         `json:"kind" jsonschema:"episode, observation or an item kind (decision, fact, preference, ...)"`
	Title     string         `json:"title"`
	Status    string         `json:"status" jsonschema:"active"`
	EventDate string         `json:"eventDate,omitempty" jsonschema:"when it happened: YYYY, YYYY-MM or YYYY-MM-DD"`
	StartDate string         `json:"startDate,omitempty" jsonschema:"start of the span it happened over"`
	EndDate   string         `json:"endDate,omitempty" jsonschema:"end of the span it happened over"`
	ToldAt    string         `json:"toldAt,omitempty" jsonschema:"when it was said, ISO-8601 UTC"`
	Scope     string         `json:"scope,omitempty" jsonschema:"items: project, global or person"`
	Sources   []MemorySource `json:"sources" jsonschema:"the transcript lines it came from"`
}

// MemorySource is one source record of a memory.
type MemorySource struct {
	Path      string `json:"path" jsonschema:"the session projection, cairn://<corpus>/<path>: pass it to memory_get"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	SessionID string `json:"sessionId,omitempty"`
	ToldAt    string `json:"toldAt,omitempty" jsonschema:"the record's timestamp as projected"`
}

// HitSession is the session metadata of a session hit.
type HitSession struct {
	SessionID      string `json:"sessionId"`
	Source         string `json:"source,omitempty"`
	Provider       string `json:"provider,omitempty"`
	ChatType       string `json:"chatType,omitempty"`
	AccountID      string `json:"accountId,omitempty"`
	ConversationID string `json:"conversationId,omitempty"`
	Cwd            string `json:"cwd,omitempty" jsonschema:"the session's working folder"`
	Title          string `json:"title,omitempty" jsonschema:"the session's title, when its source gives one"`
	StartedAt      string `json:"startedAt"`
	ParentID       string `json:"parentSessionId,omitempty" jsonschema:"a sub-agent's parent session"`
}

// GetIn is the input of memory_get (spec C13).
type GetIn struct {
	Path  string `json:"path" jsonschema:"cairn://<corpus>/<path> of an indexed document, as in a search result; a line range after it (:10-25, as hits print it) sets from and lines when they are not given"`
	From  *int   `json:"from,omitempty" jsonschema:"first line, 1-based (default 1, or the path's range)"`
	Lines *int   `json:"lines,omitempty" jsonschema:"number of lines, 1 to 1000 (default 120, or the path's range); at most 12000 characters come back"`
}

// GetOut is the output of memory_get: status ok, not_found or unavailable.
type GetOut struct {
	Status    string  `json:"status" jsonschema:"ok, not_found or unavailable"`
	Text      *string `json:"text,omitempty" jsonschema:"the lines read from the indexed snapshot, with a continuation note when the document goes on"`
	Path      string  `json:"path,omitempty"`
	From      *int    `json:"from,omitempty"`
	Lines     *int    `json:"lines,omitempty" jsonschema:"number of lines returned"`
	Truncated bool    `json:"truncated,omitempty" jsonschema:"fewer lines than asked came back to stay under 12000 characters"`
	NextFrom  int     `json:"nextFrom,omitempty" jsonschema:"the from of the next call, when the document goes on"`
	Error     string  `json:"error,omitempty"`
}

// SyncSessionsIn is the input of memory_sync_sessions (spec C14).
type SyncSessionsIn struct {
	Force bool `json:"force,omitempty" jsonschema:"re-read every transcript and re-project every session, skipping the quiet check"`
}

// SyncSessionsOut is the output of memory_sync_sessions: started,
// already_running or unavailable.
type SyncSessionsOut struct {
	Status    string `json:"status" jsonschema:"started, already_running or unavailable"`
	StartedAt string `json:"startedAt,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Empty is the input of the tools that take none.
type Empty struct{}

// SyncStatusOut is the output of memory_sync_status (spec C15), plus the
// background work of a server.
type SyncStatusOut struct {
	Status               string       `json:"status" jsonschema:"idle, running, completed or failed"`
	Phase                string       `json:"phase,omitempty" jsonschema:"queued, projecting or indexing while running"`
	StartedAt            string       `json:"startedAt,omitempty"`
	CompletedAt          string       `json:"completedAt,omitempty"`
	Scanned              *int         `json:"scanned,omitempty"`
	Unchanged            *int         `json:"unchanged,omitempty"`
	Updated              *int         `json:"updated,omitempty"`
	Removed              *int         `json:"removed,omitempty"`
	Skipped              *int         `json:"skipped,omitempty"`
	Failed               *int         `json:"failed,omitempty"`
	Embedded             *int         `json:"embedded,omitempty"`
	LastSuccessfulSyncAt string       `json:"lastSuccessfulSyncAt,omitempty"`
	LastCheckedAt        string       `json:"lastCheckedAt,omitempty"`
	LastIndexedAt        string       `json:"lastIndexedAt,omitempty"`
	SkipReason           string       `json:"skipReason,omitempty" jsonschema:"no_changes or no_indexable_changes"`
	Error                string       `json:"error,omitempty"`
	Background           *Background  `json:"background,omitempty" jsonschema:"periodic sync and file watching of a long-running server"`
	Diagnostics          *SyncCounter `json:"diagnostics,omitempty"`
}

// SyncCounter holds the cleaning counters of a session sync (spec C9).
type SyncCounter struct {
	InternalMessagesCleaned int `json:"internalMessagesCleaned"`
	AttachmentsCleaned      int `json:"attachmentsCleaned"`
	AttachmentBudgetSkipped int `json:"attachmentBudgetSkipped"`
}

// Background reports a server's periodic session sync and file watcher.
type Background struct {
	FirstSync *FirstSyncStatus `json:"firstSync,omitempty" jsonschema:"the sync the server ran when it started"`
	Periodic  *PeriodicStatus  `json:"periodic,omitempty"`
	Watcher   *WatcherStatus   `json:"watcher,omitempty"`
}

// FirstSyncStatus is the sync a server runs when it starts (spec C1):
// the files corpora, then the whole index.
type FirstSyncStatus struct {
	Status      string `json:"status" jsonschema:"running, completed or failed"`
	Phase       string `json:"phase,omitempty" jsonschema:"while running: indexing (searches wait for it), embedding (lexical search answers meanwhile) or sessions"`
	StartedAt   string `json:"startedAt"`
	CompletedAt string `json:"completedAt,omitempty"`
	Error       string `json:"error,omitempty"`
}

// PeriodicStatus is the periodic session sync (spec C10).
type PeriodicStatus struct {
	IntervalMinutes int    `json:"intervalMinutes" jsonschema:"0 means manual syncs only"`
	NextAt          string `json:"nextAt,omitempty"`
	LastAt          string `json:"lastAt,omitempty"`
	Runs            int    `json:"runs"`
	LastError       string `json:"lastError,omitempty"`
}

// WatcherStatus is the file watcher (spec C6).
type WatcherStatus struct {
	Enabled     bool   `json:"enabled"`
	Directories int    `json:"directories" jsonschema:"folders watched"`
	DebounceMs  int    `json:"debounceMs"`
	Syncs       int    `json:"syncs" jsonschema:"syncs the watcher started"`
	LastEventAt string `json:"lastEventAt,omitempty"`
	LastSyncAt  string `json:"lastSyncAt,omitempty"`
	Pending     bool   `json:"pending" jsonschema:"a sync is scheduled"`
	LastError   string `json:"lastError,omitempty"`
}

// DiagnosticsOut is the output of memory_diagnostics (spec C16). Cairn's
// local mode has no judge and no whisperers yet: they report disabled.
type DiagnosticsOut struct {
	Status     string      `json:"status" jsonschema:"ok"`
	Credential string      `json:"credential" jsonschema:"judge key: disabled, available, missing or unreadable"`
	Enabled    Enabled     `json:"enabled"`
	Whisperers Whisperers  `json:"whisperers"`
	Index      IndexDiag   `json:"index"`
	Background *Background `json:"background,omitempty" jsonschema:"periodic sync and file watching of a long-running server"`
}

// Enabled says which optional features are on.
type Enabled struct {
	Skill              bool `json:"skill"`
	Memory             bool `json:"memory"`
	ComplementaryHints bool `json:"complementaryHints"`
	QualityAudit       bool `json:"qualityAudit"`
	EvidenceReview     bool `json:"evidenceReview"`
}

// Whisperers holds whisperer outcomes and per-operation telemetry.
type Whisperers struct {
	Skill     map[string]int64       `json:"skill" jsonschema:"outcome counts of the skill whisperer"`
	Memory    map[string]int64       `json:"memory" jsonschema:"outcome counts of the memory whisperer"`
	Telemetry map[string]OpTelemetry `json:"telemetry" jsonschema:"per operation: memorySearch, vector"`
	Scope     Scope                  `json:"scope"`
}

// OpTelemetry counts one operation's calls since the process started.
type OpTelemetry struct {
	Calls        int64                  `json:"calls"`
	Outcomes     map[string]int64       `json:"outcomes" jsonschema:"ok, partial, empty, failed, cancelled, timed_out, skipped"`
	Measurements map[string]Measurement `json:"measurements"`
}

// Measurement summarizes one measured quantity: p50 and p95 by nearest rank
// over the last 256 calls.
type Measurement struct {
	Total         float64 `json:"total"`
	Samples       int64   `json:"samples"`
	RecentSamples int     `json:"recentSamples"`
	P50           float64 `json:"p50"`
	P95           float64 `json:"p95"`
}

// Scope names what the numbers cover.
type Scope struct {
	Agent   string   `json:"agent"`
	Corpora []string `json:"corpora"`
}

// IndexDiag describes the agent's index; Status is "unavailable" (with
// Error) when it cannot be read.
type IndexDiag struct {
	Status                    string    `json:"status,omitempty"`
	Error                     string    `json:"error,omitempty"`
	ProjectorVersion          int       `json:"projectorVersion"`
	SemanticChunkingVersion   *int      `json:"semanticChunkingVersion" jsonschema:"null: the structural chunker is used"`
	SessionsNeedingProjection int       `json:"sessionsNeedingProjection" jsonschema:"transcript files changed since the last session sync"`
	NeedsEmbedding            int       `json:"needsEmbedding" jsonschema:"chunks waiting for a vector"`
	EmbeddingReady            bool      `json:"embeddingReady" jsonschema:"an embedder is configured and every chunk has its vector"`
	StructuralChunksOmitted   *int      `json:"structuralChunksOmitted" jsonschema:"null: not counted by the structural chunker"`
	WatchError                string    `json:"watchError,omitempty"`
	Warnings                  []string  `json:"warnings,omitempty" jsonschema:"what keeps search from answering fully: an empty or never-synced index, a sync in progress, vectors off and why"`
	Retrieval                 Retrieval `json:"retrieval"`
	Memories                  *Memories `json:"memories,omitempty" jsonschema:"stored memories by kind and status; absent while none is stored"`
	Scope                     Scope     `json:"scope"`
}

// Memories counts the stored memories.
type Memories struct {
	Total    int            `json:"total"`
	ByKind   map[string]int `json:"byKind" jsonschema:"count per kind"`
	ByStatus map[string]int `json:"byStatus" jsonschema:"count per status: active, superseded"`
}

// Retrieval describes how memory_search answers.
type Retrieval struct {
	Mode       string `json:"mode" jsonschema:"default mode: hybrid with an embedder, else lexical"`
	Embedder   string `json:"embedder,omitempty" jsonschema:"provider and model of the embedder"`
	VectorsOff string `json:"vectorsOff,omitempty" jsonschema:"why the configured embedder could not load: search is lexical only"`
	Documents  int    `json:"documents"`
	Chunks     int    `json:"chunks"`
}
