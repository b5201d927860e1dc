package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// Claude Code transcripts (spec transcript-formats.md §1): one JSONL file per
// session under <config>/projects/<project>/, sub-agents in
// <sessionId>/subagents/agent-<id>.jsonl (older versions: agent-<id>.jsonl
// next to the sessions).

func init() {
	register(SourceReader{ID: cairn.SourceClaudeCode, Find: ccFind, Parse: ccParse})
}

// ccObserverDir marks project directories that another memory tool writes;
// they are not the user's conversations (spec §0).
const ccObserverDir = "claude-mem-observer-sessions"

// ccFind lists the transcripts under root (a Claude Code config directory):
// projects/*/*.jsonl and projects/*/*/subagents/agent-*.jsonl, sorted. A
// missing projects directory is no error.
func ccFind(root string) ([]string, error) {
	projects := filepath.Join(root, "projects")
	dirs, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		if !d.IsDir() || strings.Contains(d.Name(), ccObserverDir) {
			continue
		}
		dir := filepath.Join(projects, d.Name())
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() {
				sub, err := ccFindSubagents(filepath.Join(dir, e.Name(), "subagents"))
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
			} else if strings.HasSuffix(e.Name(), ".jsonl") {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func ccFindSubagents(dir string) ([]string, error) {
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasPrefix(n, "agent-") && strings.HasSuffix(n, ".jsonl") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

// ccRecord is one line of a Claude Code transcript; only the fields Cairn
// reads. Fields whose shape varies stay raw and are decoded leniently.
type ccRecord struct {
	Type                    string          `json:"type"`
	Subtype                 string          `json:"subtype"`
	UUID                    string          `json:"uuid"`
	ParentUUID              string          `json:"parentUuid"`
	LogicalParentUUID       string          `json:"logicalParentUuid"`
	IsSidechain             bool            `json:"isSidechain"`
	AgentID                 string          `json:"agentId"`
	SessionID               string          `json:"sessionId"`
	Timestamp               string          `json:"timestamp"`
	Cwd                     string          `json:"cwd"`
	GitBranch               string          `json:"gitBranch"`
	IsMeta                  bool            `json:"isMeta"`
	IsCompactSummary        bool            `json:"isCompactSummary"`
	IsAPIErrorMessage       bool            `json:"isApiErrorMessage"`
	RequestID               string          `json:"requestId"`
	ToolUseResult           json.RawMessage `json:"toolUseResult"`
	SourceToolAssistantUUID string          `json:"sourceToolAssistantUUID"`
	Message                 json.RawMessage `json:"message"`
	Attachment              json.RawMessage `json:"attachment"`
	Summary                 string          `json:"summary"`
	LeafUUID                string          `json:"leafUuid"`
	AITitle                 string          `json:"aiTitle"`
	CustomTitle             string          `json:"customTitle"`
	AgentName               string          `json:"agentName"`

	line int // 1-based line number in the file
}

// ccKnownTypes are the record types Claude Code writes; any other is counted
// as unknown and skipped.
var ccKnownTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true,
	"ai-title": true, "custom-title": true, "agent-name": true, "last-prompt": true,
	"queue-operation": true, "attachment": true, "file-history-snapshot": true,
	"progress": true, "permission-mode": true, "mode": true, "pr-link": true,
	"worktree-state": true, "agent-setting": true, "tag": true,
}

// ccMeta is the agent-<id>.meta.json file next to a sub-agent transcript.
type ccMeta struct {
	AgentType   string `json:"agentType"`
	ToolUseID   string `json:"toolUseId"`
	Description string `json:"description"`
}

// ccParse reads one Claude Code transcript into one session: the active
// branch (newest leaf back to the root, across compaction boundaries), split
// assistant lines merged, tool results paired with their calls, harness
// lines and thinking dropped.
func ccParse(data []byte, o ParseOptions) ([]cairn.Session, error) {
	s := cairn.Session{Source: cairn.SourceClaudeCode, Provider: cairn.SourceClaudeCode}
	recs := ccReadRecords(data, &s.Stats)
	ccFillMeta(&s, recs, o)
	active := ccActive(recs, &s.Stats)
	b := ccBuilder{
		s:       &s,
		results: ccToolResults(recs),
		byMsgID: map[string]*ccMsg{},
		seen:    map[string]bool{},
	}
	for _, r := range active {
		b.add(r)
	}
	for _, m := range b.msgs {
		m.m.Text = strings.Join(m.parts, "\n")
		if m.m.Text == "" && len(m.m.Tools) == 0 {
			continue
		}
		if s.AgentID != "" {
			m.m.Sidechain = true
		}
		s.Messages = append(s.Messages, m.m)
	}
	ccTitle(&s, recs, active)
	return []cairn.Session{s}, nil
}

// ccReadRecords decodes every line, counting malformed lines and unknown
// record types in stats.
func ccReadRecords(data []byte, stats *cairn.ParseStats) []*ccRecord {
	var recs []*ccRecord
	_ = forEachJSONLine(data, stats, func(n int, line []byte) error {
		r := &ccRecord{line: n}
		if err := json.Unmarshal(line, r); err != nil {
			stats.Skip(ccDecodeReason(err))
			return nil
		}
		if !ccKnownTypes[r.Type] {
			stats.Skip("unknown type: " + ccCut(r.Type, 40))
			return nil
		}
		recs = append(recs, r)
		return nil
	})
	return recs
}

// ccDecodeReason names why a line did not decode: not JSON at all, or JSON
// whose fields have unexpected shapes.
func ccDecodeReason(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return "malformed json"
	}
	return "malformed record"
}

// ccFillMeta sets the session's ids, context and start time from the records
// and, for a sub-agent transcript, from its meta.json sibling.
func ccFillMeta(s *cairn.Session, recs []*ccRecord, o ParseOptions) {
	var sessionID, agentID string
	allSide, anyNode := true, false
	for _, r := range recs {
		if sessionID == "" {
			sessionID = r.SessionID
		}
		if agentID == "" && r.IsSidechain {
			agentID = r.AgentID
		}
		if s.Cwd == "" {
			s.Cwd = r.Cwd
		}
		if s.GitBranch == "" {
			s.GitBranch = r.GitBranch
		}
		if s.StartedAtRaw == "" && r.Timestamp != "" {
			if t, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
				s.StartedAt, s.StartedAtRaw = t.UTC(), r.Timestamp
			}
		}
		if r.UUID != "" {
			anyNode = true
			allSide = allSide && r.IsSidechain
		}
	}
	s.ConversationID = s.Cwd
	stem := strings.TrimSuffix(filepath.Base(o.Path), ".jsonl")
	if o.Path == "" {
		stem = ""
	}
	sub := strings.HasPrefix(stem, "agent-") || (anyNode && allSide && agentID != "")
	if !sub {
		s.ID = sessionID
		if s.ID == "" {
			s.ID = stem
		}
		return
	}
	if agentID == "" {
		agentID = strings.TrimPrefix(stem, "agent-")
	}
	s.AgentID, s.ParentID, s.ID = agentID, sessionID, "agent-"+agentID
	if o.Path == "" {
		return
	}
	raw, err := readSibling(strings.TrimSuffix(o.Path, ".jsonl") + ".meta.json")
	if err != nil {
		return // no meta file: the link to the parent's tool call stays unknown
	}
	var meta ccMeta
	if json.Unmarshal(raw, &meta) != nil {
		s.Stats.Skip("malformed meta.json")
		return
	}
	s.ParentToolID = meta.ToolUseID
	if s.Title == "" {
		s.Title = meta.Description
	}
}

