package ingest

// OpenClaw transcripts (spec transcript-formats §3). This file reads the
// JSONL era (≤ 2026.7.1: agents/<id>/sessions/<sessionId>.jsonl plus the
// sessions.json index) and holds the event decoding shared with the SQLite
// era, which package ingest/openclawdb reads (it needs cgo; ingest does not).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
)

func init() {
	register(SourceReader{ID: cairn.SourceOpenClaw, Find: FindOpenClaw, Parse: ParseOpenClaw})
}

// OpenClaw store layout under the state directory (~/.openclaw).
const (
	OpenClawDBName = "openclaw-agent.sqlite" // agents/<id>/agent/<OpenClawDBName>, SQLite era
	ocIndexName    = "sessions.json"
)

// OpenClawEvent is one stored transcript event: a JSONL line or a
// transcript_events row, its JSON already decompressed.
type OpenClawEvent struct {
	Seq       int64     // line number (JSONL) or transcript_events.seq
	JSON      []byte    // the event object
	CreatedAt time.Time // row created_at; zero in the JSONL era
}

// OpenClawEventError is an error in one event that makes its whole
// transcript unusable: a session header of an unsupported version (older
// files need `openclaw doctor --fix`). The engine marks the session failed
// and keeps its previous projection. A malformed event (JSON that is not an
// event, a field of the wrong type, a content block type outside the known
// set) is not such an error: like every other source, the event is skipped
// and counted ("malformed event") and the rest of the transcript is read
// (issue 13 item 7; spec §3.4 made it fatal).
type OpenClawEventError struct {
	Seq     int64
	EventID string // empty when the event did not parse
	Err     error
}

func (e *OpenClawEventError) Error() string {
	if e.EventID != "" {
		return fmt.Sprintf("read openclaw event %d (id %s): %v", e.Seq, e.EventID, e.Err)
	}
	return fmt.Sprintf("read openclaw event %d: %v", e.Seq, e.Err)
}

func (e *OpenClawEventError) Unwrap() error { return e.Err }

