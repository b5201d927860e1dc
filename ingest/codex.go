package ingest

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

// Codex CLI rollouts (spec transcript-formats.md §2): one JSONL file per
// session under $CODEX_HOME/sessions/YYYY/MM/DD/ (maybe zstd-compressed),
// archived ones flat under archived_sessions/. Two line shapes: the bare era
// (line 1 {id, timestamp, instructions, git}, then bare response items and
// {"record_type":"state"} markers) and the wrapped era ({timestamp, type,
// payload} per line).

func init() {
	register(SourceReader{ID: cairn.SourceCodex, Find: codexFind, Parse: codexParse})
}

// codexFind lists the rollouts under root (a Codex home directory):
// sessions/**/rollout-*.jsonl[.zst] and archived_sessions/rollout-*, sorted.
// Of rollouts with the same file name it keeps one: sessions/ before
// archived_sessions/, then plain .jsonl before .jsonl.zst.
func codexFind(root string) ([]string, error) {
	type cand struct {
		path string
		rank int
	}
	best := map[string]cand{}
	add := func(path string, archived bool) {
		name := filepath.Base(path)
		rank := 0
		if archived {
			rank += 2
		}
		if strings.HasSuffix(name, ".zst") {
			rank++
		}
		key := strings.TrimSuffix(name, ".zst")
		if c, ok := best[key]; !ok || rank < c.rank {
			best[key] = cand{path, rank}
		}
	}
	sessions := filepath.Join(root, "sessions")
	err := filepath.WalkDir(sessions, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == sessions && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if !d.IsDir() && codexIsRollout(d.Name()) {
			add(path, false)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	archived := filepath.Join(root, "archived_sessions")
	entries, err := os.ReadDir(archived)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() && codexIsRollout(e.Name()) {
			add(filepath.Join(archived, e.Name()), true)
		}
	}
	out := make([]string, 0, len(best))
	for _, c := range best {
		out = append(out, c.path)
	}
	sort.Strings(out)
	return out, nil
}

func codexIsRollout(name string) bool {
	return strings.HasPrefix(name, "rollout-") &&
		(strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst"))
}

// codexZstdMagic starts every zstd frame.
var codexZstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// codexDecompress expands a zstd rollout given whole (the engine streams
// files through ReadTranscript itself) under the same bounds: at most
// MaxDecodedBytes decoded, strings cut, MaxTranscriptBytes kept. A stream cut
// short (a file still being written) yields what was decoded; its
// half-written last line is then left by forEachJSONLine like any other.
func codexDecompress(data []byte, path string) ([]byte, error) {
	if !strings.HasSuffix(path, ".zst") {
		path = "rollout.jsonl.zst"
	}
	bd, err := ReadTranscript(bytes.NewReader(data), path)
	return bd.Data, err
}

// codexEnvelope is a rollout line as first decoded: a wrapped record, a
// bare-era item, the bare-era header or a state marker.
type codexEnvelope struct {
	Timestamp  string          `json:"timestamp"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	RecordType string          `json:"record_type"`
	ID         json.RawMessage `json:"id"`
}

// codexPayload holds the fields Cairn reads from every payload kind
// (session_meta, turn_context, response items, events, compacted). Fields
// whose shape varies stay raw.
type codexPayload struct {
	Type           string          `json:"type"`
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Cwd            string          `json:"cwd"`
	Source         json.RawMessage `json:"source"`
	ForkedFromID   string          `json:"forked_from_id"`
	ParentThreadID string          `json:"parent_thread_id"`
	AgentNickname  string          `json:"agent_nickname"`
	Git            json.RawMessage `json:"git"`
	Model          string          `json:"model"`
	Role           string          `json:"role"`
	Content        json.RawMessage `json:"content"`
	Phase          string          `json:"phase"`
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments"`
	Input          json.RawMessage `json:"input"`
	CallID         string          `json:"call_id"`
	Output         json.RawMessage `json:"output"`
	Action         json.RawMessage `json:"action"`
	Message        json.RawMessage `json:"message"`
	Kind           string          `json:"kind"`
	Item           json.RawMessage `json:"item"`
}

// codexEntry is one decoded record: kind is the wrapped type (session_meta,
// response_item, event_msg, turn_context, compacted); bare-era lines get
// the kind they would have had.
type codexEntry struct {
	n    int
	ts   string
	kind string
	p    codexPayload
}

// codexWrapped are the wrapped-era record types; the last three (0.14x)
// are not conversation and are passed over.
var codexWrapped = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true,
	"world_state": false, "inter_agent_communication": false, "inter_agent_communication_metadata": false,
}

// codexItemTypes are the response item types; a bare-era line of one of
// them is a response item.
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true, "image_generation_call": true, "tool_search_call": true,
	"tool_search_call_output": true, "compaction": true, "context_compaction": true,
}

