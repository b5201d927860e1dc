package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// Generic OpenAI chat import (spec transcript-formats §7): a JSON array of
// messages (one conversation, named after the file), a JSON array of
// conversation objects, a single conversation object, or JSONL with one
// {id, created_at, metadata, messages} conversation per line.
//
// Files that are valid JSON but hold no conversation (a package.json next
// to the exports) yield no session and no error. A JSONL file whose lines
// all fail to parse is an error; otherwise malformed lines are counted.

func init() {
	register(SourceReader{ID: cairn.SourceOpenAIChat, Find: oaiFind, Parse: parseOpenAIChat})
}

// oaiFind lists *.json and *.jsonl files under root, recursively.
func oaiFind(root string) ([]string, error) {
	return oaiWalk(root, func(name string) bool {
		ext := filepath.Ext(name)
		return ext == ".json" || ext == ".jsonl"
	})
}

// oaiSkipDirs are folders transcript walks never enter.
var oaiSkipDirs = map[string]bool{".git": true, "node_modules": true}

// oaiWalk lists the files under root whose base name matches, sorted,
// without following links or entering oaiSkipDirs. A missing root lists
// nothing; an unreadable folder below root is skipped. A match that is not
// a regular file (a symlink, a FIFO, a socket, a device) is listed too, as
// ccFind lists any .jsonl entry: the sync's open (os.Root, regular files
// only) then refuses a link that leads outside the root or a FIFO with its
// reason and counts the failure, where skipping it here said nothing (ux
// F12: a dotfile manager's symlinked .aider.chat.history.md gave files 0
// and no reason). A link to a file inside the root is read.
func oaiWalk(root string, match func(name string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return fs.SkipDir
		}
		if d.IsDir() {
			if p != root && oaiSkipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if match(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find transcripts %s: %w", root, err)
	}
	sort.Strings(out)
	return out, nil
}

type oaiConversation struct {
	ID        json.RawMessage            `json:"id"`
	CreatedAt json.RawMessage            `json:"created_at"`
	Title     json.RawMessage            `json:"title"`
	Model     json.RawMessage            `json:"model"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
	Messages  []json.RawMessage          `json:"messages"`
}

type oaiMessage struct {
	ID           json.RawMessage `json:"id"`
	Role         string          `json:"role"`
	Name         string          `json:"name"`
	Content      json.RawMessage `json:"content"`
	Refusal      string          `json:"refusal"`
	ToolCalls    []oaiToolCall   `json:"tool_calls"`
	ToolCallID   string          `json:"tool_call_id"`
	FunctionCall *oaiFunction    `json:"function_call"`
	CreatedAt    json.RawMessage `json:"created_at"`
}

type oaiToolCall struct {
	ID       string      `json:"id"`
	Function oaiFunction `json:"function"`
}

type oaiFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON string; some exports write the object
}

// parseOpenAIChat reads one import file (see the format notes above).
func parseOpenAIChat(data []byte, o ParseOptions) ([]cairn.Session, error) {
	doc := bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))
	if len(doc) == 0 {
		return nil, nil
	}
	stem := oaiStem(o.Path)
	if stem == "" {
		stem = "conversation"
	}
	if doc[0] == '[' {
		return oaiParseArray(doc, stem, o)
	}
	if json.Valid(doc) {
		var c oaiConversation
		if err := json.Unmarshal(doc, &c); err != nil || c.Messages == nil {
			return nil, nil // valid JSON, but not a conversation
		}
		s := oaiSession(c, stem, stem, o)
		s.Stats.ConsumedBytes = int64(len(data))
		return []cairn.Session{s}, nil
	}
	return oaiParseJSONL(data, stem, o)
}

// oaiParseArray reads an array of messages (one conversation named after
// the file) or an array of conversation objects.
func oaiParseArray(doc []byte, stem string, o ParseOptions) ([]cairn.Session, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(doc, &items); err != nil {
		return nil, fmt.Errorf("parse openai-chat %s: %w", o.Path, err)
	}
	var conversations, messages int
	for _, it := range items {
		var probe struct {
			Role     *string         `json:"role"`
			Messages json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(it, &probe) != nil {
			continue
		}
		if probe.Messages != nil {
			conversations++
		} else if probe.Role != nil {
			messages++
		}
	}
	switch {
	case messages > 0 && messages >= conversations:
		s := oaiSession(oaiConversation{Messages: items}, stem, stem, o)
		s.Stats.ConsumedBytes = int64(len(doc))
		return []cairn.Session{s}, nil
	case conversations > 0:
		var out []cairn.Session
		for i, it := range items {
			var c oaiConversation
			if json.Unmarshal(it, &c) != nil || c.Messages == nil {
				continue
			}
			out = append(out, oaiSession(c, stem+"#"+strconv.Itoa(i+1), stem, o))
		}
		return out, nil
	}
	return nil, nil
}

// oaiParseJSONL reads one conversation per line. The file-level counters
// (malformed and non-conversation lines, PartialTail, ConsumedBytes) are
// reported on the last session.
func oaiParseJSONL(data []byte, stem string, o ParseOptions) ([]cairn.Session, error) {
	var file cairn.ParseStats
	var out []cairn.Session
	_ = forEachJSONLine(data, &file, func(n int, line []byte) error {
		var c oaiConversation
		if err := json.Unmarshal(line, &c); err != nil {
			file.Skip("malformed json")
			return nil
		}
		if c.Messages == nil {
			file.Skip("not a conversation")
			return nil
		}
		out = append(out, oaiSession(c, stem+"#"+strconv.Itoa(n), stem, o))
		return nil
	})
	if len(out) == 0 {
		if file.Skipped["malformed json"] > 0 {
			return nil, fmt.Errorf("parse openai-chat %s: no conversation in %d lines (%d malformed)",
				o.Path, file.Lines, file.Skipped["malformed json"])
		}
		return nil, nil
	}
	last := &out[len(out)-1].Stats
	for reason, n := range file.Skipped {
		for range n {
			last.Skip(reason)
		}
	}
	last.PartialTail = file.PartialTail
	last.ConsumedBytes = file.ConsumedBytes
	return out, nil
}

// oaiSession converts one conversation. fallbackID names it when it has no
// id; fallbackConv is its conversation when metadata names none.
func oaiSession(c oaiConversation, fallbackID, fallbackConv string, o ParseOptions) cairn.Session {
	s := cairn.Session{
		Source:         cairn.SourceOpenAIChat,
		Provider:       cairn.SourceOpenAIChat,
		ID:             oaiString(c.ID),
		ConversationID: oaiConversationID(c.Metadata),
		Title:          oaiString(c.Title),
	}
	if s.ID == "" {
		s.ID = fallbackID
	}
	if s.ConversationID == "" {
		s.ConversationID = fallbackConv
	}
	if s.Title == "" {
		s.Title = oaiString(c.Metadata["title"])
	}
	if t, raw, ok := oaiTime(c.CreatedAt); ok {
		s.StartedAt, s.StartedAtRaw = t, raw
	}
	s.Stats.Lines = 1
	b := oaiBuilder{s: &s, model: oaiString(c.Model), calls: map[string][2]int{}}
	if b.model == "" {
		b.model = oaiString(c.Metadata["model"])
	}
	for i, raw := range c.Messages {
		b.add(i, raw)
	}
	return s
}

// oaiConversationID picks the conversation from metadata: conversation_id,
// conversationId, thread_id, then user (one conversation per person).
func oaiConversationID(meta map[string]json.RawMessage) string {
	for _, k := range []string{"conversation_id", "conversationId", "thread_id", "user"} {
		if v := oaiString(meta[k]); v != "" {
			return v
		}
	}
	return ""
}

// oaiBuilder appends a conversation's messages to a session, pairing tool
// results with their calls.
type oaiBuilder struct {
	s     *cairn.Session
	model string
	calls map[string][2]int // tool_call_id → (message, tool) index
	fns   [][2]int          // legacy function_call tools, in order
}

func (b *oaiBuilder) add(i int, raw json.RawMessage) {
	st := &b.s.Stats
	var m oaiMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		st.Skip("malformed message")
		return
	}
	id := oaiString(m.ID)
	if id == "" {
		id = b.s.ID + ":" + strconv.Itoa(i)
	}
	switch m.Role {
	case "system", "developer":
		st.Skip("system message")
	case "user":
		msg := b.message(id, cairn.RoleUser, m)
		if msg.Text == "" {
			st.Skip("empty message")
			return
		}
		b.s.Messages = append(b.s.Messages, msg)
	case "assistant":
		b.assistant(id, m)
	case "tool":
		b.result(b.calls[m.ToolCallID], m.ToolCallID != "" && b.hasCall(m.ToolCallID), m)
	case "function":
		at, ok := b.takeFunction(m.Name)
		b.result(at, ok, m)
	default:
		st.Skip("unknown role")
	}
}

func (b *oaiBuilder) message(id, role string, m oaiMessage) cairn.Message {
	msg := cairn.Message{ID: id, Role: role, Kind: cairn.KindText, Speaker: m.Name,
		Text: oaiContentText(m.Content, &b.s.Stats)}
	if t, raw, ok := oaiTime(m.CreatedAt); ok {
		msg.Time, msg.TimeRaw = t, raw
	}
	return msg
}

func (b *oaiBuilder) assistant(id string, m oaiMessage) {
	msg := b.message(id, cairn.RoleAssistant, m)
	msg.Model = b.model
	if msg.Text == "" && m.Refusal != "" {
		msg.Text = m.Refusal
	}
	mi := len(b.s.Messages)
	for _, tc := range m.ToolCalls {
		if tc.ID != "" {
			b.calls[tc.ID] = [2]int{mi, len(msg.Tools)}
		}
		msg.Tools = append(msg.Tools, cairn.ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: oaiArgs(tc.Function.Arguments)})
	}
	if fc := m.FunctionCall; fc != nil {
		b.fns = append(b.fns, [2]int{mi, len(msg.Tools)})
		msg.Tools = append(msg.Tools, cairn.ToolCall{Name: fc.Name, Input: oaiArgs(fc.Arguments)})
	}
	if msg.Text == "" && len(msg.Tools) == 0 {
		b.s.Stats.Skip("empty message")
		return
	}
	b.s.Messages = append(b.s.Messages, msg)
}

func (b *oaiBuilder) hasCall(id string) bool {
	_, ok := b.calls[id]
	return ok
}

// takeFunction finds the oldest unanswered legacy function call named name.
func (b *oaiBuilder) takeFunction(name string) ([2]int, bool) {
	for k, at := range b.fns {
		if b.s.Messages[at[0]].Tools[at[1]].Name == name {
			b.fns = append(b.fns[:k], b.fns[k+1:]...)
			return at, true
		}
	}
	return [2]int{}, false
}

// result stores a tool result's text on the call at at.
func (b *oaiBuilder) result(at [2]int, ok bool, m oaiMessage) {
	if !ok {
		b.s.Stats.Skip("orphan tool result")
		return
	}
	tc := &b.s.Messages[at[0]].Tools[at[1]]
	text := oaiContentText(m.Content, &b.s.Stats)
	if tc.Output != "" && text != "" {
		text = tc.Output + "\n" + text
	}
	tc.Output = text
}

// oaiContentText joins the text parts of a content field (a string, null,
// or a list of parts), dropping images and other non-text parts.
func oaiContentText(raw json.RawMessage, st *cairn.ParseStats) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return strings.TrimSpace(s)
	case '{':
		raw = append(append([]byte{'['}, raw...), ']')
	case '[':
	default:
		return ""
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		st.Skip("malformed content")
		return ""
	}
	var texts []string
	for _, p := range parts {
		if t := oaiPartText(p, st); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}

func oaiPartText(p json.RawMessage, st *cairn.ParseStats) string {
	if s := oaiString(p); s != "" || (len(p) > 0 && p[0] == '"') {
		return strings.TrimSpace(s)
	}
	var part struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if json.Unmarshal(p, &part) != nil {
		st.Skip("malformed content")
		return ""
	}
	switch part.Type {
	case "text", "input_text", "output_text", "":
		return strings.TrimSpace(part.Text)
	case "refusal":
		return strings.TrimSpace(part.Refusal)
	case "image_url", "input_image", "image":
		st.Skip("image part")
	default:
		st.Skip("non-text part")
	}
	return ""
}

// oaiArgs summarizes function arguments: a JSON string holding the
// arguments object (the usual case) or the object itself.
func oaiArgs(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return oaiKeyArgs([]byte(s))
		}
	}
	return oaiKeyArgs(raw)
}

// Key-argument budgets: each string value is cut to oaiArgValueChars, the
// whole summary to oaiArgChars. The projector cuts further for display.
const (
	oaiArgValueChars = 200
	oaiArgChars      = 1000
)

// oaiKeyArgs summarizes tool arguments for a ToolCall's Input: a JSON object
// becomes compact JSON with sorted keys and long values cut (file contents,
// patches); other JSON is compacted; text that is not JSON is kept as text.
// Shared by the gemini and openai-chat readers.
func oaiKeyArgs(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var obj map[string]json.RawMessage
	if raw[0] == '{' && json.Unmarshal(raw, &obj) == nil {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b bytes.Buffer
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(oaiJSONString(k))
			b.WriteByte(':')
			b.Write(oaiArgValue(obj[k]))
		}
		b.WriteByte('}')
		return oaiCut(b.String(), oaiArgChars)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return oaiCut(b.String(), oaiArgChars)
	}
	return oaiCut(strings.ToValidUTF8(string(raw), "\uFFFD"), oaiArgChars)
}

func oaiArgValue(v json.RawMessage) []byte {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return oaiJSONString(oaiCut(s, oaiArgValueChars))
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return []byte("null")
	}
	if utf8.RuneCount(b.Bytes()) > oaiArgValueChars {
		return oaiJSONString(oaiCut(b.String(), oaiArgValueChars))
	}
	return b.Bytes()
}

// oaiJSONString encodes s as a JSON string without HTML escaping.
func oaiJSONString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// oaiCut shortens s to n runes, marking the cut with "…".
func oaiCut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// oaiString returns a JSON string's value, or a number's text; "" for
// anything else.
func oaiString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// oaiTime reads created_at: unix seconds (milliseconds when above 1e11; to
// the microsecond), as
// a number or a numeric string, or an RFC 3339 string. raw is the text as
// written.
func oaiTime(v json.RawMessage) (t time.Time, raw string, ok bool) {
	raw = oaiString(v)
	if raw == "" {
		return time.Time{}, "", false
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil {
		us := math.Round(f * 1e6) // microseconds
		if f > 1e11 {
			us = math.Round(f * 1e3) // the number was milliseconds
		}
		if us <= 0 || us > 1e17 {
			return time.Time{}, raw, false
		}
		return time.UnixMicro(int64(us)).UTC(), raw, true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, raw); err == nil {
			return t.UTC(), raw, true
		}
	}
	return time.Time{}, raw, false
}

// oaiStem is a file's base name without its extension; "" for no path.
func oaiStem(path string) string {
	if path == "" {
		return ""
	}
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
