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
// message that holds them alone. An ANSI CSI sequence (ESC '[' ... final
// byte: the colour codes of grep --color, gh, ls) is dropped whole, not
// only its ESC, so "[01;31m[K" is not left glued to the text after it (a
// token there used to read as part of a word; ux F1).

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
		case r == 0x1b:
			size = csiLen(s[i:])
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

// csiLen is the length of the CSI sequence at the start of s (ESC '[',
// parameter bytes 0x30-0x3f, intermediate bytes 0x20-0x2f, a final byte
// 0x40-0x7e), or 1 (the ESC alone) when s does not start with a whole one.
// A sequence is at most 64 bytes; a longer run is not taken for one.
func csiLen(s string) int {
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
