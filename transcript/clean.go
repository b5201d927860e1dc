package transcript

import (
	"strings"
	"unicode/utf8"
)

// Bad characters (issue 13 item 6). A NUL byte makes the indexer take a
// document for binary and skip it whole, so one bad character in one
// message used to hide the whole session. The projection therefore drops
// C0 control characters other than tab and newline (NUL, escape, a lone
// carriage return, ...) and replaces invalid UTF-8 with U+FFFD, in the
// message that holds them alone.

// cleanText returns s without bad characters and whether it had any.
func cleanText(s string) (string, bool) {
	if utf8.ValidString(s) && !hasControl(s) {
		return s, false
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r < 0x20 && r != '\t' && r != '\n':
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), true
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' {
			return true
		}
	}
	return false
}

// cutBytes shortens s to at most n bytes, ending on a whole character.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
