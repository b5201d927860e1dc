package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
)

// Text output shows what the index holds, and a file name or a note's
// text is anyone's to choose: a shared folder or a cloned repository can
// hold "evil\x1b]0;pwned\a.md" or a line that clears the screen. The text
// formats therefore print control characters visibly, as Go quotes them
// (\x1b, \a, \n, \u009b), and bytes that are not UTF-8 as \xNN, the way ls
// -b shows names; JSON escapes them already. get prints a document's own
// text raw into a pipe or a file (it is the document, asked for) and, on a
// terminal, line by line as visibleText does. Bidirectional controls
// (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) are shown too: they are no
// control characters to Unicode, but reorder what the terminal shows
// ("invoice\u202edm.exe.md").

// visible renders the control characters of a one-line value (a path, a
// name, a reason) visibly; a tab and a newline too, so the value stays
// one field of one line.
func visible(s string) string { return quoteControls(s, false) }

// visibleText renders the control characters of a line of text (a snippet
// line, a message body line) visibly, keeping its tabs.
func visibleText(s string) string { return quoteControls(s, true) }

// visibleLines is text with visibleText applied to each line, its line
// breaks kept.
func visibleLines(text string) string {
	if !needsQuote(strings.ReplaceAll(text, "\n", ""), true) {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		lines[i] = visibleText(body)
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}

// isTerminal reports whether w is a terminal (a variable: tests set it).
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// shown reports whether r is printed as itself: not a control character,
// not a bidirectional control.
func shown(r rune, keepTabs bool) bool {
	return !(unicode.IsControl(r) && !(keepTabs && r == '\t')) && !unicode.Is(unicode.Bidi_Control, r)
}

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
		case !shown(r, keepTabs):
			b.WriteString(quotedRune(r)) // \x1b, \n, \u0085, \u202e
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
		if r == utf8.RuneError && n == 1 || !shown(r, keepTabs) {
			return true
		}
		i += n
	}
	return false
}

// quotedRune is r as Go quotes it, without the quotes; a bidirectional
// control, which strconv prints as itself, as \uXXXX.
func quotedRune(r rune) string {
	q := strconv.QuoteRune(r)
	if q = q[1 : len(q)-1]; q == string(r) {
		return fmt.Sprintf(`\u%04x`, r)
	}
	return q
}