// codexParse reads one rollout into one session. data may be zstd-compressed.
func codexParse(data []byte, o ParseOptions) ([]cairn.Session, error) {
	if bytes.HasPrefix(data, codexZstdMagic) {
		var err error
		if data, err = codexDecompress(data, o.Path); err != nil {
			return nil, fmt.Errorf("decompress %s: %w", o.Path, err)
		}
	}
	s, replay := codexBuild(data, o)
	codexDedupeFork(&s, replay, o)
	return []cairn.Session{s}, nil
}

// codexParseSession reads plain rollout bytes into a session without fork
// de-duplication (the parent side of codexDedupeFork).
func codexParseSession(data []byte, o ParseOptions) cairn.Session {
	s, _ := codexBuild(data, o)
	return s
}

// codexBuild builds the session and returns the index of its first message
// read after a replayed parent session_meta, -1 when there is none.
func codexBuild(data []byte, o ParseOptions) (cairn.Session, int) {
	s := cairn.Session{Source: cairn.SourceCodex, Provider: cairn.SourceCodex}
	entries := codexReadEntries(data, &s.Stats)
	b := newCodexBuilder(&s, entries, o)
	for _, e := range entries {
		b.add(e)
	}
	s.ConversationID = s.Cwd
	return s, b.replayStart
}

// codexReadEntries decodes every line, counting malformed lines and unknown
// record types in stats.
func codexReadEntries(data []byte, stats *cairn.ParseStats) []codexEntry {
	var entries []codexEntry
	metaSeen := false
	_ = forEachJSONLine(data, stats, func(n int, line []byte) error {
		var env codexEnvelope
		if err := json.Unmarshal(line, &env); err != nil {
			stats.Skip(ccDecodeReason(err))
			return nil
		}
		hasPayload := len(env.Payload) > 0 && string(env.Payload) != "null"
		e := codexEntry{n: n, ts: env.Timestamp, kind: env.Type}
		raw := env.Payload
		switch keep, wrapped := codexWrapped[env.Type]; {
		case env.RecordType != "":
			return nil // bare-era state marker
		case wrapped && !keep:
			return nil
		case wrapped && hasPayload:
		case !hasPayload && codexItemTypes[env.Type]:
			e.kind, raw = "response_item", line
		case env.Type == "" && !metaSeen && len(env.ID) > 0:
			e.kind, raw = "session_meta", line
		case wrapped:
			stats.Skip("malformed record")
			return nil
		default:
			stats.Skip("unknown type: " + ccCut(env.Type, 40))
			return nil
		}
		if err := json.Unmarshal(raw, &e.p); err != nil {
			stats.Skip("malformed record")
			return nil
		}
		metaSeen = metaSeen || e.kind == "session_meta"
		entries = append(entries, e)
		return nil
	})
	return entries
}

// codexOut is a tool call's output.
type codexOut struct {
	text    string
	isError bool
}

