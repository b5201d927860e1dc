package cairn

import (
	"strings"
	"time"
)

// Transcript sources Cairn reads.
const (
	SourceClaudeCode = "claude-code"
	SourceCodex      = "codex"
	SourceOpenClaw   = "openclaw"
	SourceGemini     = "gemini"
	SourceAider      = "aider"
	SourceOpenAIChat = "openai-chat"
	SourceCursor     = "cursor"
	SourceLoggie     = "loggie" // meeting transcripts
)

// Sources lists every transcript source id, in documentation order.
var Sources = []string{SourceClaudeCode, SourceCodex, SourceOpenClaw, SourceGemini, SourceAider, SourceOpenAIChat, SourceCursor, SourceLoggie}

// Message roles and kinds of a session's projected messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"

	KindText    = "text"    // what a person or the agent said
	KindSummary = "summary" // a generated compaction summary: never a person's request
	KindCommand = "command" // a harness command typed by the user (aider "/run ...")
)

// Session is one agent conversation read from a transcript, normalized
// across sources. Parsers fill what their source records; empty strings
// mean unknown.
type Session struct {
	Source         string // one of Sources
	ID             string // the source's session id
	ParentID       string // parent session of a sub-agent transcript
	ParentToolID   string // the parent's tool call that spawned this sub-agent
	AgentID        string // sub-agent or OpenClaw agent id
	Provider       string // messaging channel for gateways, else the source id
	ChatType       string // direct, group or channel, where the source records one
	AccountID      string
	ConversationID string // project directory for coding agents
	Label          string
	Title          string
	Cwd            string
	GitBranch      string
	StartedAt      time.Time
	StartedAtRaw   string // the timestamp text as the source wrote it
	Messages       []Message
	Stats          ParseStats
}

// Message is one projected message: user or assistant text with its tool
// calls summarized.
type Message struct {
	ID        string // native id, or one derived from the position
	Role      string // RoleUser or RoleAssistant
	Kind      string // KindText, KindSummary or KindCommand
	Speaker   string // display name; empty means the role's default
	Text      string // blocks joined by "\n"; thinking omitted
	Tools     []ToolCall
	Time      time.Time // zero when the source has none
	TimeRaw   string    // the timestamp text as the source wrote it
	Model     string
	Sidechain bool // sub-agent or side question
}

// ToolCall is one tool use under an assistant message, summarized.
type ToolCall struct {
	ID      string
	Name    string
	Input   string // the key arguments, compact JSON or text
	Output  string // the result text (the projection cuts it to a budget)
	IsError bool
}

// ParseStats counts what a parser skipped and why; bad input is counted,
// never fatal for the rest of the file.
type ParseStats struct {
	Lines         int            // records read
	Skipped       map[string]int // reason → records skipped (unknown type, malformed JSON, injected context, ...)
	PartialTail   bool           // a half-written last line was left for the next read
	Deduplicated  int            // replayed or repeated records dropped
	ConsumedBytes int64          // bytes up to the last complete line (the resume offset)
	Truncated     map[string]int `json:",omitempty"` // reason → what reading or projecting cut (long strings, lines past the budget)
	Envelopes     EnvelopeCounts `json:",omitzero"`  // task and attachment envelopes unwrapped or left for the budget
}

// EnvelopeCounts counts the envelope cleaning of user text (spec C8, C9):
// internal task envelopes unwrapped (only with trusted provenance),
// attachment envelopes replaced by their file name, MIME type and label,
// and messages left unchanged because they were over the work budget.
// JSON names are fixed.
type EnvelopeCounts struct {
	InternalMessagesCleaned int `json:"internalMessagesCleaned"`
	AttachmentsCleaned      int `json:"attachmentsCleaned"`
	AttachmentBudgetSkipped int `json:"attachmentBudgetSkipped"`
}