// FindOpenClaw lists the JSONL-era transcripts under an OpenClaw state
// directory, sorted: root/agents/*/sessions/*.jsonl, plus the archives
// <id>.jsonl.deleted.<ms> and <id>.jsonl.reset.<ISO> whose live file is gone.
// Archives are read because OpenClaw moves history into them (resets, disk
// budget) and a session that vanished would lose its projection. SQLite-era
// stores are listed by OpenClawDBPaths. A missing directory is not an error.
func FindOpenClaw(root string) ([]string, error) {
	var out []string
	err := ocEachAgent(root, func(agentDir string) error {
		dir := filepath.Join(agentDir, "sessions")
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list openclaw sessions: %w", err)
		}
		live := map[string]bool{}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".jsonl") {
				live[e.Name()] = true
			}
		}
		for _, e := range entries {
			name := e.Name()
			if !e.Type().IsRegular() || strings.HasPrefix(name, ".") {
				continue
			}
			stem, archive := ocArchiveStem(name)
			if live[name] || archive && !live[stem+".jsonl"] {
				out = append(out, filepath.Join(dir, name))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// OpenClawDBPaths lists the SQLite-era agent stores under an OpenClaw state
// directory, sorted: root/agents/*/agent/openclaw-agent.sqlite.
func OpenClawDBPaths(root string) ([]string, error) {
	var out []string
	err := ocEachAgent(root, func(agentDir string) error {
		p := filepath.Join(agentDir, "agent", OpenClawDBName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func ocEachAgent(root string, fn func(agentDir string) error) error {
	agents := filepath.Join(root, "agents")
	entries, err := os.ReadDir(agents)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list openclaw agents: %w", err)
	}
	for _, e := range entries {
		dir := filepath.Join(agents, e.Name())
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if err := fn(dir); err != nil {
			return err
		}
	}
	return nil
}

// ocArchiveStem returns the session file stem of name ("<id>" for
// "<id>.jsonl" and its archives) and whether name is an archive.
func ocArchiveStem(name string) (string, bool) {
	for _, kind := range []string{".jsonl.deleted.", ".jsonl.reset."} {
		if i := strings.Index(name, kind); i > 0 {
			return name[:i], true
		}
	}
	return strings.TrimSuffix(name, ".jsonl"), false
}

// ParseOpenClaw reads one JSONL-era transcript: one session. Lines that are
// not JSON, or JSON that is not a valid event (an unknown content block in a
// user/assistant message included), are counted and skipped (a half-written
// last line is left for the next read); only an unsupported session header
// fails the file, with an *OpenClawEventError. Metadata comes from the
// sibling sessions.json entry when there is one (§3.6).
func ParseOpenClaw(data []byte, o ParseOptions) ([]cairn.Session, error) {
	var stats cairn.ParseStats
	var events []OpenClawEvent
	err := forEachJSONLine(data, &stats, func(n int, line []byte) error {
		if !json.Valid(line) {
			stats.Skip("malformed JSON")
			return nil
		}
		events = append(events, OpenClawEvent{Seq: int64(n), JSON: line})
		return nil
	})
	if err != nil || len(events) == 0 {
		return nil, err
	}
	stem, _ := ocArchiveStem(filepath.Base(o.Path))
	base := cairn.Session{Source: cairn.SourceOpenClaw, AgentID: ocAgentFromPath(o.Path), Stats: stats}
	s, err := OpenClawSession(base, events, nil)
	if err != nil {
		return nil, fmt.Errorf("parse openclaw %s: %w", o.Path, err)
	}
	if s.ID == "" || s.ID != stem && strings.HasPrefix(stem, s.ID+"-topic-") {
		s.ID = stem // no header; or a thread file, which shares its session's header id
	}
	ocApplyIndex(&s, o.Path, stem)
	return []cairn.Session{s}, nil
}

// ocAgentFromPath returns <agentId> of .../agents/<agentId>/<dir>/<file>.
func ocAgentFromPath(p string) string {
	agentDir := filepath.Dir(filepath.Dir(p))
	if filepath.Base(filepath.Dir(agentDir)) != "agents" {
		return ""
	}
	return filepath.Base(agentDir)
}

// OpenClawSession projects one transcript's events (in stored order) onto
// s, which carries what the caller knows (source, id, agent, channel
// metadata, stats so far). The header event (type "session", version 3 or 4)
// fills ID (when empty), Cwd, ParentID and StartedAt (when zero); a missing
// header is tolerated, leaving them as they were. active lists the Seqs of the active
// branch in order (the SQLite era's materialized session_transcript_active_events);
// when empty the branch is walked through parentId from the newest leaf.
// Errors are *OpenClawEventError.
func OpenClawSession(s cairn.Session, events []OpenClawEvent, active []int64) (cairn.Session, error) {
	if s.Source == "" {
		s.Source = cairn.SourceOpenClaw
	}
	b := ocBuilder{s: &s, byID: map[string]int{}}
	for _, ev := range events {
		if err := b.add(ev); err != nil {
			return cairn.Session{}, err
		}
	}
	branch := b.activeBranch(active)
	b.project(branch)
	return s, nil
}

// ocNode is one tree event (every event but the header).
type ocNode struct {
	ev     OpenClawEvent
	bad    bool // malformed body: kept only to link the tree, counted once
	typ    string
	id     string
	parent string // "" for a root
	ts     string
	msg    *ocMsg    // message events
	text   string    // compaction and branch_summary summaries
	sender ocSenders // event-level __openclaw
}

type ocBuilder struct {
	s      *cairn.Session
	nodes  []ocNode
	byID   map[string]int
	header bool
}

// ocEnvelope holds the fields every event has; type mismatches in them make
// the event unparseable.
type ocEnvelope struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp string          `json:"timestamp"`
	OpenClaw  json.RawMessage `json:"__openclaw"`
}

type ocHeader struct {
	Version       *int   `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession"`
}

func (b *ocBuilder) add(ev OpenClawEvent) error {
	fail := func(id string, err error) error { return &OpenClawEventError{Seq: ev.Seq, EventID: id, Err: err} }
	data := trimJSONSpace(ev.JSON)
	var env ocEnvelope
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &env) != nil {
		b.s.Stats.Skip(ocMalformed) // not an event at all: nothing links to it
		return nil
	}
	if env.Type == "session" {
		return b.addHeader(ev, data, fail)
	}
	if env.ID == "" {
		b.s.Stats.Skip("missing id")
		return nil
	}
	if _, dup := b.byID[env.ID]; dup {
		b.s.Stats.Deduplicated++
		return nil
	}
	n := ocNode{ev: ev, typ: env.Type, id: env.ID, ts: env.Timestamp, sender: ocDecodeSenders(env.OpenClaw)}
	if env.ParentID != nil {
		n.parent = *env.ParentID
	}
	if n.decodeBody(data) != nil {
		// the event stays in the tree without its body, so that the
		// messages after it still reach the root of the branch
		n.bad, n.msg, n.text = true, nil, ""
		b.s.Stats.Skip(ocMalformed)
	}
	if env.Type == "session_info" {
		var info struct {
			Name ocLoose `json:"name"`
		}
		if json.Unmarshal(data, &info) == nil && info.Name != "" {
			b.s.Title = string(info.Name)
		}
	}
	b.byID[env.ID] = len(b.nodes)
	b.nodes = append(b.nodes, n)
	return nil
}

func (b *ocBuilder) addHeader(ev OpenClawEvent, data []byte, fail func(string, error) error) error {
	if b.header {
		b.s.Stats.Skip("extra header")
		return nil
	}
	var h ocHeader
	if json.Unmarshal(data, &h) != nil {
		b.s.Stats.Skip("malformed header")
		return nil
	}
	if h.Version == nil || *h.Version < 3 || *h.Version > 4 {
		v := "none"
		if h.Version != nil {
			v = strconv.Itoa(*h.Version)
		}
		return fail(h.ID, fmt.Errorf("unsupported session version %s (Cairn reads 3 and 4; older files need `openclaw doctor --fix`)", v))
	}
	b.header = true
	if b.s.ID == "" {
		b.s.ID = h.ID
	}
	b.s.Cwd = h.Cwd
	if h.ParentSession != "" {
		stem, _ := ocArchiveStem(filepath.Base(h.ParentSession))
		b.s.ParentID = stem
	}
	if t, err := time.Parse(time.RFC3339Nano, h.Timestamp); err == nil && b.s.StartedAt.IsZero() {
		b.s.StartedAt, b.s.StartedAtRaw = t.UTC(), h.Timestamp
	}
	return nil
}

// decodeBody decodes what the projection reads of the node's type.
func (n *ocNode) decodeBody(data []byte) error {
	switch n.typ {
	case "message":
		var body struct {
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(data, &body); err != nil {
			return fmt.Errorf("decode message: %w", err)
		}
		m, err := ocDecodeMsg(body.Message)
		n.msg = m
		return err
	case "compaction", "branch_summary":
		var body struct {
			Summary *string `json:"summary"`
		}
		if err := json.Unmarshal(data, &body); err != nil {
			return fmt.Errorf("decode %s: %w", n.typ, err)
		}
		if body.Summary != nil {
			n.text = *body.Summary
		}
	}
	return nil
}

// activeBranch returns the node indexes of the active branch, root first.
func (b *ocBuilder) activeBranch(active []int64) []int {
	var branch []int
	if len(active) > 0 {
		bySeq := make(map[int64]int, len(b.nodes))
		for i, n := range b.nodes {
			bySeq[n.ev.Seq] = i
		}
		for _, seq := range active {
			if i, ok := bySeq[seq]; ok {
				branch = append(branch, i)
			}
		}
	} else if len(b.nodes) > 0 {
		seen := map[int]bool{}
		for i, ok := len(b.nodes)-1, true; ok && !seen[i]; i, ok = b.byID[b.nodes[i].parent] {
			seen[i] = true
			branch = append(branch, i)
		}
		for l, r := 0, len(branch)-1; l < r; l, r = l+1, r-1 {
			branch[l], branch[r] = branch[r], branch[l]
		}
	}
	if off := len(b.nodes) - len(branch); off > 0 {
		for range off {
			b.s.Stats.Skip("inactive branch")
		}
	}
	return branch
}

// ocMalformed counts skipped events that are not valid events.
const ocMalformed = "malformed event"

// ocSkippedTypes are event types that never project (§3.4).
var ocSkippedTypes = map[string]bool{
	"reset": true, "model_change": true, "thinking_level_change": true, "custom": true,
	"custom_message": true, "label": true, "session_info": true, "leaf": true,
}

func (b *ocBuilder) project(branch []int) {
	results := map[string]*ocMsg{}
	for _, i := range branch {
		if m := b.nodes[i].msg; m != nil && m.role == "toolResult" && m.toolCallID != "" {
			if _, ok := results[m.toolCallID]; !ok {
				results[m.toolCallID] = m
			}
		}
	}
	paired := map[string]bool{}
	for _, i := range branch {
		n := &b.nodes[i]
		switch {
		case n.bad:
			// counted when read
		case n.typ == "message" && n.msg == nil:
			b.s.Stats.Skip("message without body")
		case n.typ == "message":
			b.projectMessage(n, results, paired)
		case n.typ == "compaction" || n.typ == "branch_summary":
			if strings.TrimSpace(n.text) == "" {
				b.s.Stats.Skip("empty summary")
				continue
			}
			m := b.message(n, cairn.RoleAssistant, n.text, "")
			m.Kind = cairn.KindSummary
			b.s.Messages = append(b.s.Messages, m)
		case ocSkippedTypes[n.typ]:
			b.s.Stats.Skip("event " + n.typ)
		default:
			b.s.Stats.Skip("unknown event type")
		}
	}
	for id := range results {
		if !paired[id] {
			b.s.Stats.Skip("orphan tool result")
		}
	}
}

func (b *ocBuilder) projectMessage(n *ocNode, results map[string]*ocMsg, paired map[string]bool) {
	m := n.msg
	switch m.role {
	case "toolResult":
		return // read through its tool call
	case "user", "assistant":
	default:
		b.s.Stats.Skip("message role " + m.role)
		return
	}
	var tools []cairn.ToolCall
	for _, blk := range m.blocks {
		if blk.typ != "toolCall" {
			continue
		}
		tc := cairn.ToolCall{ID: blk.id, Name: blk.name, Input: blk.input}
		if r := results[blk.id]; r != nil && blk.id != "" {
			tc.Output, tc.IsError = r.text(), r.isError
			paired[blk.id] = true
		}
		tools = append(tools, tc)
	}
	text, speaker, kind := m.text(), "", cairn.KindText
	if m.role == cairn.RoleUser {
		if t, ok := CleanInternalTask(text, m.provenance, &b.s.Stats.Envelopes); ok {
			text, kind = t, cairn.KindSummary // a child agent's result: never the person's words
		} else {
			text, speaker = ocUserText(text, m, n.sender)
			text = CleanAttachments(text, &b.s.Stats.Envelopes)
		}
	}
	if reason := ocDropReason(m.role, text); reason != "" {
		b.s.Stats.Skip(reason)
		return
	}
	if strings.TrimSpace(text) == "" {
		b.s.Stats.Skip("no text")
		return
	}
	msg := b.message(n, m.role, text, string(m.timestamp))
	msg.Speaker, msg.Tools, msg.Model, msg.Kind = speaker, tools, m.model, kind
	b.s.Messages = append(b.s.Messages, msg)
}

// message builds a text message of node n, timed by the first of its event
// timestamp, its row's creation time and msMillis (the message's epoch-ms
// timestamp). Spec C8 ends that list with the session start; Cairn leaves
// a message without any of them untimed instead (issue 14 item 11: missing
// timestamps are omitted, never replaced).
func (b *ocBuilder) message(n *ocNode, role, text, msMillis string) cairn.Message {
	msg := cairn.Message{ID: n.id, Role: role, Kind: cairn.KindText, Text: text}
	ms, msErr := strconv.ParseInt(msMillis, 10, 64)
	if t, err := time.Parse(time.RFC3339Nano, n.ts); err == nil {
		msg.Time, msg.TimeRaw = t.UTC(), n.ts
	} else if !n.ev.CreatedAt.IsZero() {
		msg.Time = n.ev.CreatedAt.UTC()
		msg.TimeRaw = strconv.FormatInt(n.ev.CreatedAt.UnixMilli(), 10)
	} else if msErr == nil && ms > 0 {
		msg.Time, msg.TimeRaw = time.UnixMilli(ms).UTC(), msMillis
	} // else no time: missing timestamps are omitted, never replaced
	return msg
}

// ocDropReason names why a message is harness noise (§3.5), or "".
func ocDropReason(role, text string) string {
	t := strings.TrimSpace(text)
	switch {
	case t == "HEARTBEAT_OK":
		return "heartbeat"
	case role == cairn.RoleAssistant && t == "NO_REPLY":
		return "no reply"
	case role != cairn.RoleUser:
		return ""
	case strings.HasPrefix(t, "[OpenClaw heartbeat poll]"):
		return "heartbeat poll"
	case strings.HasPrefix(t, "[Queued messages while agent was busy]"):
		return "queued messages"
	case strings.HasPrefix(t, "[Subagent Context]"):
		return "subagent context"
	case strings.HasPrefix(t, "<relevant-memories>"):
		return "relevant memories"
	}
	return ""
}

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}

// ocMsg is the decoded message of a message event.
type ocMsg struct {
	role       string
	blocks     []ocBlock
	model      string
	timestamp  ocLoose // epoch ms
	toolCallID string
	isError    bool
	oc         ocSenders // __openclaw sender fields
	own        ocSenders // sender fields on the message itself
	provenance Provenance
}

type ocBlock struct{ typ, text, id, name, input string }

// text joins the message's text blocks with "\n"; thinking, images and
// tool calls are left out.
func (m *ocMsg) text() string {
	var parts []string
	for _, b := range m.blocks {
		if b.typ == "text" {
			parts = append(parts, b.text)
		}
	}
	return strings.Join(parts, "\n")
}

// ocLoose is a scalar read leniently: a string, or a number's text; any
// other JSON value reads as "".
type ocLoose string

func (l *ocLoose) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = ocLoose(s)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*l = ocLoose(b)
	}
	return nil
}

// ocSenders are the sender fields of one place (an __openclaw object, a
// message, a channel envelope).
type ocSenders struct {
	Name     ocLoose `json:"senderName"`
	Username ocLoose `json:"senderUsername"`
	ID       ocLoose `json:"senderId"`
	Label    ocLoose `json:"senderLabel"`
}

func ocDecodeSenders(raw json.RawMessage) ocSenders {
	var s ocSenders
	if len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, &s) // lenient: a malformed sender names no one
	}
	return s
}