type codexBuilder struct {
	s           *cairn.Session
	eventUsers  bool // user text comes from events (legacy / paginated), not response items
	itemReplies bool // assistant text comes from response items, not events
	sidechain   bool // a sub-agent thread
	outputs     map[string]codexOut
	calls       map[string]bool
	model       string
	lastUserMsg int // index of the newest user or summary message, -1 none
	metaApplied bool
	replayStart int // first message after a replayed parent session_meta, -1 none (codex_fork.go)
}

// newCodexBuilder reads the session metadata and decides which copy of the
// duplicated user and assistant text to keep, before any message is built.
func newCodexBuilder(s *cairn.Session, entries []codexEntry, o ParseOptions) *codexBuilder {
	b := &codexBuilder{s: s, outputs: map[string]codexOut{}, calls: map[string]bool{}, lastUserMsg: -1, replayStart: -1}
	firstTS := ""
	for _, e := range entries {
		if firstTS == "" {
			firstTS = e.ts
		}
		p := e.p
		switch {
		case e.kind == "session_meta":
			b.meta(e)
		case e.kind == "event_msg" && p.Type == "user_message":
			b.eventUsers = true
		case e.kind == "event_msg" && p.Type == "item_completed":
			if role, _ := codexCompletedItem(p.Item); role == cairn.RoleUser {
				b.eventUsers = true
			}
		case e.kind == "response_item" && p.Type == "message" && p.Role == cairn.RoleAssistant:
			b.itemReplies = true
		case e.kind == "response_item" && strings.HasSuffix(p.Type, "_output") && p.CallID != "":
			if _, dup := b.outputs[p.CallID]; !dup {
				b.outputs[p.CallID] = codexOutput(p.Output)
			}
		}
	}
	if s.StartedAtRaw == "" && firstTS != "" {
		if t, err := time.Parse(time.RFC3339Nano, firstTS); err == nil {
			s.StartedAt, s.StartedAtRaw = t.UTC(), firstTS
		}
	}
	if s.ID == "" {
		s.ID = codexIDFromPath(o.Path)
	}
	return b
}

// codexIDFromPath returns the session id in a rollout file name: the UUID
// after rollout-YYYY-MM-DDThh-mm-ss-.
func codexIDFromPath(path string) string {
	if path == "" {
		return ""
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".zst"), ".jsonl")
	if len(stem) >= 36 && strings.HasPrefix(stem, "rollout-") {
		return stem[len(stem)-36:]
	}
	return stem
}

// codexMetaSource is the part of session_meta.source that links a sub-agent
// thread to its parent.
type codexMetaSource struct {
	Subagent *struct {
		ThreadSpawn *struct {
			ParentThreadID string `json:"parent_thread_id"`
		} `json:"thread_spawn"`
	} `json:"subagent"`
}

// meta applies the first session_meta (or bare-era header); later ones are
// replayed parent lines of a fork or sub-agent.
func (b *codexBuilder) meta(e codexEntry) {
	if b.metaApplied {
		return
	}
	b.metaApplied = true
	s, p := b.s, e.p
	s.ID, s.Cwd, s.AgentID = p.ID, p.Cwd, p.AgentNickname
	raw := ccFirstNonEmpty(p.Timestamp, e.ts)
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		s.StartedAt, s.StartedAtRaw = t.UTC(), raw
	}
	var git struct {
		Branch string `json:"branch"`
	}
	if json.Unmarshal(p.Git, &git) == nil {
		s.GitBranch = git.Branch
	}
	var src codexMetaSource
	if json.Unmarshal(p.Source, &src) == nil && src.Subagent != nil {
		b.sidechain = true
		if src.Subagent.ThreadSpawn != nil {
			s.ParentID = src.Subagent.ThreadSpawn.ParentThreadID
		}
	}
	s.ParentID = ccFirstNonEmpty(p.ForkedFromID, p.ParentThreadID, s.ParentID)
}

