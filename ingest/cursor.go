package ingest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
)

// Cursor's IDE chat (spec transcript-formats.md §6; undocumented by the
// vendor, so every field here is read leniently). The store is SQLite, read
// by package ingest/cursordb (cgo stays out of this package); this file
// lists the stores and turns their JSON values into sessions.
//
// Layout under a Cursor root (the folder holding User/: ~/.config/Cursor
// on Linux, ~/Library/Application Support/Cursor on macOS,
// %APPDATA%\Cursor on Windows):
//
//	User/globalStorage/state.vscdb      cursorDiskKV: composerData:<id>, bubbleId:<id>:<bubble>
//	User/workspaceStorage/<hash>/state.vscdb   ItemTable composer.composerData: the workspace's composers
//	User/workspaceStorage/<hash>/workspace.json  {"folder": "file:///home/dev/acme-api"}
//
// One composer is one session: its id, name (the title), createdAt (epoch
// ms: the start); its messages are the bubbles in the order of
// fullConversationHeadersOnly (older versions: an inline conversation
// array), type 1 the user, type 2 the assistant. Only a bubble's text is
// projected (a user bubble's attached files, selections and rich text are
// not the person's words); an assistant bubble's toolFormerData becomes one
// tool call. Bubbles carry no reliable time: a bubble's own createdAt is
// used when it has one, else the message has no time. The older chat under
// ItemTable workbench.panel.aichat.view.aichat.chatdata and the newer
// ~/.cursor agent transcripts are not read.

// CursorDBName is the file name of Cursor's SQLite stores.
const CursorDBName = "state.vscdb"

// CursorGlobalDB is the store holding the chats, relative to a Cursor root.
var CursorGlobalDB = filepath.Join("User", "globalStorage", CursorDBName)

// FindCursor lists the chat store under a Cursor root: root/User/
// globalStorage/state.vscdb when it is a regular file. A missing store is
// not an error.
func FindCursor(root string) ([]string, error) {
	p := filepath.Join(root, CursorGlobalDB)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil
	}
	return []string{p}, nil
}

// IsStore reports whether a transcript path is a SQLite store that its
// source reader opens itself (SourceReader.ParseFile) rather than a file
// read as bytes: an OpenClaw agent store or a Cursor state.vscdb.
func IsStore(path string) bool {
	b := filepath.Base(path)
	return b == OpenClawDBName || b == CursorDBName
}

// cursorComposer is the part of a composerData value Cairn reads.
type cursorComposer struct {
	ID           string          `json:"composerId"`
	Name         string          `json:"name"`
	CreatedAt    json.RawMessage `json:"createdAt"`
	Headers      []cursorHeader  `json:"fullConversationHeadersOnly"`
	Conversation []cursorBubble  `json:"conversation"`
}

type cursorHeader struct {
	BubbleID string `json:"bubbleId"`
}

// cursorBubble is one message of a composer.
type cursorBubble struct {
	ID        string          `json:"bubbleId"`
	Type      json.RawMessage `json:"type"`
	Text      string          `json:"text"`
	CreatedAt json.RawMessage `json:"createdAt"`
	Tool      *struct {
		Name    string          `json:"name"`
		RawArgs json.RawMessage `json:"rawArgs"`
		Result  json.RawMessage `json:"result"`
		Status  string          `json:"status"`
	} `json:"toolFormerData"`
}

// CursorComposerID returns the composerId of a composerData value, "" when
// it does not decode.
func CursorComposerID(composer []byte) string {
	var c struct {
		ID string `json:"composerId"`
	}
	if json.Unmarshal(composer, &c) != nil {
		return ""
	}
	return c.ID
}

// CursorBubbleIDs returns the bubble ids of a composerData value in
// conversation order (fullConversationHeadersOnly), for the reader to look
// up; composers with an inline conversation need none.
func CursorBubbleIDs(composer []byte) []string {
	var c cursorComposer
	if json.Unmarshal(composer, &c) != nil {
		return nil
	}
	ids := make([]string, 0, len(c.Headers))
	for _, h := range c.Headers {
		if h.BubbleID != "" {
			ids = append(ids, h.BubbleID)
		}
	}
	return ids
}