// Add adds o to c.
func (c *EnvelopeCounts) Add(o EnvelopeCounts) {
	c.InternalMessagesCleaned += o.InternalMessagesCleaned
	c.AttachmentsCleaned += o.AttachmentsCleaned
	c.AttachmentBudgetSkipped += o.AttachmentBudgetSkipped
}

// IsZero reports whether nothing was counted.
func (c EnvelopeCounts) IsZero() bool { return c == EnvelopeCounts{} }

// AddDiagnostics adds envelope counts to s.Diagnostics, creating it when
// there is something to count.
func (s *SourceSyncStats) AddDiagnostics(c EnvelopeCounts) {
	if c.IsZero() {
		return
	}
	if s.Diagnostics == nil {
		s.Diagnostics = &EnvelopeCounts{}
	}
	s.Diagnostics.Add(c)
}

// Skip counts one skipped record under reason.
func (s *ParseStats) Skip(reason string) {
	if s.Skipped == nil {
		s.Skipped = make(map[string]int)
	}
	s.Skipped[reason]++
}

// SourceSpec is one transcript source of a sessions corpus with the roots
// (the tool's own home folders) to read it from.
type SourceSpec struct {
	ID    string
	Roots []string
}

// SessionInfo is the session metadata a session hit carries. JSON names are
// fixed.
type SessionInfo struct {
	SessionID      string `json:"sessionId"`
	Source         string `json:"source"`
	Provider       string `json:"provider,omitempty"`
	ChatType       string `json:"chatType,omitempty"`
	AccountID      string `json:"accountId,omitempty"`
	ConversationID string `json:"conversationId,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	Title          string `json:"title,omitempty"`
	StartedAt      string `json:"startedAt"`
	ParentID       string `json:"parentSessionId,omitempty"` // a sub-agent's parent session
}

// SnippetMessage is one message of a session hit's snippet. JSON names are
// fixed.
type SnippetMessage struct {
	Type      string `json:"type,omitempty"` // "user", "assistant", or empty for a generated summary
	Name      string `json:"name,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
	Body      string `json:"body"`
	Partial   bool   `json:"partial,omitempty"`
}

// SessionFilter narrows a search to sessions. Zero fields match anything.
// Times compare with the session start, inclusive; a session whose source
// recorded no start matches no time bound.
type SessionFilter struct {
	StartedFrom    time.Time
	StartedTo      time.Time
	Provider       string // case-insensitive
	ChatType       string // never matches sessions without one
	AccountID      string
	ConversationID string
	Source         string
	Cwd            string // working folder, exact
}

// IsZero reports whether the filter restricts nothing.
func (f *SessionFilter) IsZero() bool { return f == nil || *f == SessionFilter{} }

// SessionRecord is what the store keeps per projected session.
type SessionRecord struct {
	Corpus           string
	Path             string // projection path (the document's path)
	Info             SessionInfo
	StartedAt        time.Time
	StartedAtRaw     string // the start time as the source wrote it
	Transcript       string // the source file it came from
	ParentID         string
	ProjectionHash   string
	ProjectorVersion int
	Spans            string // JSON of the message spans
}

// TranscriptState is what sync remembers of one transcript file.
type TranscriptState struct {
	Corpus           string
	Source           string
	Path             string
	Size             int64
	ModTime          int64
	Hash             string
	ProjectorVersion int
	CheckedAt        int64
	Stats            string // JSON of the last parse's ParseStats
	Error            string // the last fatal parse error, if any
}