func (b *codexBuilder) add(e codexEntry) {
	p := e.p
	switch e.kind {
	case "session_meta":
		if b.replayStart < 0 && codexIsReplayedMeta(p, b.s.ID) {
			b.replayStart = len(b.s.Messages)
		}
	case "turn_context":
		b.model = ccFirstNonEmpty(p.Model, b.model)
		if b.s.Cwd == "" {
			b.s.Cwd = p.Cwd
		}
	case "response_item":
		b.addItem(e)
	case "event_msg":
		b.addEvent(e)
	case "compacted":
		// replacement_history replays earlier items and the summary: never re-ingested
		if text := strings.TrimSpace(codexString(p.Message)); text != "" {
			b.push(e, cairn.RoleUser, cairn.KindSummary, text)
		}
	}
}

func (b *codexBuilder) addItem(e codexEntry) {
	p := e.p
	switch p.Type {
	case "message":
		text := codexContentText(p.Content)
		switch p.Role {
		case cairn.RoleUser:
			b.addUser(e, text, !b.eventUsers)
		case cairn.RoleAssistant:
			b.addReply(e, text)
		default: // developer and system messages are harness instructions
			b.s.Stats.Skip("injected context")
		}
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call",
		"image_generation_call", "tool_search_call":
		b.addTool(e)
	case "reasoning", "compaction", "context_compaction":
		// encrypted reasoning and remote-compaction markers: not indexed
	default:
		if !codexItemTypes[p.Type] {
			b.s.Stats.Skip("unknown item: " + ccCut(p.Type, 40))
		}
	}
}

func (b *codexBuilder) addEvent(e codexEntry) {
	p := e.p
	switch p.Type {
	case "user_message":
		if p.Kind != "" && p.Kind != "plain" {
			b.s.Stats.Skip("injected context")
			return
		}
		b.addUser(e, codexString(p.Message), true)
	case "agent_message":
		if b.itemReplies {
			b.s.Stats.Deduplicated++
			return
		}
		b.addReply(e, codexString(p.Message))
	case "item_completed":
		switch role, text := codexCompletedItem(p.Item); role {
		case cairn.RoleUser:
			b.addUser(e, text, true)
		case cairn.RoleAssistant:
			if b.itemReplies {
				b.s.Stats.Deduplicated++
				return
			}
			b.addReply(e, text)
		}
	}
	// other events (token counts, task and turn markers, tool ends) are UI state
}

// addUser adds a person's text, dropping injected context. keep is false for
// the response-item copy of text that events already carry.
func (b *codexBuilder) addUser(e codexEntry, text string, keep bool) {
	text, injected := codexUserText(text)
	switch {
	case text == "":
	case injected:
		if b.s.Cwd == "" {
			if m := codexCwdRe().FindStringSubmatch(text); m != nil {
				b.s.Cwd = strings.TrimSpace(m[1])
			}
		}
		b.s.Stats.Skip("injected context")
	case !keep:
		b.s.Stats.Deduplicated++
	default:
		b.push(e, cairn.RoleUser, cairn.KindText, text)
	}
}

func (b *codexBuilder) addReply(e codexEntry, text string) {
	if text = strings.TrimSpace(text); text != "" {
		b.push(e, cairn.RoleAssistant, cairn.KindText, text)
	}
}

// push appends a message. Lines without a timestamp (the bare era) have
// no time: missing timestamps are omitted, never replaced.
func (b *codexBuilder) push(e codexEntry, role, kind, text string) *cairn.Message {
	m := cairn.Message{ID: e.p.ID, Role: role, Kind: kind, Text: text, Sidechain: b.sidechain}
	if e.kind != "response_item" || m.ID == "" {
		m.ID = "line-" + strconv.Itoa(e.n)
	}
	if t, err := time.Parse(time.RFC3339Nano, e.ts); err == nil {
		m.Time, m.TimeRaw = t.UTC(), e.ts
	}
	if role == cairn.RoleAssistant {
		m.Model = b.model
	}
	b.s.Messages = append(b.s.Messages, m)
	if role == cairn.RoleUser {
		b.lastUserMsg = len(b.s.Messages) - 1
	}
	return &b.s.Messages[len(b.s.Messages)-1]
}