// CursorSession builds the session of one composerData value. bubble
// returns a bubble's value by id (nil when the store has none). workspace
// is the composer's workspace folder when the workspace stores name it.
// A composer value that does not decode returns ok false; bubbles that are
// missing, malformed or of an unknown type are counted in Stats and
// skipped.
func CursorSession(composer []byte, bubble func(id string) []byte, workspace string) (cairn.Session, bool) {
	var c cursorComposer
	if err := json.Unmarshal(composer, &c); err != nil || c.ID == "" {
		return cairn.Session{}, false
	}
	s := cairn.Session{Source: cairn.SourceCursor, Provider: cairn.SourceCursor, ID: c.ID, Title: strings.TrimSpace(c.Name),
		Cwd: workspace, ConversationID: workspace}
	if t, raw, ok := cursorTime(c.CreatedAt); ok {
		s.StartedAt, s.StartedAtRaw = t, raw
	}
	bubbles := c.Conversation
	if len(c.Headers) > 0 {
		bubbles = bubbles[:0:0]
		for _, h := range c.Headers {
			raw := bubble(h.BubbleID)
			s.Stats.Lines++
			if raw == nil {
				s.Stats.Skip("missing bubble")
				continue
			}
			var b cursorBubble
			if json.Unmarshal(raw, &b) != nil {
				s.Stats.Skip("malformed bubble")
				continue
			}
			if b.ID == "" {
				b.ID = h.BubbleID
			}
			bubbles = append(bubbles, b)
		}
	} else {
		s.Stats.Lines += len(bubbles)
	}
	for _, b := range bubbles {
		cursorAdd(&s, b)
	}
	return s, true
}

// cursorAdd appends one bubble: a user or assistant message, or a tool call
// under the assistant message it follows.
func cursorAdd(s *cairn.Session, b cursorBubble) {
	var role string
	switch strings.TrimSpace(string(b.Type)) {
	case "1":
		role = cairn.RoleUser
	case "2":
		role = cairn.RoleAssistant
	default:
		s.Stats.Skip("bubble type " + ccCut(string(b.Type), 20))
		return
	}
	text := strings.TrimSpace(b.Text)
	var tool *cairn.ToolCall
	if role == cairn.RoleAssistant && b.Tool != nil && b.Tool.Name != "" {
		tool = &cairn.ToolCall{Name: b.Tool.Name, Input: cursorArgs(b.Tool.RawArgs), Output: cursorResult(b.Tool.Result),
			IsError: b.Tool.Status == "error" || b.Tool.Status == "failed"}
	}
	if text == "" && tool == nil {
		s.Stats.Skip("empty bubble")
		return
	}
	if n := len(s.Messages); text == "" && n > 0 && s.Messages[n-1].Role == cairn.RoleAssistant {
		s.Messages[n-1].Tools = append(s.Messages[n-1].Tools, *tool)
		return
	}
	m := cairn.Message{ID: b.ID, Role: role, Kind: cairn.KindText, Text: text}
	if m.ID == "" {
		m.ID = "bubble-" + strconv.Itoa(len(s.Messages)+1)
	}
	if t, raw, ok := cursorTime(b.CreatedAt); ok {
		m.Time, m.TimeRaw = t, raw
	}
	if tool != nil {
		m.Tools = []cairn.ToolCall{*tool}
	}
	s.Messages = append(s.Messages, m)
}

// cursorArgs summarizes a tool's rawArgs: a JSON string holding JSON, or
// JSON itself.
func cursorArgs(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	if !json.Valid(raw) {
		return ccCut(strings.TrimSpace(string(raw)), ccMaxInput)
	}
	return ccSummarizeArgs(raw, []string{"command", "target_file", "relative_workspace_path", "query", "path"})
}

// cursorResult is a tool's result text: a string, or compact JSON.
func cursorResult(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// cursorTime reads epoch milliseconds (a number or its text) or an
// RFC 3339 string.
func cursorTime(raw json.RawMessage) (time.Time, string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = strings.TrimSpace(string(raw))
	}
	if s == "" || s == "null" {
		return time.Time{}, "", false
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms > 0 {
		return time.UnixMilli(ms).UTC(), s, true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), s, true
	}
	return time.Time{}, "", false
}

// CursorWorkspaceFolder reads a workspace.json: its folder as a path, ""
// when it names none or not a local file URI.
func CursorWorkspaceFolder(data []byte) string {
	var w struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(data, &w) != nil || w.Folder == "" {
		return ""
	}
	u, err := url.Parse(w.Folder)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// CursorWorkspaceComposers reads the composer.composerData value of a
// workspace store: the ids of the workspace's composers.
func CursorWorkspaceComposers(data []byte) []string {
	var v struct {
		All []struct {
			ID string `json:"composerId"`
		} `json:"allComposers"`
	}
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	ids := make([]string, 0, len(v.All))
	for _, c := range v.All {
		if c.ID != "" {
			ids = append(ids, c.ID)
		}
	}
	return ids
}
