package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Gemini CLI chats (spec transcript-formats §4), under the Gemini home
// (~/.gemini or GEMINI_DATA_DIR):
//
//	tmp/<project>/.project_root                     the project root (newer versions)
//	tmp/<project>/chats/session-<time>-<id8>.jsonl  one session, append-only
//	tmp/<project>/chats/session-<time>-<id8>.json   old format, one JSON document
//	tmp/<project>/chats/<parentSessionId>/<id>.jsonl  sub-agent chats
//	projects.json                                   {"projects":{"/abs/path":"slug"}}
//
// JSONL: line 1 is the session metadata; messages are re-appended under the
// same id when updated (the last record wins, in the place of the first);
// {"$set":{...}} updates metadata; {"$rewindTo":id} drops that message and
// every later one. info, error and warning records are not conversation.

func init() {
	register(SourceReader{ID: cairn.SourceGemini, Find: gemFind, Parse: parseGemini})
}

// gemFind lists root/tmp/*/chats/session-*.jsonl, the sub-agent chats
// chats/*/*.jsonl and the old session-*.json files. An old .json is left out
// when a .jsonl in the same folder ends in the same short session id (the 8
// hex digits after the last '-' of the name): Gemini converts the .json to
// JSONL on resume, keeping the name. Parse sees one file only, so this is
// the one place the pair is deduplicated; both would parse to the same
// Session.ID.
func gemFind(root string) ([]string, error) {
	projects, err := os.ReadDir(filepath.Join(root, "tmp"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find gemini chats %s: %w", root, err)
	}
	var out []string
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		found, err := gemFindChats(filepath.Join(root, "tmp", p.Name(), "chats"))
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	sort.Strings(out)
	return out, nil
}

func gemFindChats(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find gemini chats %s: %w", dir, err)
	}
	var out, old []string
	jsonl := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			subs, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return nil, fmt.Errorf("find gemini sub-agent chats %s: %w", dir, err)
			}
			for _, sub := range subs {
				if !sub.IsDir() && strings.HasSuffix(sub.Name(), ".jsonl") {
					out = append(out, filepath.Join(dir, name, sub.Name()))
				}
			}
		case !strings.HasPrefix(name, "session-"):
		case strings.HasSuffix(name, ".jsonl"):
			out = append(out, filepath.Join(dir, name))
			jsonl[gemShortID(name)] = true
		case strings.HasSuffix(name, ".json"):
			old = append(old, name)
		}
	}
	for _, name := range old {
		if !jsonl[gemShortID(name)] {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out, nil
}

// gemShortID is the part of a session file name after its last '-', without
// the extension: the first 8 hex digits of the session id.
func gemShortID(name string) string {
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
	return name[strings.LastIndexByte(name, '-')+1:]
}

type gemMeta struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
	Kind        string `json:"kind"` // main or subagent
	Summary     string `json:"summary"`
}

type gemRecord struct {
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	ToolCalls      []gemToolCall   `json:"toolCalls"`
	Model          string          `json:"model"`

	SessionID string          `json:"sessionId"` // the metadata line
	Set       json.RawMessage `json:"$set"`
	RewindTo  *string         `json:"$rewindTo"`
}

type gemToolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	Status        string          `json:"status"`
}

// gemLog is a session after replay: metadata and the surviving records in
// order.
type gemLog struct {
	meta     gemMeta
	hasMeta  bool
	order    []string
	recs     map[string]gemRecord
	stats    cairn.ParseStats
	anything bool // any record or metadata was read
}

func (g *gemLog) add(r gemRecord, n int) {
	g.anything = true
	id := r.ID
	if id == "" {
		id = fmt.Sprintf("line-%d", n)
	}
	if _, ok := g.recs[id]; ok {
		g.stats.Deduplicated++
	} else {
		g.order = append(g.order, id)
	}
	g.recs[id] = r
}

func (g *gemLog) rewind(id string) {
	i := slices.Index(g.order, id)
	if i < 0 {
		g.stats.Skip("rewind to unknown id")
		return
	}
	for _, d := range g.order[i:] {
		delete(g.recs, d)
		g.stats.Skip("rewound")
	}
	g.order = g.order[:i]
}

