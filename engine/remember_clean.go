package engine

import (
	"strings"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// cleanRemember returns a copy of req whose text fields hold no control
// characters: an ANSI CSI sequence (ESC '[' ... final byte, the colour
// codes a terminal's output carries) is dropped whole, every other C0
// control but tab and newline is dropped, CR LF and a lone CR become LF
// and invalid UTF-8 becomes U+FFFD. It runs before consolidate.Told redacts the
// fields, so a token behind a colour code is seen whole, and the memory
// file, memory.db and the index never keep a raw ESC byte (ux F1
// addendum: memory_remember stored "use \x1b[1mghp_…" as written). The
// rules are those of a session's projection (transcript/clean.go), but
// for a lone CR, which a projection drops: in a memory's one-line fields
// it would glue two words together.
func cleanRemember(req *cairn.RememberRequest) *cairn.RememberRequest {
	c := *req
	for _, f := range []*string{&c.Kind, &c.Title, &c.Summary, &c.Body, &c.AppliesWhen, &c.Scope, &c.Confidence,
		&c.About, &c.Phase, &c.EventDate, &c.StartDate, &c.EndDate, &c.Agent} {
		*f = cleanField(*f)
	}
	c.Cues = cleanFields(req.Cues)
	c.Concepts = cleanFields(req.Concepts)
	return &c
}

func cleanFields(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = cleanField(s)
	}
	return out
}

// cleanField is one field of cleanRemember.
func cleanField(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' }) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x1b:
			size = csiSize(s[i:])
		case r == '\r': // a lone one (CR LF went above): a line break, so the words stay apart
			b.WriteByte('\n')
		case r < 0x20 && r != '\t' && r != '\n':
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// csiSize is the length of the CSI sequence s starts with (ESC '[',
// parameter bytes 0x30-0x3f, intermediate bytes 0x20-0x2f, a final byte
// 0x40-0x7e; 64 bytes at most), or 1 for an ESC that starts none.
func csiSize(s string) int {
	if len(s) < 2 || s[1] != '[' {
		return 1
	}
	j := 2
	for j < len(s) && j < 64 && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && j < 64 && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		return j + 1
	}
	return 1
}
