package whisper

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn/ingest"
)

// Budget of what a whisperer sends a model about the conversation (C29
// step 1, C11 step 1).
const (
	MaxInputBytes  = 24000
	MaxInputTokens = 8192
)

// Msg is one visible message of a conversation, as models are shown it.
type Msg struct {
	Role string `json:"role"` // "user" or "assistant"
	Text string `json:"text"`
}

// Conversation is what a whisperer sends a model: the newest visible
// messages before the current request, and the request.
type Conversation struct {
	History        []Msg  `json:"history"`
	CurrentRequest string `json:"currentRequest"`
}

// Sources of user messages that no person typed: the history resets
// after them.
var machineSources = map[string]bool{"bot": true, "heartbeat": true, "queued": true, "subagent": true, "injected_memory": true}

// Prefixes of user text that machinery injects (OpenClaw, transcript
// formats §3.5): heartbeats, queued messages, sub-agent context, memory
// that was injected before.
var machinePrefixes = []string{"[OpenClaw heartbeat poll]", "[Queued messages while agent was busy]", "[Subagent Context]", "<relevant-memories>", "<cairn_memory>"}

// Visible returns the conversation of a turn by C29's rules: only user
// and assistant text; the history resets at a compaction event or
// summary, at any message with provenance, and at a user message that
// machinery sent (Source, or a known machine prefix); assistant messages
// in the analysis channel, with an error or aborted stop, delivery
// mirrors, NO_REPLY and HEARTBEAT_OK are skipped; channel envelopes are
// stripped from user text; an assistant text equal to the one before it
// collapses; a trailing copy of the current request is dropped. The
// current request is the prompt, its envelope stripped.
func Visible(t *Turn) Conversation {
	var hist []Msg
	for _, m := range t.Messages {
		text := strings.TrimSpace(string(m.Content))
		switch {
		case m.Kind == "compaction" || m.Kind == "summary" || (len(m.Provenance) > 0 && string(m.Provenance) != "null"):
			hist = nil
			continue
		case m.Role == "user" && (machineSources[m.Source] || hasMachinePrefix(text)):
			hist = nil
			continue
		case m.Role != "user" && m.Role != "assistant":
			continue
		case text == "NO_REPLY" || text == "HEARTBEAT_OK":
			continue
		case m.Role == "assistant" && (m.Channel == "analysis" || m.StopReason == "error" || m.StopReason == "aborted" || m.Delivery != ""):
			continue
		}
		if m.Role == "user" {
			text = strings.TrimSpace(ingest.StripChannelEnvelope(text))
		}
		if text == "" {
			continue
		}
		if m.Role == "assistant" && len(hist) > 0 && hist[len(hist)-1].Role == "assistant" && hist[len(hist)-1].Text == text {
			continue
		}
		hist = append(hist, Msg{Role: m.Role, Text: text})
	}
	current := strings.TrimSpace(ingest.StripChannelEnvelope(strings.TrimSpace(t.Prompt)))
	if n := len(hist); n > 0 && hist[n-1].Role == "user" && hist[n-1].Text == current {
		hist = hist[:n-1]
	}
	if hist == nil {
		hist = []Msg{}
	}
	return Conversation{History: hist, CurrentRequest: current}
}

func hasMachinePrefix(text string) bool {
	for _, p := range machinePrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// Fit returns c with the newest whole history messages that fit the
// budget beside the whole current request (a binary search over
// suffixes, since a longer suffix never encodes shorter), and false when
// the request alone does not fit.
func Fit(c Conversation) (Conversation, bool) {
	fits := func(k int) bool {
		return withinBudget(Conversation{History: c.History[len(c.History)-k:], CurrentRequest: c.CurrentRequest})
	}
	if !fits(0) {
		return Conversation{History: []Msg{}, CurrentRequest: c.CurrentRequest}, false
	}
	lo, hi := 0, len(c.History) // fits(lo) holds
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return Conversation{History: c.History[len(c.History)-lo:], CurrentRequest: c.CurrentRequest}, true
}

// withinBudget reports whether c, encoded as JSON with < escaped, is
// within MaxInputBytes and MaxInputTokens.
func withinBudget(c Conversation) bool {
	b := encodeEscaped(c)
	return len(b) <= MaxInputBytes && EstimateTokens(string(b)) <= MaxInputTokens
}

// QueryFits reports whether one query, sent as {"history":[],
// "currentRequest":q}, is within the budget (C11 step 1).
func QueryFits(q string) bool {
	return withinBudget(Conversation{History: []Msg{}, CurrentRequest: q})
}

// encodeEscaped is JSON with <, > and & escaped (json.Marshal's default).
func encodeEscaped(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// EstimateTokens bounds the tokens a model's tokenizer makes of s from
// above, without that tokenizer (the query model's is not at hand): one
// token per three bytes of ASCII, one per other character. Common BPE
// tokenizers make about one token per four ASCII bytes of English and
// one or more per CJK character.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		other++
		i += n
	}
	return (ascii+2)/3 + other
}

// marshalNoHTML encodes v as JSON with & left as it is and < > escaped.
func marshalNoHTML(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return EscapeJSON(bytes.TrimRight(buf.Bytes(), "\n"))
}
