package chunk

import (
	"strings"
	"unicode/utf8"
)

// Record labels that start a hard boundary.
var labels = [...]string{"Decision:", "Preference:", "Task:", "Outcome:", "Observation:"}

// isMarker reports whether the line starts a hard boundary of its own (other
// than headings and rules): a record label, a session or conversation header,
// or a timestamp. Only lines starting in column 0 count.
func isMarker(l string) bool { return markerLen(l) > 0 }

// markerLen returns the length of the hard-boundary marker that starts the
// line, or 0.
func markerLen(l string) int {
	if l == "" {
		return 0
	}
	switch c := l[0]; {
	case c >= '0' && c <= '9':
		return dateTimeLen(l)
	case c == '[':
		return bracketTimeLen(l)
	case c == 'S':
		return sessionLen(l, "Session")
	case c == 'C':
		return sessionLen(l, "Conversation")
	case c == 'D' || c == 'P' || c == 'T' || c == 'O':
		for _, p := range labels {
			if strings.HasPrefix(l, p) {
				return len(p)
			}
		}
	}
	return 0
}

// sessionLen matches word, then optional spaces and either "ID", "#" or a
// number, ending in ':' or '#': "Session:", "Session 3:", "Session ID: x",
// "Conversation #2", "Conversation ID#7". "Session management: ..." does not
// match.
func sessionLen(l, word string) int {
	if !strings.HasPrefix(l, word) {
		return 0
	}
	i := skipBlanks(l, len(word))
	if strings.HasPrefix(l[i:], "ID") {
		i = skipBlanks(l, i+2)
	} else if d := digits(l[i:]); d > 0 {
		i = skipBlanks(l, i+d)
	}
	if i < len(l) && (l[i] == ':' || l[i] == '#') {
		return i + 1
	}
	return 0
}

// skipBlanks returns the index of the first byte at or after i in l that is
// not a space or tab.
func skipBlanks(l string, i int) int {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

// digits returns the number of leading ASCII digits of s.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// dateTimeLen matches "YYYY-MM-DD HH:MM" or "YYYY-MM-DDTHH:MM", optionally
// with ":SS", fractional seconds and 'Z', not followed by a letter, digit,
// '.', '_' or '/' (so "2024-05-01 10:30.md" is a file name, not a timestamp).
func dateTimeLen(l string) int {
	if len(l) < 16 || digits(l) != 4 || l[4] != '-' || digits(l[5:]) != 2 || l[7] != '-' ||
		digits(l[8:]) != 2 || (l[10] != ' ' && l[10] != 'T') {
		return 0
	}
	n := clockLen(l[11:])
	if n == 0 {
		return 0
	}
	m, ok := timeSuffixLen(l[11+n:])
	if !ok {
		return 0
	}
	return 11 + n + m
}

// bracketTimeLen matches "[HH:MM]" or "[HH:MM:SS]".
func bracketTimeLen(l string) int {
	n := clockLen(l[1:])
	if n == 0 || 1+n >= len(l) || l[1+n] != ']' {
		return 0
	}
	return n + 2
}

// clockLen matches "HH:MM" or "HH:MM:SS" at the start of s.
func clockLen(s string) int {
	if len(s) < 5 || digits(s) != 2 || s[2] != ':' || digits(s[3:]) != 2 {
		return 0
	}
	if len(s) >= 8 && s[5] == ':' && digits(s[6:]) == 2 {
		return 8
	}
	return 5
}

// timeSuffixLen returns the length of the fractional seconds and 'Z' that
// may follow a clock; ok is false when a letter, digit, '.', '_', '/' or '\'
// follows instead.
func timeSuffixLen(s string) (n int, ok bool) {
	if len(s) > 1 && s[0] == '.' && digits(s[1:]) > 0 {
		n = 1 + digits(s[1:])
	}
	if n < len(s) && s[n] == 'Z' {
		n++
	}
	if n < len(s) {
		switch c := s[n]; {
		case c < utf8.RuneSelf && asciiClass[c] == classWord, c == '.', c == '/', c == '\\':
			return 0, false
		}
	}
	return n, true
}