// SourceSyncStats counts what a session sync did for one source. JSON names
// are fixed.
type SourceSyncStats struct {
	Source       string         `json:"source"`
	Files        int            `json:"files"`        // transcript files found
	FilesChanged int            `json:"filesChanged"` // read and parsed again
	Sessions     int            `json:"sessions"`     // sessions seen in changed files
	Projected    int            `json:"projected"`    // projections written (new or changed)
	Unchanged    int            `json:"unchanged"`    // sessions whose projection did not change
	Skipped      int            `json:"skipped"`      // sessions left out (empty, chat type not selected)
	Removed      int            `json:"removed"`      // projections deleted
	Failed       int            `json:"failed"`       // files that could not be read or parsed
	LinesSkipped map[string]int `json:"linesSkipped,omitempty"`
	Redactions   map[string]int `json:"redactions,omitempty"` // secret kind → values replaced
	Truncated    map[string]int `json:"truncated,omitempty"`  // reason code (Cut...) → cuts made to bound memory and document size
	// SkipReasons counts sessions left out by reason code
	// ("direct_chats_not_selected", "empty_session"); like Truncated it
	// is repeated for transcripts that did not change, so the status keeps
	// saying why a source indexes fewer sessions than it holds.
	SkipReasons map[string]int `json:"skipReasons,omitempty"`
	Failures    []FileFailure  `json:"failures,omitempty"`
	// Diagnostics counts envelope cleaning in the sessions now indexed
	// (repeated, like Truncated, for transcripts that did not change).
	Diagnostics *EnvelopeCounts `json:"diagnostics,omitempty"`
}

// SessionSyncResult is the session part of a sessions corpus sync.
type SessionSyncResult struct {
	Sources       []SourceSyncStats `json:"sources"`
	LastCheckedAt string            `json:"lastCheckedAt"`
	LastIndexedAt string            `json:"lastIndexedAt,omitempty"`
	SkipReason    string            `json:"skipReason,omitempty"`
}

// Reason codes: the keys of SourceSyncStats.Truncated and SkipReasons (and
// of ParseStats.Truncated). They are stable snake_case codes for scripts;
// ReasonText gives the sentence the CLI prints. The set is small on
// purpose and documented in README.md.
const (
	// What reading a transcript cut (ingest's bounded reader).
	CutStringCut     = "string_cut"              // a JSON string over 32 KiB cut there
	CutLineOverLimit = "line_over_limit"         // a JSONL line still over 8 MiB, skipped
	CutOverBudget    = "transcript_over_budget"  // past 24 MiB: later lines not read
	CutDecompressed  = "decompressed_over_limit" // a zstd stream past 256 MiB: the rest not read
	CutMarkdownLine  = "markdown_line_cut"       // an Aider Markdown line over 32 KiB cut
	// What projecting a session changed.
	CutMessage       = "message_cut"             // a message over 1 MiB cut
	CutBadCharacters = "bad_characters_replaced" // NUL, control or invalid UTF-8 characters in a message
	CutParts         = "projected_in_parts"      // a session over 4 MiB written in parts
	// Why a session was left out.
	SkipEmptySession = "empty_session" // no message with text or tool calls
)

// skipChatTypeSuffix ends the code of a session whose chat type a corpus
// does not select: "direct_chats_not_selected".
const skipChatTypeSuffix = "_chats_not_selected"

// SkipChatType is the reason code for a session of a chat type the corpus's
// chatTypes do not select.
func SkipChatType(chatType string) string { return chatType + skipChatTypeSuffix }

var reasonText = map[string]string{
	CutStringCut:     "strings over 32 KiB cut",
	CutLineOverLimit: "lines over 8 MiB skipped",
	CutOverBudget:    "transcript over 24 MiB: later lines not read",
	CutDecompressed:  "decompressed over 256 MiB: the rest not read",
	CutMarkdownLine:  "lines over 32 KiB cut",
	CutMessage:       "messages over 1 MiB cut",
	CutBadCharacters: "messages with NUL, control or invalid UTF-8 characters replaced",
	CutParts:         "sessions over 4 MiB projected in parts",
	SkipEmptySession: "no message with text or tool calls",
}

// ReasonText returns the sentence for a reason code, or the code itself
// when it has none (a state recorded by a newer or older version).
func ReasonText(code string) string {
	if s, ok := reasonText[code]; ok {
		return s
	}
	if t, ok := strings.CutSuffix(code, skipChatTypeSuffix); ok && t != "" {
		return t + " chats not selected"
	}
	return code
}
