package whisper

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
)

// Whisperer is one prompt-time whisperer (C28): the Memory Whisperer of
// this package (C29) or the Skill Whisperer (C30, package skills). The
// Service calls every enabled one concurrently for each new run of a
// session and puts their sections together in a fixed order.
//
// What the Service does, so a Whisperer need not:
//   - it calls Whisper only for trigger "user" turns that carry an agent,
//     a session and a run id, once per run: a repeated run id is answered
//     from the Service's cache without calling Whisper again, so a
//     Whisperer may advance its cooldowns and turn counters on every call;
//   - it gives each call a context that ends at the Service's deadline, or
//     when a newer run of the same session starts, or at shutdown; a
//     section returned after that is dropped, never injected later;
//   - it counts the Outcome of every Section (and "failed" for an error)
//     per agent for diagnostics (C16), so a Whisperer must set Outcome on
//     every return, including the ones with an empty Body;
//   - it wraps Body in <Kind> tags inside <cairn_memory>.
//
// What a Whisperer does: keep its own per (agent, session) state (turn
// counter, cooldowns) in memory, safe for concurrent calls on different
// sessions; honour ctx; forget a session on EndSession. An error is logged
// by the Service and the whisperer's section skipped; the other
// whisperers' sections still go out.
type Whisperer interface {
	// Kind names the whisperer's section and its diagnostics key: KindMemory
	// or KindSkill.
	Kind() string
	// Whisper answers one turn. An empty Body adds nothing to the prompt.
	Whisper(ctx context.Context, t *Turn) (Section, error)
	// Observe reports a completed tool call of the agent (C30: a Read of a
	// SKILL.md marks that skill opened). Whisperers that do not care
	// return nil.
	Observe(ctx context.Context, o *Observation) error
	// EndSession forgets the state of one session (the session ended, or
	// the Service shuts down).
	EndSession(agentID, sessionID string)
}

// Section kinds, in the order sections appear in <cairn_memory> (C28;
// <people> is reserved for later).
const (
	KindMemory = "memory"
	KindSkill  = "skill"
)

// Section is what one whisperer adds to a prompt.
type Section struct {
	// Kind is the whisperer's kind (KindMemory, KindSkill).
	Kind string
	// Body is the text between the section's tags, without them ("" adds
	// nothing). It must not contain the closing tag; render JSON with <
	// and > escaped (EscapeJSON).
	Body string
	// Outcome is the C16 outcome of this call, for the counters:
	// "emitted" with a Body; otherwise why not ("cooldown", "rejected",
	// "no_candidates", "missing_key", "judge_disabled", ...).
	Outcome string
	// Also are outcomes counted besides Outcome, once per entry (the
	// memory whisperer's "queries_generated", one
	// "judge_candidate_failed" per failed judgment).
	Also []string
}

// Turn is one prompt-time call (C28), as the harness sends it to POST
// /v1/whisper or to `cairn whisper` on stdin.
type Turn struct {
	AgentID   string `json:"agentId"`
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId"`
	// Trigger: only "user" runs the whisperers. "session_end" forgets the
	// session's state (cooldowns, turn counters, cached runs).
	Trigger string `json:"trigger"`
	// Prompt is the user's new message, the current request.
	Prompt string `json:"prompt"`
	// Messages are the conversation before Prompt, oldest first.
	Messages []Message `json:"messages"`
}

// Message is one message of the conversation a harness sends. Only Role
// and Content are needed; the other fields say what kind of message it
// is, so whisperers can leave out what the user never saw (C29 step 1;
// Visible applies those rules).
type Message struct {
	// Role: "user" or "assistant" count; others ("system", "tool",
	// "toolResult") are never part of the conversation.
	Role string `json:"role"`
	// Content is a string, or an array of blocks of which only
	// {"type":"text","text":...} ones are read.
	Content Content `json:"content"`
	// Timestamp as the harness wrote it (ISO-8601 or epoch ms); not read.
	Timestamp json.RawMessage `json:"timestamp,omitempty"`
	// Kind "compaction" or "summary" marks a compaction event or its
	// summary: the history before it (and it) is dropped.
	Kind string `json:"kind,omitempty"`
	// Provenance, any non-null value: the message was sent by machinery
	// (another session, a harness tool); the history resets after it.
	Provenance json.RawMessage `json:"provenance,omitempty"`
	// Source of a user message that a person did not type: "bot",
	// "heartbeat", "queued", "subagent" or "injected_memory"; the history
	// resets after it.
	Source string `json:"source,omitempty"`
	// Channel "analysis" marks an assistant's hidden reasoning: skipped.
	Channel string `json:"channel,omitempty"`
	// StopReason "error" or "aborted": the reply never completed; skipped.
	StopReason string `json:"stopReason,omitempty"`
	// Delivery "mirror", "injected" or "suppressed": a delivery copy of an
	// assistant reply, not the reply itself; skipped.
	Delivery string `json:"delivery,omitempty"`
}

// Content is a message's text: a JSON string, or an array of content
// blocks whose text blocks are joined by newlines.
type Content string

// UnmarshalJSON reads a string, null, or an array of blocks.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*c = ""
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content(s)
		return nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	var parts []string
	for _, bl := range blocks {
		if bl.Type == "text" && bl.Text != "" {
			parts = append(parts, bl.Text)
		}
	}
	*c = Content(strings.Join(parts, "\n"))
	return nil
}

// Observation is a completed tool call the harness reports to POST
// /v1/whisper/observe (C28, C30).
type Observation struct {
	AgentID   string          `json:"agentId"`
	SessionID string          `json:"sessionId"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	OK        bool            `json:"ok"`
}

// EscapeJSON returns b with < and > written as \u003c and \u003e, so a
// JSON body can sit inside a section's tags (C29 step 7, C30 step 4).
// json.Marshal already does so; this is for JSON written otherwise.
func EscapeJSON(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("<"), []byte(`\u003c`))
	return bytes.ReplaceAll(b, []byte(">"), []byte(`\u003e`))
}
