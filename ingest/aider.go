package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairnmemory/cairn"
)

// Aider chat history (spec transcript-formats §5): one Markdown file per git
// root, .aider.chat.history.md, appended by every run:
//
//	# aider chat started at 2026-05-04 11:20:07     a session (local time, no zone)
//	> Aider v0.86.1                                 status and tool output
//	#### add a --dry-run flag                       user input, one line each
//	plain Markdown                                  the assistant's reply
//
// Status lines ("> ..."): those before the session's first user turn are the
// startup banner, dropped (counted as "startup banner") after reading the
// model name from it; later ones become ToolCall{Name: "aider"} summaries,
// one per run of consecutive lines, under the assistant message they follow
// (or a new assistant message without text, after a user turn). A header
// line always starts a session, even inside an unclosed code fence: aider
// writes it, so a fence left open by an interrupted reply ends there.

func init() {
	register(SourceReader{ID: cairn.SourceAider, Find: aiderFind, Parse: parseAider})
}

// aiderHistoryFile is the default chat history file name.
const aiderHistoryFile = ".aider.chat.history.md"

// aiderFind lists the .aider.chat.history.md files under root, recursively,
// skipping .git and node_modules.
func aiderFind(root string) ([]string, error) {
	return oaiWalk(root, func(name string) bool { return name == aiderHistoryFile })
}

var (
	aiderHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$`)
	})
	aiderModel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:Main model|Models?): (\S+)`) })
)

const aiderTimeLayout = "2006-01-02 15:04:05"

// parseAider splits one history file into sessions. Ids are derived from
// (o.Path, the header's time text, the session's ordinal in the file):
// stable while the file is only appended to and not moved. Text before the
// first header (a file cut at the front) is a session of its own without
// a start time. Aider writes no per-message times: messages carry none
// (never the session start, which would claim a time no record gives).
func parseAider(data []byte, o ParseOptions) ([]cairn.Session, error) {
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	var out []cairn.Session
	var b *aiderBuilder
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if m := aiderHeader().FindStringSubmatch(line); m != nil {
			if b != nil {
				out = append(out, b.finish())
			}
			b = newAiderBuilder(o, m[1], len(out))
			continue
		}
		if b == nil {
			if strings.TrimSpace(line) == "" {
				continue
			}
			b = newAiderBuilder(o, "", 0)
		}
		b.line(line)
	}
	if b != nil {
		out = append(out, b.finish())
	}
	return out, nil
}

// aiderBuilder turns one session's lines into messages. At most one of
// user, text and status is pending at a time.
type aiderBuilder struct {
	s      cairn.Session
	model  string
	fence  string // the open fence's marker run ("```"), "" outside fences
	user   []string
	text   []string
	status []string
	inTurn bool // a user turn was seen
}

func newAiderBuilder(o ParseOptions, raw string, ordinal int) *aiderBuilder {
	sum := sha256.Sum256([]byte(o.Path + "\x00" + raw + "\x00" + strconv.Itoa(ordinal)))
	conv := ""
	if o.Path != "" {
		conv = filepath.Dir(o.Path)
	}
	b := &aiderBuilder{s: cairn.Session{
		Source:         cairn.SourceAider,
		Provider:       cairn.SourceAider,
		ID:             hex.EncodeToString(sum[:8]),
		ConversationID: conv,
		Cwd:            conv,
		StartedAtRaw:   raw,
	}}
	if t, err := time.ParseInLocation(aiderTimeLayout, raw, o.location()); err == nil {
		b.s.StartedAt = t
	}
	return b
}