func (s ocSenders) or(o ocSenders) ocSenders {
	if s.Name == "" {
		s.Name = o.Name
	}
	if s.Username == "" {
		s.Username = o.Username
	}
	if s.ID == "" {
		s.ID = o.ID
	}
	if s.Label == "" {
		s.Label = o.Label
	}
	return s
}

// ocDecodeMsg decodes message.message. user and assistant messages must
// hold only known content blocks; other roles are kept opaque.
func ocDecodeMsg(raw json.RawMessage) (*ocMsg, error) {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, errors.New("message is not an object")
	}
	var body struct {
		Role string `json:"role"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	m := &ocMsg{role: body.Role}
	if m.role != "user" && m.role != "assistant" && m.role != "toolResult" {
		return m, nil
	}
	var full struct {
		Content    json.RawMessage `json:"content"`
		Model      ocLoose         `json:"model"`
		Timestamp  ocLoose         `json:"timestamp"`
		ToolCallID ocLoose         `json:"toolCallId"`
		IsError    json.RawMessage `json:"isError"`
		OpenClaw   json.RawMessage `json:"__openclaw"`
		Provenance json.RawMessage `json:"provenance"`
		ocSenders
	}
	if err := json.Unmarshal(raw, &full); err != nil {
		return nil, fmt.Errorf("decode %s message: %w", m.role, err)
	}
	blocks, err := ocDecodeBlocks(full.Content, m.role != "toolResult")
	if err != nil {
		return nil, fmt.Errorf("decode %s message: %w", m.role, err)
	}
	m.blocks, m.model, m.timestamp = blocks, string(full.Model), full.Timestamp
	m.toolCallID, m.isError = string(full.ToolCallID), string(trimJSONSpace(full.IsError)) == "true"
	m.oc, m.own = ocDecodeSenders(full.OpenClaw), full.ocSenders
	if p := trimJSONSpace(full.Provenance); len(p) > 0 && p[0] == '{' {
		if json.Unmarshal(p, &m.provenance) != nil {
			m.provenance = Provenance{} // a malformed provenance trusts nothing
		}
	}
	return m, nil
}

// ocDecodeBlocks decodes message content: a string (legacy, one text block)
// or an array of blocks. strict (user and assistant) fails on a block that
// is not an object or whose type is outside the known set (§3.4).
func ocDecodeBlocks(raw json.RawMessage, strict bool) ([]ocBlock, error) {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return []ocBlock{{typ: "text", text: s}}, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		if !strict {
			return nil, nil
		}
		return nil, errors.New("content is neither a string nor an array")
	}
	blocks := make([]ocBlock, 0, len(items))
	for _, it := range items {
		b, err := ocDecodeBlock(it)
		if err != nil && strict {
			return nil, err
		}
		if err == nil {
			blocks = append(blocks, b)
		}
	}
	return blocks, nil
}

func ocDecodeBlock(raw json.RawMessage) (ocBlock, error) {
	var v struct {
		Type      string          `json:"type"`
		Text      json.RawMessage `json:"text"`
		ID        ocLoose         `json:"id"`
		Name      ocLoose         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if raw = trimJSONSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return ocBlock{}, errors.New("content block is not an object")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return ocBlock{}, fmt.Errorf("decode content block: %w", err)
	}
	b := ocBlock{typ: v.Type}
	switch v.Type {
	case "text":
		if len(v.Text) > 0 && string(v.Text) != "null" {
			if err := json.Unmarshal(v.Text, &b.text); err != nil {
				return ocBlock{}, errors.New("text block: text is not a string")
			}
		}
	case "toolCall":
		b.id, b.name, b.input = string(v.ID), string(v.Name), ocArgs(v.Arguments)
	case "thinking", "image", "toolResult":
	default:
		return ocBlock{}, fmt.Errorf("unknown content block type %q", v.Type)
	}
	return b, nil
}

// ocArgs renders tool arguments as compact JSON, or a string argument's text.
func ocArgs(raw json.RawMessage) string {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// Channel envelopes (§3.5): inbound channel messages start with context
// blocks, each a label line ending in ocCtxMarker (older builds: a label
// such as "Sender (untrusted metadata):") and a fenced json block.
const ocCtxMarker = "⟦openclaw:ctx⟧"

// ocTimePrefix matches a leading "[Mon 2026-05-04 09:46 UTC] ".
var ocTimePrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?(?: [^\]\n]{1,40})? ?\] `)
})
