package transcript

import "strings"

// isMessageHeading reports whether line is a projected message heading.
func isMessageHeading(line string) bool {
	_, ok := parseHeading(line)
	return ok
}

// parseHeading reads "## <Label> — <name> — <timestamp>", or
// "## <Label> — <name>" for a message without a timestamp.
func parseHeading(line string) (Span, bool) {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "## ")
	if !ok {
		return Span{}, false
	}
	parts := strings.Split(rest, sep)
	if len(parts) == 2 {
		parts = append(parts, "")
	}
	if len(parts) != 3 {
		return Span{}, false
	}
	var typ string
	switch parts[0] {
	case labelUser:
		typ = "user"
	case labelAssistant:
		typ = "assistant"
	case labelSummary:
		typ = "summary"
	default:
		return Span{}, false
	}
	return Span{Type: typ, Name: parts[1], Timestamp: parts[2]}, true
}

// Messages parses a projection back into message spans, skipping headings
// inside fenced code. Text before the first heading (the "# Transcript"
// title) belongs to no message.
func Messages(text string) []Span {
	var spans []Span
	fence := ""
	line := 0
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line++
		l := strings.TrimRight(text[off:next], "\r\n")
		if f := fenceMarker(l); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(strings.TrimSpace(l), fence):
				fence = ""
			}
		} else if fence == "" {
			if sp, ok := parseHeading(l); ok {
				if n := len(spans); n > 0 {
					closeSpan(text, &spans[n-1], off)
				}
				sp.Start, sp.BodyStart, sp.StartLine = off, next, line
				if sp.BodyStart < len(text) && text[sp.BodyStart] == '\n' {
					sp.BodyStart++
				}
				spans = append(spans, sp)
			}
		}
		off = next
	}
	if n := len(spans); n > 0 {
		closeSpan(text, &spans[n-1], len(text))
	}
	return spans
}

func closeSpan(text string, sp *Span, end int) {
	sp.End = end
	sp.BodyStart = min(sp.BodyStart, end)
	content := strings.TrimRight(text[sp.Start:end], "\r\n")
	sp.EndLine = sp.StartLine + strings.Count(content, "\n")
}

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

// Body returns the message text of a span.
func (sp Span) Body(text string) string {
	return strings.TrimSpace(text[sp.BodyStart:sp.End])
}
