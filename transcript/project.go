package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact"
)

// Version is the projector version; a change re-projects every session.
// 2: bad characters replaced, long messages cut, long sessions in parts.
// 3: a message without a timestamp has none in its heading (it used to
// show the session start, or "unknown time").
// 4: a path component or session id holding a secret is hashed (a
// session re-projected once, so an id stored with a token is replaced).
// 5: task and attachment envelopes cleaned, Codex fork replays left out
// (issue 22): sessions indexed before hold them.
// 6: ANSI CSI sequences (colour codes) dropped whole, not only their ESC
// byte, and redaction matches a token right after one (ux F1): sessions
// projected before can hold "[01;31m[Kghp_..." with the token. A message
// cleaned of bad characters is redacted again (ux F2): a NUL inside a token
// used to leave the whole token once dropped.
// 7: the output of a tool call that fetches a secret (op read, vault kv
// get, cat of a token file) is replaced by a placeholder (ux F22).
// 8: OSC sequences (terminal hyperlinks, titles) dropped whole.
// 9: redaction's false positives of 8300181 and 8f8979a's rules mended (ux
// F26: pasted output ends at a fence, prompt or heading; values stop at
// quotes and punctuation), so sessions projected under 8 are projected again.
const Version = 9

// DefaultMaxMessageBytes is the most of one message's body a projection
// keeps; the rest is cut with a marker (Projection.Cut counts it).
const DefaultMaxMessageBytes = 1 << 20

// Reasons counted in Projection.Cut: codes of the root package
// (cairn.ReasonText gives each one's sentence).
const (
	CutMessage = cairn.CutMessage
	CutChars   = cairn.CutBadCharacters
)

// DefaultToolOutputChars is the tool output budget per call.
const DefaultToolOutputChars = 400

// Heading separators and labels.
const (
	sep            = " — "
	labelUser      = "User"
	labelAssistant = "Assistant"
	labelSummary   = "Summary"
	summarySpeaker = "generated"
)

// Options tune a projection. Zero values mean defaults.
type Options struct {
	AgentName       string         // assistant speaker; default the source id
	Location        *time.Location // zone timestamps are shown in; default UTC
	ToolOutputChars int            // tool output budget; 0 means DefaultToolOutputChars, negative omits output
}

func (o Options) loc() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
}

// Projection is one session rendered as Markdown.
type Projection struct {
	Path  string // relative, slash-separated (see Path)
	Text  string
	Hash  string // sha256 hex of Text
	Spans []Span
	Cut   map[string]int // reason → messages changed to fit (CutMessage, CutChars)
}

// Span locates one message in a projection. Offsets are UTF-8 bytes; lines
// are 1-based and inclusive.
type Span struct {
	Type      string `json:"type"` // "user", "assistant" or "summary"
	Name      string `json:"name"`
	Timestamp string `json:"timestamp"`
	Start     int    `json:"start"`     // the heading
	BodyStart int    `json:"bodyStart"` // the text after the heading
	End       int    `json:"end"`       // exclusive
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
}

// Project renders s. It returns ok false when the session has no message
// with text or tool calls (such sessions are not projected).
func Project(s *cairn.Session, o Options) (Projection, bool) {
	var b strings.Builder
	b.WriteString("# Transcript\n\n")
	var spans []Span
	var cuts map[string]int
	count := func(reason string) {
		if cuts == nil {
			cuts = map[string]int{}
		}
		cuts[reason]++
	}
	for _, m := range s.Messages {
		body, bad := cleanText(renderBody(m, o))
		if bad {
			// The session was redacted before it was projected; dropping a
			// control byte can join a token it split (ghp_…K\x00l2…), so
			// the cleaned text is redacted again (ux F2).
			body, _ = redact.Redact(body)
		}
		if strings.TrimSpace(body) == "" {
			continue
		}
		if len(body) > DefaultMaxMessageBytes {
			body = cutBytes(body, DefaultMaxMessageBytes) + "\n\n[… message cut at 1 MiB]"
			count(CutMessage)
		}
		typ, label, name := heading(s, m, o)
		name, badName := cleanText(name)
		if badName {
			name, _ = redact.Redact(name)
		}
		if bad || badName {
			count(CutChars)
		}
		ts := formatTime(m.Time, o.loc())
		sp := Span{Type: typ, Name: name, Timestamp: ts, Start: b.Len()}
		b.WriteString("## " + label + sep + name)
		if ts != "" {
			b.WriteString(sep + ts)
		}
		b.WriteString("\n\n")
		sp.BodyStart = b.Len()
		b.WriteString(body)
		b.WriteString("\n\n")
		sp.End = b.Len()
		spans = append(spans, sp)
	}
	if len(spans) == 0 {
		return Projection{}, false
	}
	text := strings.TrimRight(b.String(), "\n") + "\n"
	if last := &spans[len(spans)-1]; last.End > len(text) {
		last.End = len(text)
	}
	setLines(text, spans)
	sum := sha256.Sum256([]byte(text))
	return Projection{Path: Path(s), Text: text, Hash: hex.EncodeToString(sum[:]), Spans: spans, Cut: cuts}, true
}

