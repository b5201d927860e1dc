package chunk

import "strings"

// Line classification. Every function takes a line's content: the bytes
// before its '\n', with one trailing '\r' removed.

// isBlank reports whether the line holds only spaces, tabs, '\v' or '\f'.
func isBlank(l string) bool {
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ', '\t', '\v', '\f', '\r':
		default:
			return false
		}
	}
	return true
}

// stripIndent removes up to 3 leading spaces, the indentation CommonMark
// allows before a block marker. ok is false when 4 or more spaces or a tab
// lead the line (an indented code line, never a marker).
func stripIndent(l string) (rest string, ok bool) {
	i := 0
	for i < 3 && i < len(l) && l[i] == ' ' {
		i++
	}
	if i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		return l, false
	}
	return l[i:], true
}

// headingLevel returns the level (1 to 6) of an ATX heading line
// (` {0,3}#{1,6}(\s|$)`), or 0.
func headingLevel(l string) int {
	l, ok := stripIndent(l)
	if !ok || len(l) == 0 || l[0] != '#' {
		return 0
	}
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n > 6 || (n < len(l) && !isSpaceByte(l[n])) {
		return 0
	}
	return n
}

// headingText returns the text of an ATX heading line without its opening
// and closing '#' sequences.
func headingText(l string) string {
	l, _ = stripIndent(l)
	l = strings.TrimLeft(l, "#")
	l = strings.TrimSpace(l)
	if t := strings.TrimRight(l, "#"); t == "" || isSpaceByte(t[len(t)-1]) {
		l = strings.TrimSpace(t)
	}
	return l
}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\v' || b == '\f' || b == '\r'
}

// isRule reports whether the line is a thematic break: 3 or more of the same
// '-', '*' or '_', with optional spaces or tabs between.
func isRule(l string) bool {
	l, ok := stripIndent(l)
	if !ok || len(l) < 3 {
		return false
	}
	c := l[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// fenceOpen reports whether the line opens a fenced code block, returning the
// fence character and its length. A backtick fence's info string may not
// contain a backtick.
func fenceOpen(l string) (c byte, n int, ok bool) {
	l, ok = stripIndent(l)
	if !ok || len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return 0, 0, false
	}
	c = l[0]
	for n < len(l) && l[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(l[n:], '`') >= 0) {
		return 0, 0, false
	}
	return c, n, true
}

// fenceClose reports whether the line closes a fence of n characters c: at
// least n of c and nothing after but whitespace. Any indentation is allowed so
// that fences nested in list items close.
func fenceClose(l string, c byte, n int) bool {
	l = strings.TrimLeft(l, " \t")
	m := 0
	for m < len(l) && l[m] == c {
		m++
	}
	return m >= n && isBlank(l[m:])
}

// listItem reports whether the line starts a list item at most 3 spaces in:
// '-', '*' or '+', or 1 to 9 digits and '.' or ')', followed by a space, a
// tab or the end of the line. first is true for a bullet or the number 1, the
// items CommonMark lets interrupt a paragraph.
func listItem(l string) (ok, first bool) {
	l, ok = stripIndent(l)
	if !ok || len(l) == 0 {
		return false, false
	}
	var n int
	switch l[0] {
	case '-', '*', '+':
		n, first = 1, true
	default:
		for n < len(l) && n < 10 && l[n] >= '0' && l[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 || n >= len(l) || (l[n] != '.' && l[n] != ')') {
			return false, false
		}
		first = l[:n] == "1"
		n++
	}
	if n < len(l) && l[n] != ' ' && l[n] != '\t' {
		return false, false
	}
	return true, first
}

// isDelimiterRow reports whether the line is a table delimiter row such as
// "|---|:--:|" or "--- | ---".
func isDelimiterRow(l string) bool {
	l = strings.TrimSpace(l)
	if l == "" || (l[0] != '|' && l[0] != '-' && l[0] != ':') {
		return false
	}
	pipe, dash := false, false
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '|':
			pipe = true
		case '-':
			dash = true
		case ':', ' ', '\t':
		default:
			return false
		}
	}
	return pipe && dash
}

// setextLevel returns 1 for a "===" underline, 2 for a "---" underline, else
// 0.
func setextLevel(l string) int {
	l, ok := stripIndent(l)
	l = strings.TrimRight(l, " \t")
	if !ok || l == "" || (l[0] != '=' && l[0] != '-') {
		return 0
	}
	if strings.Trim(l, l[:1]) != "" {
		return 0
	}
	if l[0] == '=' {
		return 1
	}
	return 2
}

// noiseChars are the characters a marker-only line consists of.
const noiseChars = "#>-*+_=|:.~`[] \t\v\f\r"

// isNoiseLine reports whether a line carries no searchable content: blank,
// only Markdown markers (rules, bare list or quote markers, table delimiter
// rows, empty headings), a bare hard-boundary marker ("Session 3:",
// "[10:30]"), a bare code fence with an optional info string, or a lone HTML
// comment such as a generated marker.
func isNoiseLine(l string) bool {
	i := 0
	for i < len(l) && strings.IndexByte(noiseChars, l[i]) >= 0 {
		i++
	}
	if i == len(l) {
		return true
	}
	if n := markerLen(l); n > 0 && isNoiseLine(l[n:]) {
		return true
	}
	t := strings.TrimSpace(l)
	if _, _, ok := fenceOpen(t); ok && strings.IndexByte(strings.TrimSpace(strings.Trim(t, "`~")), ' ') < 0 {
		return true
	}
	return strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->") && !strings.Contains(t[4:len(t)-3], "-->")
}

// isNoise reports whether every line of a chunk's text is a noise line.
func isNoise(s string) bool {
	for s != "" {
		l := s
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			l, s = s[:j], s[j+1:]
		} else {
			s = ""
		}
		if !isNoiseLine(l) {
			return false
		}
	}
	return true
}
