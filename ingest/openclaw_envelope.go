package ingest

import (
	"encoding/json"
	"strings"
)

// Channel envelopes: the context blocks gateways prefix to inbound user text.

// ocUserText strips the channel envelope from a user message's text and
// names its speaker (empty: the role's default).
func ocUserText(text string, m *ocMsg, event ocSenders) (string, string) {
	body, env := ocStripEnvelope(text)
	oc := m.oc.or(event)
	var speaker string
	for _, c := range []ocLoose{oc.Name, env.Name, oc.Username, env.Username, oc.ID, env.ID, m.own.Name, m.own.Label, m.own.Username, m.own.ID} {
		if speaker = strings.Join(strings.Fields(string(c)), " "); speaker != "" {
			break
		}
	}
	if speaker != "" && strings.HasPrefix(body, "From:") {
		_, rest, _ := strings.Cut(body, "\n")
		body = strings.TrimLeft(rest, "\r\n")
	}
	return body, speaker
}

// ocStripEnvelope removes the leading context blocks and time prefix of a
// user text and returns the sender its conversation block names. A block
// without a closed fence is left intact, with everything after it.
func ocStripEnvelope(text string) (string, ocSenders) {
	var who ocSenders
	rest, stripped := ocTimePrefix().ReplaceAllLiteralString(text, ""), false
	for {
		label, after, ok := strings.Cut(strings.TrimLeft(rest, "\r\n"), "\n")
		if !ok || !ocIsLabel(label) {
			break
		}
		fence, after, ok := strings.Cut(after, "\n")
		if !ok || !strings.HasPrefix(strings.TrimSpace(fence), "```") {
			break
		}
		block, tail, ok := ocCutFence(after)
		if !ok {
			break
		}
		if who == (ocSenders{}) && ocIsSenderLabel(label) {
			who = ocEnvelopeSender(block)
		}
		rest, stripped = tail, true
	}
	if !stripped {
		return rest, who
	}
	return ocTimePrefix().ReplaceAllLiteralString(strings.TrimSpace(rest), ""), who
}

func ocIsLabel(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasSuffix(t, ocCtxMarker) || strings.HasSuffix(t, ":") && strings.Contains(t, "(untrusted")
}

// ocIsSenderLabel tells the blocks that describe the current message's
// sender from those quoting others (thread starter, reply chain, forwards).
func ocIsSenderLabel(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "Conversation info") || strings.HasPrefix(t, "Sender")
}

// ocCutFence splits s at its first line that closes a fence.
func ocCutFence(s string) (block, tail string, ok bool) {
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		line, next := s[off:], len(s)
		if end >= 0 {
			line, next = s[off:off+end], off+end+1
		}
		if strings.TrimSpace(line) == "```" {
			return s[:off], s[next:], true
		}
		off = next
	}
	return "", "", false
}

// ocEnvelopeSender reads the sender of a context block's JSON: a "sender"
// object {id, name, username} (or string), else top-level fields (legacy
// "Sender" blocks).
func ocEnvelopeSender(block string) ocSenders {
	var v struct {
		Sender   json.RawMessage `json:"sender"`
		Name     ocLoose         `json:"name"`
		Username ocLoose         `json:"username"`
		ID       ocLoose         `json:"id"`
		Label    ocLoose         `json:"label"`
	}
	if json.Unmarshal([]byte(block), &v) != nil {
		return ocSenders{}
	}
	if s := trimJSONSpace(v.Sender); len(s) > 0 && (s[0] == '{' || s[0] == '"') {
		var name ocLoose
		if s[0] == '"' && json.Unmarshal(s, &name) == nil {
			return ocSenders{Name: name}
		}
		v.Name, v.Username, v.ID, v.Label = "", "", "", ""
		_ = json.Unmarshal(s, &v)
	}
	if v.Name == "" {
		v.Name = v.Label
	}
	return ocSenders{Name: v.Name, Username: v.Username, ID: v.ID}
}