func heading(s *cairn.Session, m cairn.Message, o Options) (typ, label, name string) {
	switch {
	case m.Kind == cairn.KindSummary:
		return "summary", labelSummary, summarySpeaker
	case m.Role == cairn.RoleAssistant:
		name = o.AgentName
		if name == "" {
			name = s.Source
		}
		return "assistant", labelAssistant, oneLine(name)
	default:
		name = m.Speaker
		if strings.TrimSpace(name) == "" {
			name = labelUser
		}
		return "user", labelUser, oneLine(name)
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, sep, " - ")
}

// renderBody is the message text, a command marker and the tool lines.
func renderBody(m cairn.Message, o Options) string {
	text := strings.TrimSpace(strings.ReplaceAll(m.Text, "\r\n", "\n"))
	text = escapeHeadings(text)
	if m.Kind == cairn.KindCommand && text != "" {
		text = "Command: " + text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, t := range m.Tools {
		if b.Len() > 0 {
			b.WriteString("\n")
			if !strings.HasPrefix(lastLine(b.String()), "- tool ") && !strings.HasPrefix(lastLine(b.String()), "  > ") {
				b.WriteString("\n")
			}
		}
		b.WriteString(toolLine(t, o))
	}
	return b.String()
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(strings.TrimRight(s, "\n"), '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// escapeHeadings indents lines that would read as a message heading, so a
// transcript quoting "## User — …" cannot forge a message boundary.
func escapeHeadings(text string) string {
	if !strings.Contains(text, "## ") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if isMessageHeading(l) {
			lines[i] = " " + l
		}
	}
	return strings.Join(lines, "\n")
}

func toolLine(t cairn.ToolCall, o Options) string {
	line := "- tool " + oneLine(orDefault(t.Name, "unknown"))
	if in := oneLine(t.Input); in != "" {
		line += ": " + cut(in, 200)
	}
	if t.IsError {
		line += " (error)"
	}
	budget := o.ToolOutputChars
	if budget == 0 {
		budget = DefaultToolOutputChars
	}
	if out := oneLine(t.Output); out != "" && budget > 0 {
		if redact.FetchesSecret(t.Input) {
			// op read, vault kv get, cat ~/.config/cairn/token, ...: the
			// output is the secret itself, bare, so no rule sees it (ux F22)
			out = redact.Placeholder(redact.KindCommandOutput)
		}
		line += "\n  > " + cut(out, budget)
	}
	return line
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

// cut shortens s to n characters, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + " …"
		}
		i++
	}
	return s
}

// formatTime renders t as "YYYY-MM-DD HH:MM:SS ZONE" in loc. A message
// without a timestamp of its own gets none: not the session start, not the
// transcript's mtime (a copy's mtime is the time of the copy), so its
// heading is "## <Label> — <name>" and its span's Timestamp is empty.
func formatTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04:05 MST")
}

func setLines(text string, spans []Span) {
	line, off := 1, 0
	advance := func(to int) {
		line += strings.Count(text[off:to], "\n")
		off = to
	}
	for i := range spans {
		advance(spans[i].Start)
		spans[i].StartLine = line
		end := spans[i].End
		// the span ends with its blank separator line; the last content line
		// is the one before the trailing newlines.
		content := strings.TrimRight(text[spans[i].Start:end], "\n")
		spans[i].EndLine = line + strings.Count(content, "\n")
	}
}

// Describe returns a one-line summary of a projection for logs.
func (p Projection) Describe() string {
	return fmt.Sprintf("%s (%d messages, %d bytes)", p.Path, len(p.Spans), len(p.Text))
}