// addTool puts a tool call under the newest assistant message of the turn,
// or under a new one when the turn has none yet, with its output paired by
// call_id. A repeated call_id (a replay) is dropped and counted.
func (b *codexBuilder) addTool(e codexEntry) {
	tc := codexToolCall(e.p)
	if tc.ID != "" {
		if b.calls[tc.ID] {
			b.s.Stats.Deduplicated++
			return
		}
		b.calls[tc.ID] = true
		if out, ok := b.outputs[tc.ID]; ok {
			tc.Output, tc.IsError = out.text, out.isError
		}
	}
	var host *cairn.Message
	if n := len(b.s.Messages); n > 0 && n-1 > b.lastUserMsg && b.s.Messages[n-1].Role == cairn.RoleAssistant {
		host = &b.s.Messages[n-1]
	} else {
		host = b.push(e, cairn.RoleAssistant, cairn.KindText, "")
	}
	host.Tools = append(host.Tools, tc)
}

// codexKeyArgs names the key arguments of Codex's tools; other tools keep
// all their arguments.
var codexKeyArgs = map[string][]string{
	"shell": {"command"}, "container.exec": {"command"}, "shell_command": {"command"},
	"local_shell": {"command"}, "exec_command": {"cmd"}, "write_stdin": {"session_id"},
	"view_image": {"path"}, "read_file": {"file_path", "path"}, "list_dir": {"dir_path", "path"},
	"grep_files": {"pattern", "path"}, "web_search": {"query"}, "update_plan": {"explanation"},
}

// codexToolCall summarizes a tool call item.
func codexToolCall(p codexPayload) cairn.ToolCall {
	tc := cairn.ToolCall{ID: ccFirstNonEmpty(p.CallID, p.ID), Name: p.Name}
	switch p.Type {
	case "function_call", "tool_search_call":
		tc.Input = codexArgs(p.Name, p.Arguments)
	case "custom_tool_call":
		tc.Input = codexFreeformInput(p.Name, codexString(p.Input))
	case "local_shell_call":
		tc.Input = ccSummarizeArgs(p.Action, codexKeyArgs["local_shell"])
	case "web_search_call":
		tc.Input = ccSummarizeArgs(p.Action, codexKeyArgs["web_search"])
	}
	if tc.Name == "" {
		tc.Name = strings.TrimSuffix(p.Type, "_call")
	}
	return tc
}

// codexArgs summarizes function-call arguments, which are a JSON string
// holding a JSON object.
func codexArgs(name string, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ccSummarizeArgs(raw, codexKeyArgs[name])
	}
	if name == "apply_patch" {
		var a struct {
			Input string `json:"input"`
		}
		if json.Unmarshal([]byte(s), &a) == nil && a.Input != "" {
			return codexPatchFiles(a.Input)
		}
	}
	return ccSummarizeArgs([]byte(s), codexKeyArgs[name])
}

// codexFreeformInput summarizes a custom tool's raw-text input: the files a
// patch touches, else the cut text.
func codexFreeformInput(name, input string) string {
	if name == "apply_patch" || strings.HasPrefix(input, "*** Begin Patch") {
		return codexPatchFiles(input)
	}
	return ccCut(strings.TrimSpace(input), ccMaxInput)
}

// codexPatchFiles lists the file operations of an apply_patch body, one
// per line ("Update File: tests/refresh_test.go").
func codexPatchFiles(patch string) string {
	var ops []string
	for _, line := range strings.Split(patch, "\n") {
		for _, op := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if strings.HasPrefix(line, op) {
				ops = append(ops, strings.TrimPrefix(strings.TrimSpace(line), "*** "))
			}
		}
	}
	if len(ops) == 0 {
		return ccCut(strings.TrimSpace(patch), ccMaxInput)
	}
	return ccCut(strings.Join(ops, "\n"), ccMaxInput)
}

