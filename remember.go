package cairn

// RememberRequest is a memory an agent or a person writes directly (the
// remember call), instead of consolidation reading it from a session. It
// goes through the redaction and the rules of a consolidated item (see
// consolidate.Told for the rules and the allowed values); JSON names are
// fixed.
type RememberRequest struct {
	// Kind is an item kind (ItemKinds) or MemoryObservation.
	Kind    string `json:"kind"`
	Title   string `json:"title,omitempty"` // required for items; an observation's is made from its text
	Summary string `json:"summary"`         // the memory itself; an observation's text
	Body    string `json:"body,omitempty"`

	// Items only.
	AppliesWhen string `json:"applies_when,omitempty"`
	Scope       string `json:"scope,omitempty"`      // project (default), global or person
	Confidence  string `json:"confidence,omitempty"` // stated (default) or verified
	Importance  int    `json:"importance,omitempty"` // 2..5 (default 3)
	// Observations only: who or what it is about, and done (default),
	// plan, ongoing or state.
	About string `json:"about,omitempty"`
	Phase string `json:"phase,omitempty"`

	// When it happened: an event date, or a span from StartDate to
	// EndDate (either end may be open), each YYYY, YYYY-MM or YYYY-MM-DD.
	EventDate string `json:"event_date,omitempty"`
	StartDate string `json:"start_date,omitempty"`
	EndDate   string `json:"end_date,omitempty"`

	Cues     []string `json:"cues,omitempty"`
	Concepts []string `json:"concepts,omitempty"`

	// Agent names who tells it: the agent id an MCP or HTTP server serves,
	// "cli" or the --agent name for the command line. Required.
	Agent string `json:"agent"`
}

// RememberResult is what a remember call stored. JSON names are fixed.
type RememberResult struct {
	Memory Memory `json:"memory"`
	// Created is false when a memory with the same id was stored before
	// (the same agent told the same kind, title and text): it is replaced,
	// told again now.
	Created bool `json:"created"`
	// Provenance reads "told by <agent> at <time>" (UTC, RFC 3339).
	Provenance string `json:"provenance"`
	// Embedded counts the memory's chunks embedded in the call (0 without
	// an embedder); Pending those left for the next sync because the
	// embedder failed (EmbedError says why; the memory is stored and
	// found by lexical search either way).
	Embedded   int    `json:"embedded"`
	Pending    int    `json:"pending,omitempty"`
	EmbedError string `json:"embed_error,omitempty"`
}
