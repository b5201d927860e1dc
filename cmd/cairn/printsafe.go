package main

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text output shows what the index holds, and a file name or a note's
// text is anyone's to choose: a shared folder or a cloned repository can
// hold "evil\x1b]0;pwned\a.md" or a line that clears the screen. The text
// formats therefore print control characters visibly, as Go quotes them
// (\x1b, \a, \n, \u009b), and bytes that are not UTF-8 as \xNN, the way ls
// -b shows names; JSON escapes them already, and get prints a document's
// own text raw (it is the document, asked for).

// visible renders the control characters of a one-line value (a path, a
// name, a reason) visibly; a tab and a newline too, so the value stays
// one field of one line.
func visible(s string) string { return quoteControls(s, false) }

// visibleText renders the control characters of a line of text (a snippet
// line, a message body line) visibly, keeping its tabs.
func visibleText(s string) string { return quoteControls(s, true) }

func quoteControls(s string, keepTabs bool) string {
	if !needsQuote(s, keepTabs) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])>>4, 16) + strconv.FormatUint(uint64(s[i])&15, 16))
		case unicode.IsControl(r) && !(keepTabs && r == '\t'):
			q := strconv.QuoteRune(r) // '\x1b', '\n', '\u0085'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsQuote reports whether s holds anything quoteControls changes.
func needsQuote(s string, keepTabs bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unicode.IsControl(r) && !(keepTabs && r == '\t') {
			return true
		}
		i += n
	}
	return false
}