// codexExitRe finds a shell exit code in tool output text.
var codexExitRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:) (-?\d+)`)
})

// codexOutput reads a tool output: a string (often a JSON string of
// {output, metadata{exit_code}}), content items, or {content, success}.
// A non-zero exit code or success:false marks an error.
func codexOutput(raw json.RawMessage) codexOut {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		var wrapped struct {
			Output   *string `json:"output"`
			Metadata struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(s), &wrapped) == nil && wrapped.Output != nil {
			code := wrapped.Metadata.ExitCode
			return codexOut{text: *wrapped.Output, isError: code != nil && *code != 0}
		}
		return codexOut{text: s, isError: codexFailed(s)}
	}
	var obj struct {
		Content *string `json:"content"`
		Success *bool   `json:"success"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		failed := (obj.Success != nil && !*obj.Success) || codexFailed(*obj.Content)
		return codexOut{text: *obj.Content, isError: failed}
	}
	text := codexContentText(raw)
	return codexOut{text: text, isError: codexFailed(text)}
}

// codexFailed reports a non-zero exit code near the top of output text.
func codexFailed(text string) bool {
	head := text
	if len(head) > 500 {
		head = head[:500]
	}
	m := codexExitRe().FindStringSubmatch(head)
	return m != nil && m[1] != "0"
}

// codexString decodes a JSON string, "" for anything else.
func codexString(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// codexContentText joins the text of content items (input_text,
// output_text, text); images and other items are left out. A plain string
// is its own text.
func codexContentText(raw json.RawMessage) string {
	if s := codexString(raw); s != "" {
		return strings.TrimSpace(s)
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		var c struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(it, &c) == nil && strings.TrimSpace(c.Text) != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// codexCompletedItem reads the item of an item_completed event (paginated
// history mode): its role (user, assistant, or "" for other items) and text.
// The item shape is unconfirmed; this accepts UserMessage / user_message /
// userMessage and the AgentMessage equivalents, with content items or a
// text / message string.
func codexCompletedItem(raw json.RawMessage) (role, text string) {
	var it struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
		Text    json.RawMessage `json:"text"`
		Message json.RawMessage `json:"message"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &it) != nil {
		return "", ""
	}
	switch strings.ToLower(strings.ReplaceAll(it.Type, "_", "")) {
	case "usermessage":
		role = cairn.RoleUser
	case "agentmessage", "assistantmessage":
		role = cairn.RoleAssistant
	default:
		return "", ""
	}
	text = codexContentText(it.Content)
	if text == "" {
		text = strings.TrimSpace(ccFirstNonEmpty(codexString(it.Text), codexString(it.Message)))
	}
	return role, text
}

// codexInjectedPrefixes start user or developer text that the harness
// injected (spec §2.4): environment, instructions, AGENTS.md and similar.
var codexInjectedPrefixes = []string{
	"<environment_context>", "<user_instructions>", "<permissions instructions>",
	"<collaboration_mode>", "<developer_instructions>", "# AGENTS.md", "<INSTRUCTIONS>",
	"<user_shell_command>", "<turn_aborted>", "<subagent_notification>", "<skill>",
}

// codexRequestMarker precedes the person's text in old prompts wrapped with
// IDE context.
const codexRequestMarker = "## My request for Codex:"

// codexCwdRe finds the working directory in an environment_context block.
var codexCwdRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<cwd>([^<]*)</cwd>`) })

// codexUserText unwraps a user text and reports whether it is injected
// context rather than a person's words.
func codexUserText(text string) (string, bool) {
	text = strings.TrimSpace(text)
	if i := strings.Index(text, codexRequestMarker); i >= 0 {
		text = strings.TrimSpace(text[i+len(codexRequestMarker):])
	}
	for _, p := range codexInjectedPrefixes {
		if strings.HasPrefix(text, p) {
			return text, true
		}
	}
	return text, false
}