// record applies one JSONL record: metadata, control line or message.
func (g *gemLog) record(n int, line []byte) {
	var r gemRecord
	if err := json.Unmarshal(line, &r); err != nil {
		g.stats.Skip("malformed json")
		return
	}
	switch {
	case r.Set != nil || r.RewindTo != nil:
		g.anything = true
		if r.Set != nil && json.Unmarshal(r.Set, &g.meta) != nil {
			g.stats.Skip("malformed $set")
		}
		if r.RewindTo != nil {
			g.rewind(*r.RewindTo)
		}
	case r.SessionID != "" && r.Type == "" && r.ID == "":
		g.anything = true
		if g.hasMeta {
			g.stats.Skip("repeated metadata")
			return
		}
		g.hasMeta = true
		_ = json.Unmarshal(line, &g.meta)
	case r.Type == "":
		g.stats.Skip("unknown record")
	default:
		g.add(r, n)
	}
}

// gemParse replays a JSONL session or reads an old single-JSON one (by
// extension; without a path, by content).
func gemParse(data []byte, o ParseOptions) (*gemLog, error) {
	g := &gemLog{recs: map[string]gemRecord{}}
	if gemIsOld(data, o.Path) {
		var doc struct {
			gemMeta
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(bytes.TrimPrefix(data, utf8BOM), &doc); err != nil {
			return nil, fmt.Errorf("parse gemini session %s: %w", o.Path, err)
		}
		g.meta, g.hasMeta, g.anything = doc.gemMeta, true, true
		for i, raw := range doc.Messages {
			g.stats.Lines++
			var r gemRecord
			if err := json.Unmarshal(raw, &r); err != nil {
				g.stats.Skip("malformed message")
				continue
			}
			g.add(r, i+1)
		}
		g.stats.ConsumedBytes = int64(len(data))
		return g, nil
	}
	_ = forEachJSONLine(data, &g.stats, func(n int, line []byte) error {
		g.record(n, line)
		return nil
	})
	return g, nil
}

func gemIsOld(data []byte, path string) bool {
	switch {
	case strings.HasSuffix(path, ".json"):
		return true
	case strings.HasSuffix(path, ".jsonl"):
		return false
	}
	var probe struct {
		Messages json.RawMessage `json:"messages"`
	}
	doc := bytes.TrimSpace(data)
	return len(doc) > 0 && doc[0] == '{' && json.Unmarshal(doc, &probe) == nil && probe.Messages != nil
}

// parseGemini reads one chat file into one session (none for an empty file).
func parseGemini(data []byte, o ParseOptions) ([]cairn.Session, error) {
	g, err := gemParse(data, o)
	if err != nil || !g.anything && g.stats.Lines == 0 {
		return nil, err
	}
	return []cairn.Session{g.session(o)}, nil
}

func (g *gemLog) session(o ParseOptions) cairn.Session {
	parent := gemParentID(o.Path)
	s := cairn.Session{
		Source:       cairn.SourceGemini,
		Provider:     cairn.SourceGemini,
		ID:           g.meta.SessionID,
		ParentID:     parent,
		Title:        g.meta.Summary,
		StartedAtRaw: g.meta.StartTime,
	}
	if s.ID == "" {
		s.ID = oaiStem(o.Path)
	}
	s.ConversationID = gemProjectRoot(o.Path, g.meta.ProjectHash)
	s.Cwd = s.ConversationID
	sidechain := parent != "" || g.meta.Kind == "subagent"
	for _, id := range g.order {
		if m, ok := g.message(id, g.recs[id]); ok {
			m.Sidechain = sidechain
			s.Messages = append(s.Messages, m)
		}
	}
	s.StartedAt = gemTime(g.meta.StartTime)
	if s.StartedAt.IsZero() && len(s.Messages) > 0 {
		s.StartedAt = s.Messages[0].Time
	}
	s.Stats = g.stats
	return s
}

// message projects one surviving record; ok is false for records that are
// not conversation (counted).
func (g *gemLog) message(id string, r gemRecord) (cairn.Message, bool) {
	m := cairn.Message{ID: id, Kind: cairn.KindText, Time: gemTime(r.Timestamp), TimeRaw: r.Timestamp}
	switch r.Type {
	case "user":
		m.Role = cairn.RoleUser
		// displayContent is what the person typed; content may carry
		// expanded @file includes.
		if m.Text = gemText(r.DisplayContent); m.Text == "" {
			m.Text = gemText(r.Content)
		}
	case "gemini":
		m.Role, m.Model = cairn.RoleAssistant, r.Model
		m.Text = gemText(r.Content)
		for _, tc := range r.ToolCalls {
			m.Tools = append(m.Tools, gemTool(tc))
		}
	case "info", "error", "warning":
		g.stats.Skip(r.Type + " record")
		return m, false
	default:
		g.stats.Skip("unknown type")
		return m, false
	}
	if m.Text == "" && len(m.Tools) == 0 {
		g.stats.Skip("empty message")
		return m, false
	}
	return m, true
}

func gemTool(tc gemToolCall) cairn.ToolCall {
	out, failed := gemResult(tc.Result)
	if out == "" {
		out = oaiString(tc.ResultDisplay)
	}
	return cairn.ToolCall{ID: tc.ID, Name: tc.Name, Input: oaiKeyArgs(tc.Args), Output: out,
		IsError: tc.Status == "error" || failed}
}

type gemPart struct {
	Text             string `json:"text"`
	Thought          bool   `json:"thought"`
	FunctionResponse *struct {
		Response map[string]json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// gemParts reads a PartListUnion: a string, one part or a list of parts
// (strings or objects). Parts that do not decode are dropped.
func gemParts(raw json.RawMessage) []gemPart {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '"':
		return []gemPart{{Text: oaiString(raw)}}
	case '{':
		var p gemPart
		if json.Unmarshal(raw, &p) != nil {
			return nil
		}
		return []gemPart{p}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		var out []gemPart
		for _, it := range items {
			out = append(out, gemParts(it)...)
		}
		return out
	}
	return nil
}

// gemText joins the text parts of content, without thought parts.
func gemText(raw json.RawMessage) string {
	var texts []string
	for _, p := range gemParts(raw) {
		if t := strings.TrimSpace(p.Text); t != "" && !p.Thought {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}

// gemResult is a tool result's text: text parts and functionResponse
// outputs (response.output, else response.error, else the response as
// JSON). failed reports a response.error.
func gemResult(raw json.RawMessage) (out string, failed bool) {
	var texts []string
	for _, p := range gemParts(raw) {
		if t := strings.TrimSpace(p.Text); t != "" {
			texts = append(texts, t)
		}
		if p.FunctionResponse == nil || p.FunctionResponse.Response == nil {
			continue
		}
		resp := p.FunctionResponse.Response
		t := oaiString(resp["output"])
		if e := oaiString(resp["error"]); e != "" {
			failed = true
			if t == "" {
				t = e
			}
		}
		if t == "" {
			b, _ := json.Marshal(resp)
			t = string(b)
		}
		texts = append(texts, strings.TrimSpace(t))
	}
	return strings.Join(texts, "\n"), failed
}

func gemTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// gemParentID is the parent session of a sub-agent chat
// (chats/<parentSessionId>/<id>.jsonl); "" for a main chat.
func gemParentID(path string) string {
	if path == "" {
		return ""
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "chats" || filepath.Base(filepath.Dir(dir)) != "chats" {
		return ""
	}
	return filepath.Base(dir)
}

// gemProjectRoot finds a chat's project root, best effort: the
// .project_root marker in the project folder, else projects.json in the
// Gemini home (two folders above the project folder), matching the folder
// name as a slug, or sha256(path) against the folder name (old hash
// folders) or the session's projectHash. "" when none matches.
func gemProjectRoot(path, projectHash string) string {
	if path == "" {
		return ""
	}
	chats := filepath.Dir(path)
	if filepath.Base(chats) != "chats" {
		chats = filepath.Dir(chats) // a sub-agent chat
	}
	project := filepath.Dir(chats)
	if b, err := readSibling(filepath.Join(project, ".project_root")); err == nil {
		if root := strings.TrimSpace(string(b)); root != "" {
			return root
		}
	}
	b, err := readSibling(filepath.Join(filepath.Dir(filepath.Dir(project)), "projects.json"))
	if err != nil {
		return ""
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &reg) != nil {
		return ""
	}
	folder := filepath.Base(project)
	roots := make([]string, 0, len(reg.Projects))
	for root := range reg.Projects {
		roots = append(roots, root)
	}
	sort.Strings(roots)
	for _, root := range roots {
		sum := sha256.Sum256([]byte(root))
		hash := hex.EncodeToString(sum[:])
		if reg.Projects[root] == folder || hash == folder || hash == projectHash {
			return root
		}
	}
	return ""
}
