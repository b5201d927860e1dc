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
// token there used to read as part of a word; ux F1). So is an OSC
// sequence (ESC ']' ... BEL or ESC '\\': a terminal hyperlink's target,
// a window title), whose text would otherwise be left glued to the words
// it wraps.

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
			size = max(csiLen(s[i:]), oscLen(s[i:]))
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

// oscLen is the length of the OSC sequence at the start of s (ESC ']', then
// printable bytes up to BEL or ESC '\\'), or 1 when s does not start with
// a whole one within 1 KiB.
func oscLen(s string) int {
	if len(s) < 2 || s[1] != ']' {
		return 1
	}
	for j := 2; j < len(s) && j < 1<<10; j++ {
		switch c := s[j]; {
		case c == 0x07:
			return j + 1
		case c == 0x1b:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			return 1
		case c < 0x20:
			return 1
		}
	}
	return 1
}
