package cairn

import "time"

// Transcript sources Cairn reads.
const (
	SourceClaudeCode = "claude-code"
	SourceCodex      = "codex"
	SourceOpenClaw   = "openclaw"
	SourceGemini     = "gemini"
	SourceAider      = "aider"
	SourceOpenAIChat = "openai-chat"
)

// Sources lists every transcript source id, in documentation order.
var Sources = []string{SourceClaudeCode, SourceCodex, SourceOpenClaw, SourceGemini, SourceAider, SourceOpenAIChat}

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
}

// Skip counts one skipped record under reason.
func (s *ParseStats) Skip(reason string) {
	if s.Skipped == nil {
		s.Skipped = make(map[string]int)
	}
	s.Skipped[reason]++
}
