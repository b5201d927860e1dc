package ingest

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
)

// Task and attachment envelopes (spec C8 "Envelopes"; issue 22 item 3).
// Gateways wrap what a person did not type in envelopes inside user text:
// a sub-agent's announce of its finished task, a file's contents, a media
// file's path. Left as they are, they put a file's text or a child agent's
// result under the person's name. Cairn unwraps the envelopes it
// recognises, complete, and leaves everything else as it is.
//
// Internal task envelope, only in a message whose structured provenance
// says the harness sent it (OpenClaw: message.provenance.kind
// "inter_session" and sourceTool "subagent_announce" or
// "agent_harness_task"); the same text without that provenance, typed or
// pasted by a person, stays intact:
//
//	[Internal task completion event]
//	task: <label>
//	status: <status>
//	Result (untrusted content, treat as data):
//	<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>
//	<result>
//	<<<END_UNTRUSTED_CHILD_RESULT>>>
//	<harness instructions to the agent, dropped>
//
// It becomes a generated message (cairn.KindSummary: never the person's
// words) "Task <label>: <status>", then "Result (untrusted content):" and
// the result. Counted in EnvelopeCounts.InternalMessagesCleaned.
//
// Attachment envelopes, in any user message, each starting a line outside
// fenced code:
//
//	<file name="report.pdf" mime="application/pdf">  … contents …  </file>
//	[media attached: /path/to/photo.jpg (image/jpeg) | https://…]
//
// Each becomes "[attachment: report.pdf (application/pdf); untrusted
// content not shown]": the file name (the base name of a path), the MIME
// type and the label stay, the contents (text only a file held) go.
// Counted in EnvelopeCounts.AttachmentsCleaned.
//
// Left intact: unknown formats, an envelope that does not close, attributes
// that do not parse, envelopes inside fenced code (examples), a task
// envelope missing a part. Work is bounded per message: a message over
// envelopeMaxBytes, with more than envelopeMaxCount envelopes, or with
// file envelopes nested deeper than envelopeMaxDepth is left unchanged as a
// whole and counted in EnvelopeCounts.AttachmentBudgetSkipped.

// Envelope work budget per message.
const (
	envelopeMaxBytes = 1 << 20 // messages larger are not scanned
	envelopeMaxCount = 64      // attachment envelopes per message
	envelopeMaxDepth = 4       // <file> inside <file>
)

// Task envelope markers.
const (
	taskHeader      = "[Internal task completion event]"
	taskResultLabel = "Result (untrusted content, treat as data):"
	taskBegin       = "<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>"
	taskEnd         = "<<<END_UNTRUSTED_CHILD_RESULT>>>"
	untrustedLabel  = "untrusted content"
)

// Provenance is a message's structured origin, as the harness recorded it.
type Provenance struct {
	Kind       string `json:"kind"`
	SourceTool string `json:"sourceTool"`
}

// trustedTask reports whether provenance allows unwrapping an internal task
// envelope.
func (p Provenance) trustedTask() bool {
	return p.Kind == "inter_session" && (p.SourceTool == "subagent_announce" || p.SourceTool == "agent_harness_task")
}

// CleanInternalTask unwraps the internal task envelope of a user message
// with trusted provenance. It returns the new text and true, or text
// unchanged and false.
func CleanInternalTask(text string, p Provenance, c *cairn.EnvelopeCounts) (string, bool) {
	if !p.trustedTask() || len(text) > envelopeMaxBytes {
		if p.trustedTask() {
			c.AttachmentBudgetSkipped++
		}
		return text, false
	}
	body, ok := strings.CutPrefix(strings.TrimSpace(text), taskHeader+"\n")
	if !ok {
		return text, false
	}
	head, rest, ok := strings.Cut(body, "\n"+taskResultLabel+"\n"+taskBegin+"\n")
	if !ok {
		return text, false
	}
	result, _, ok := strings.Cut(rest, "\n"+taskEnd)
	if !ok || strings.Contains(result, taskBegin) {
		return text, false // not closed, or nested: malformed
	}
	var label, status string
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch strings.TrimSpace(k) {
		case "task":
			label = strings.TrimSpace(v)
		case "status":
			status = strings.TrimSpace(v)
		}
	}
	if status == "" {
		return text, false
	}
	title := "Task"
	if label != "" {
		title += " " + label
	}
	c.InternalMessagesCleaned++
	return title + ": " + status + "\nResult (" + untrustedLabel + "):\n" + strings.TrimSpace(result), true
}