// ccActive returns the records of the active branch in file order: the path
// from the newest leaf back to the root, following logicalParentUuid across
// compaction boundaries so pre-compaction turns stay (once). In a main
// transcript, sidechain lines (/btw side questions, old in-file sub-agents)
// are kept too, marked by their isSidechain flag. Lines without a uuid that
// carry a message (very old files) are kept in place. Repeated uuids are
// dropped and counted.
func ccActive(recs []*ccRecord, stats *cairn.ParseStats) []*ccRecord {
	byUUID := map[string]*ccRecord{}
	var nodes []*ccRecord
	mainOnly := false
	for _, r := range recs {
		if r.UUID == "" {
			continue
		}
		if _, dup := byUUID[r.UUID]; dup {
			stats.Deduplicated++
			continue
		}
		byUUID[r.UUID] = r
		nodes = append(nodes, r)
		mainOnly = mainOnly || !r.IsSidechain
	}
	hasChild := map[string]bool{}
	for _, r := range nodes {
		if mainOnly && r.IsSidechain {
			continue
		}
		hasChild[r.ParentUUID] = true
		hasChild[r.LogicalParentUUID] = true
	}
	onPath := map[*ccRecord]bool{}
	for i := len(nodes) - 1; i >= 0; i-- {
		r := nodes[i]
		if (mainOnly && r.IsSidechain) || hasChild[r.UUID] {
			continue
		}
		for r != nil && !onPath[r] {
			onPath[r] = true
			next := r.ParentUUID
			if next == "" {
				next = r.LogicalParentUUID
			}
			r = byUUID[next]
		}
		break
	}
	var out []*ccRecord
	for _, r := range recs {
		switch {
		case r.UUID == "":
			if r.Type == "user" || r.Type == "assistant" {
				out = append(out, r)
			}
		case byUUID[r.UUID] != r:
			// a repeated uuid, already counted
		case onPath[r] || (mainOnly && r.IsSidechain):
			out = append(out, r)
		}
	}
	return out
}