func (b *aiderBuilder) line(l string) {
	b.s.Stats.Lines++
	if b.fence != "" {
		b.text = append(b.text, l)
		if aiderFenceCloses(l, b.fence) {
			b.fence = ""
		}
		return
	}
	if in, ok := aiderUserLine(l); ok {
		b.flushText()
		b.flushStatus()
		b.user = append(b.user, in)
		return
	}
	if st, ok := strings.CutPrefix(l, ">"); ok {
		b.flushUser()
		b.flushText()
		b.status = append(b.status, strings.TrimSpace(st))
		return
	}
	if strings.TrimSpace(l) == "" {
		b.flushUser()
		b.flushStatus()
		if len(b.text) > 0 {
			b.text = append(b.text, "")
		}
		return
	}
	b.flushUser()
	b.flushStatus()
	b.text = append(b.text, strings.TrimRight(l, " \t"))
	b.fence = aiderFenceOpens(l)
}

// aiderUserLine strips the "#### " prefix and trailing spaces.
func aiderUserLine(l string) (string, bool) {
	if l == "####" {
		return "", true
	}
	in, ok := strings.CutPrefix(l, "#### ")
	return strings.TrimRight(in, " \t"), ok
}

// aiderFenceOpens returns the marker run of a fence opening line (any
// indentation, so fences nested in list items count, then 3 or more
// backticks or tildes; a backtick fence's info text has no backtick), else "".
func aiderFenceOpens(l string) string {
	run, rest := aiderFenceRun(l)
	if run != "" && run[0] == '`' && strings.Contains(rest, "`") {
		return ""
	}
	return run
}

// aiderFenceCloses reports whether l closes a fence opened by marker: the
// same character, at least as many, nothing else but spaces.
func aiderFenceCloses(l, marker string) bool {
	run, rest := aiderFenceRun(l)
	return run != "" && run[0] == marker[0] && len(run) >= len(marker) && strings.TrimSpace(rest) == ""
}

// aiderFenceRun splits an indented line starting with 3 or more backticks
// or tildes into that run and the rest; run is "" for other lines.
func aiderFenceRun(l string) (run, rest string) {
	t := strings.TrimLeft(l, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return "", ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return "", ""
	}
	return t[:n], t[n:]
}

func (b *aiderBuilder) flushUser() {
	if len(b.user) == 0 {
		return
	}
	text := strings.TrimSpace(strings.Join(b.user, "\n"))
	b.user = b.user[:0]
	b.inTurn = true
	if text == "" {
		b.s.Stats.Skip("empty message")
		return
	}
	kind := cairn.KindText
	if strings.HasPrefix(text, "/") {
		kind = cairn.KindCommand
	}
	b.add(cairn.Message{Role: cairn.RoleUser, Kind: kind, Text: text})
}

func (b *aiderBuilder) flushText() {
	text := strings.Trim(strings.Join(b.text, "\n"), "\n")
	b.text = b.text[:0]
	if strings.TrimSpace(text) == "" {
		return
	}
	b.add(cairn.Message{Role: cairn.RoleAssistant, Kind: cairn.KindText, Text: text, Model: b.model})
}

func (b *aiderBuilder) flushStatus() {
	if len(b.status) == 0 {
		return
	}
	var lines []string
	for _, l := range b.status {
		if m := aiderModel().FindStringSubmatch(l); m != nil {
			b.model = m[1]
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	b.status = b.status[:0]
	if len(lines) == 0 {
		return
	}
	if !b.inTurn {
		b.s.Stats.Skip("startup banner")
		return
	}
	msgs := b.s.Messages
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != cairn.RoleAssistant {
		b.add(cairn.Message{Role: cairn.RoleAssistant, Kind: cairn.KindText, Model: b.model})
		msgs = b.s.Messages
	}
	last := &msgs[len(msgs)-1]
	last.Tools = append(last.Tools, cairn.ToolCall{Name: "aider", Output: strings.Join(lines, "\n")})
}

// add appends a message with an id derived from the session id and its
// ordinal; it has no time (aider records only the session start).
func (b *aiderBuilder) add(m cairn.Message) {
	m.ID = b.s.ID + ":" + strconv.Itoa(len(b.s.Messages)+1)
	b.s.Messages = append(b.s.Messages, m)
}

func (b *aiderBuilder) finish() cairn.Session {
	b.flushUser()
	b.flushText()
	b.flushStatus()
	return b.s
}