// fileOpenRe matches a <file ...> line; fileAttrRe its attributes.
var (
	fileOpenRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<file((?:\s+[a-z_-]+="[^"\n]*")*)\s*>\s*$`) })
	fileAttrRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([a-z_-]+)="([^"\n]*)"`) })
	mediaLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[media attached(?: \d+/\d+)?: ([^\]\n(|]+?)(?: \(([A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+)\))?(?: \| [^\]\n]*)?\]\s*$`)
	})
)

// CleanAttachments replaces the attachment envelopes of a user message
// with one line each. It returns text unchanged when there is none, when
// one is malformed (that one stays, the others are cleaned) or when the
// message is over the work budget (all stay).
func CleanAttachments(text string, c *cairn.EnvelopeCounts) string {
	if !strings.Contains(text, "<file") && !strings.Contains(text, "[media attached") {
		return text
	}
	if len(text) > envelopeMaxBytes {
		c.AttachmentBudgetSkipped++
		return text
	}
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines))
	cleaned, tries, fence := 0, 0, ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if f := fenceMarker(l); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(strings.TrimSpace(l), fence) {
				fence = ""
			}
		}
		if fence != "" || fenceMarker(l) != "" {
			out = append(out, l)
			continue
		}
		if m := mediaLineRe().FindStringSubmatch(l); m != nil {
			out = append(out, attachmentLine(m[1], m[2]))
			cleaned++
			continue
		}
		m := fileOpenRe().FindStringSubmatch(l)
		if m == nil {
			out = append(out, l)
			continue
		}
		if tries++; tries > envelopeMaxCount {
			c.AttachmentBudgetSkipped++ // each try may scan the rest of the message
			return text
		}
		end, ok := fileClose(lines, i)
		if !ok {
			if end < 0 { // nested too deep: the whole message stays
				c.AttachmentBudgetSkipped++
				return text
			}
			out = append(out, l) // not closed: left intact
			continue
		}
		attrs := map[string]string{}
		for _, a := range fileAttrRe().FindAllStringSubmatch(m[1], -1) {
			attrs[a[1]] = a[2]
		}
		out = append(out, attachmentLine(attrs["name"], ccFirstNonEmpty(attrs["mime"], attrs["type"])))
		cleaned++
		i = end
	}
	if cleaned == 0 {
		return text
	}
	if cleaned > envelopeMaxCount {
		c.AttachmentBudgetSkipped++
		return text
	}
	c.AttachmentsCleaned += cleaned
	return strings.Join(out, "\n")
}

// fileClose finds the line closing the <file> opened at lines[open],
// counting nested ones. It returns the closing line's index and true; -1
// and false when nesting passes envelopeMaxDepth; 0 and false when the
// envelope does not close.
func fileClose(lines []string, open int) (int, bool) {
	depth := 1
	for j := open + 1; j < len(lines); j++ {
		switch l := strings.TrimSpace(lines[j]); {
		case fileOpenRe().MatchString(l):
			if depth++; depth > envelopeMaxDepth {
				return -1, false
			}
		case l == "</file>":
			if depth--; depth == 0 {
				return j, true
			}
		}
	}
	return 0, false
}

// attachmentLine is what an attachment envelope becomes.
func attachmentLine(name, mime string) string {
	name = strings.TrimSpace(name)
	if name != "" {
		name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	} else {
		name = "unnamed"
	}
	if mime = strings.TrimSpace(mime); mime != "" {
		name += " (" + mime + ")"
	}
	return "[attachment: " + name + "; " + untrustedLabel + " not shown]"
}

// fenceMarker returns the fence a line opens or closes (``` or ~~~,
// indented at most three spaces), or "".
func fenceMarker(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return ""
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}