// ccTitle applies the title precedence: custom-title / agent-name (last
// wins) > last ai-title > summary (the one whose leaf is on the active
// branch, else the last). A sub-agent's meta description is the fallback.
func ccTitle(s *cairn.Session, recs, active []*ccRecord) {
	var custom, ai, summary, leafSummary string
	onPath := map[string]bool{}
	for _, r := range active {
		onPath[r.UUID] = r.UUID != ""
	}
	for _, r := range recs {
		switch r.Type {
		case "custom-title":
			custom = ccFirstNonEmpty(r.CustomTitle, custom)
		case "agent-name":
			custom = ccFirstNonEmpty(r.AgentName, custom)
		case "ai-title":
			ai = ccFirstNonEmpty(r.AITitle, ai)
		case "summary":
			summary = ccFirstNonEmpty(r.Summary, summary)
			if onPath[r.LeafUUID] && r.Summary != "" {
				leafSummary = r.Summary
			}
		}
	}
	if t := ccFirstNonEmpty(custom, ai, leafSummary, summary); t != "" {
		s.Title = t
	}
}

func ccFirstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// ccCut shortens s to at most n bytes on a rune boundary, marking the cut.
func ccCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ccBody is the API message inside a user or assistant line.
type ccBody struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

// ccBlock is one content block; only the fields Cairn reads.
type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ccDecodeBody decodes a line's message; ok is false when it has none or
// it is not an object.
func ccDecodeBody(raw json.RawMessage) (ccBody, bool) {
	var b ccBody
	if len(raw) == 0 || json.Unmarshal(raw, &b) != nil {
		return b, false
	}
	return b, true
}

// ccBlocks decodes content that is a string (one text block) or an array of
// blocks; blocks that do not decode are left out.
func ccBlocks(raw json.RawMessage) []ccBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []ccBlock{{Type: "text", Text: s}}
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	out := make([]ccBlock, 0, len(items))
	for _, it := range items {
		var b ccBlock
		if json.Unmarshal(it, &b) == nil {
			out = append(out, b)
		}
	}
	return out
}

// ccText joins the text blocks with "\n" and trims the result.
func ccText(blocks []ccBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// ccResult is a tool_result's text and error flag.
type ccResult struct {
	output  string
	isError bool
}

// ccToolResults collects every tool_result in the file by tool_use_id; the
// first one of an id wins.
func ccToolResults(recs []*ccRecord) map[string]ccResult {
	out := map[string]ccResult{}
	for _, r := range recs {
		if r.Type != "user" {
			continue
		}
		body, ok := ccDecodeBody(r.Message)
		if !ok {
			continue
		}
		for _, b := range ccBlocks(body.Content) {
			if b.Type != "tool_result" || b.ToolUseID == "" {
				continue
			}
			if _, dup := out[b.ToolUseID]; !dup {
				out[b.ToolUseID] = ccResult{output: ccText(ccBlocks(b.Content)), isError: b.IsError}
			}
		}
	}
	return out
}

// ccHarnessPrefixes start user text that the harness wrote, not a person
// (spec §1.4).
var ccHarnessPrefixes = []string{
	"<command-name>", "<local-command-stdout>", "<system-reminder>", "<task-notification>", "Caveat:",
}

// ccIsHumanText reports whether user text passes the text rules of a human
// prompt (spec §1.4).
func ccIsHumanText(text string) bool {
	for _, p := range ccHarnessPrefixes {
		if strings.HasPrefix(text, p) {
			return false
		}
	}
	return text != "[Request interrupted by user]"
}

// ccIsToolResult reports whether a user line answers a tool call.
func ccIsToolResult(r *ccRecord, blocks []ccBlock) bool {
	if r.SourceToolAssistantUUID != "" {
		return true
	}
	if tr := strings.TrimSpace(string(r.ToolUseResult)); tr != "" && tr != "null" {
		return true
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

// ccMsg is a message being built: text parts accumulate across the split
// lines of one assistant response.
type ccMsg struct {
	m     cairn.Message
	parts []string
	reqID string
}

type ccBuilder struct {
	s       *cairn.Session
	results map[string]ccResult
	byMsgID map[string]*ccMsg // assistant message.id → its message
	seen    map[string]bool   // message.id + content of assistant lines merged
	msgs    []*ccMsg
}

func (b *ccBuilder) add(r *ccRecord) {
	switch r.Type {
	case "user":
		b.addUser(r)
	case "assistant":
		b.addAssistant(r)
	case "attachment":
		b.addAttachment(r)
	}
}

func (b *ccBuilder) newMsg(r *ccRecord, role, kind string) *ccMsg {
	m := &ccMsg{m: cairn.Message{ID: r.UUID, Role: role, Kind: kind, TimeRaw: r.Timestamp, Sidechain: r.IsSidechain}}
	if m.m.ID == "" {
		m.m.ID = "line-" + strconv.Itoa(r.line)
	}
	if t, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
		m.m.Time = t.UTC()
	}
	b.msgs = append(b.msgs, m)
	return m
}

// addUser adds a human prompt or a compact summary; tool results were
// paired already and harness lines are counted as skipped.
func (b *ccBuilder) addUser(r *ccRecord) {
	body, ok := ccDecodeBody(r.Message)
	if !ok {
		b.s.Stats.Skip("malformed record")
		return
	}
	blocks := ccBlocks(body.Content)
	text := ccText(blocks)
	switch {
	case ccIsToolResult(r, blocks) || text == "":
		return
	case r.IsCompactSummary:
		b.newMsg(r, cairn.RoleUser, cairn.KindSummary).parts = []string{text}
	case r.IsMeta || !ccIsHumanText(text):
		b.s.Stats.Skip("harness text")
	default:
		b.newMsg(r, cairn.RoleUser, cairn.KindText).parts = []string{text}
	}
}

// addAssistant merges the lines of one API response (same message.id) into
// one message. A line repeating a merged line, or replaying the message
// under another requestId (/btw side questions), is dropped and counted.
func (b *ccBuilder) addAssistant(r *ccRecord) {
	if r.IsAPIErrorMessage {
		b.s.Stats.Skip("api error message")
		return
	}
	body, ok := ccDecodeBody(r.Message)
	if !ok {
		b.s.Stats.Skip("malformed record")
		return
	}
	var m *ccMsg
	if body.ID != "" {
		key := body.ID + "\x00" + string(body.Content)
		m = b.byMsgID[body.ID]
		if b.seen[key] || (m != nil && m.reqID != "" && r.RequestID != "" && m.reqID != r.RequestID) {
			b.s.Stats.Deduplicated++
			return
		}
		b.seen[key] = true
	}
	if m == nil {
		m = b.newMsg(r, cairn.RoleAssistant, cairn.KindText)
		m.m.Model, m.reqID = body.Model, r.RequestID
		if body.ID != "" {
			b.byMsgID[body.ID] = m
		}
	}
	for _, bl := range ccBlocks(body.Content) {
		switch bl.Type {
		case "text":
			if t := strings.TrimSpace(bl.Text); t != "" {
				m.parts = append(m.parts, t)
			}
		case "tool_use":
			tc := cairn.ToolCall{ID: bl.ID, Name: bl.Name, Input: ccToolInput(bl.Name, bl.Input)}
			if res, ok := b.results[bl.ID]; ok {
				tc.Output, tc.IsError = res.output, res.isError
			}
			m.m.Tools = append(m.m.Tools, tc)
		}
		// thinking, redacted_thinking, images and other API blocks are omitted
	}
}

// ccAttachment is an attachment line's payload; a queued_command carries a
// prompt typed while the agent was busy.
type ccAttachment struct {
	Type   string          `json:"type"`
	Prompt json.RawMessage `json:"prompt"`
}

func (b *ccBuilder) addAttachment(r *ccRecord) {
	var a ccAttachment
	if json.Unmarshal(r.Attachment, &a) != nil || a.Type != "queued_command" {
		return
	}
	text := ccText(ccBlocks(a.Prompt))
	if text == "" {
		return
	}
	if !ccIsHumanText(text) {
		b.s.Stats.Skip("harness text")
		return
	}
	b.newMsg(r, cairn.RoleUser, cairn.KindText).parts = []string{text}
}

// Tool-call summaries: the key arguments of well-known tools, long strings
// cut, the whole summary bounded.
const (
	ccMaxArg   = 200  // bytes kept of one string argument
	ccMaxInput = 1000 // bytes kept of a tool call's input summary
)

// ccKeyArgs names the key arguments of Claude Code's built-in tools; other
// tools keep all their arguments.
var ccKeyArgs = map[string][]string{
	"Bash": {"command"}, "BashOutput": {"bash_id"}, "KillShell": {"shell_id"},
	"Read": {"file_path"}, "Write": {"file_path"}, "Edit": {"file_path"}, "MultiEdit": {"file_path"},
	"NotebookEdit": {"notebook_path"}, "NotebookRead": {"notebook_path"}, "LS": {"path"},
	"Grep": {"pattern", "path", "glob"}, "Glob": {"pattern", "path"},
	"Task": {"description", "subagent_type"}, "Agent": {"description", "subagent_type"},
	"WebFetch": {"url"}, "WebSearch": {"query"}, "Skill": {"skill"}, "SlashCommand": {"command"},
}

func ccToolInput(name string, raw json.RawMessage) string {
	return ccSummarizeArgs(raw, ccKeyArgs[name])
}

// ccSummarizeArgs renders tool arguments as compact JSON: the named keys
// when any is present, else every key, each string cut to ccMaxArg bytes and
// the whole to ccMaxInput. Arguments that are not an object are returned as
// (cut) text. Codex shares it.
func ccSummarizeArgs(raw []byte, keys []string) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return ccCut(strings.TrimSpace(s), ccMaxInput)
		}
		return ccCut(string(raw), ccMaxInput)
	}
	picked := map[string]any{}
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			picked[k] = v
		}
	}
	if len(picked) == 0 {
		picked = obj
	}
	if len(picked) == 0 {
		return ""
	}
	for k, v := range picked {
		picked[k] = ccCutValue(v)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(picked) != nil {
		return ""
	}
	return ccCut(strings.TrimSpace(buf.String()), ccMaxInput)
}

// ccCutValue cuts every string inside a decoded JSON value to ccMaxArg.
func ccCutValue(v any) any {
	switch v := v.(type) {
	case string:
		return ccCut(v, ccMaxArg)
	case []any:
		for i := range v {
			v[i] = ccCutValue(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = ccCutValue(v[k])
		}
	}
	return v
}
