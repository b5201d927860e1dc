package search

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// SnippetChars caps a snippet's length in bytes.
const SnippetChars = 400

// highlightWords lists the roots of the query's words and of the parts of
// its identifiers, each once: Snippet counts how many of them a line holds,
// and a root listed twice (a phrase's words are also its parts) would
// count twice.
func (q Query) highlightWords() []string {
	var out []string
	add := func(w string) {
		if r := stemRoot(w); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for _, t := range q.Terms {
		for _, w := range t.Words {
			add(w)
		}
		if p := camelParts(t.Text); len(p) > 1 {
			for _, w := range p {
				add(w)
			}
		}
	}
	return out
}

// HighlightWords returns the lowercase roots Snippet looks for in a hit's
// text for the query raw; none when it does not parse.
func HighlightWords(raw string) []string {
	q, err := Parse(raw)
	if err != nil {
		return nil
	}
	return q.highlightWords()
}

// stemRoot approximates the porter stem the index matches with, enough to
// find the line (and the place in it) a match is on: a common English
// inflection is cut off ("running" and "runs" find "run", "studies" finds
// "study"), then a doubled final consonant and a final "e" or "y", so that
// the root is a prefix of every inflected form. Roots keep at least three
// letters. Words are lowercase already.
func stemRoot(w string) string {
	for _, suf := range []string{"ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly"} {
		if r, ok := strings.CutSuffix(w, suf); ok && len(r) >= 3 {
			w = r
			break
		}
	}
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && strings.IndexByte("bdfgkmnprt", w[n-1]) >= 0 {
		w = w[:n-1] // runn -> run, stopp -> stop
	}
	if n := len(w); n >= 4 && (w[n-1] == 'e' || w[n-1] == 'y') {
		w = w[:n-1] // configure -> configur, study -> stud
	}
	return w
}

// Snippet picks the lines of text where the most query words occur and
// returns about SnippetChars bytes from there, starting one line earlier for
// context when that line is short.
//
// It runs for every hit of every search, so it walks the lines in place and
// lowercases ASCII lines into one reused buffer; it allocates only for lines
// with other letters and for the cut snippet. TestSnippetMatchesSplit checks
// it against the plain split-and-join form.
func Snippet(text string, words []string) string {
	text = strings.TrimRight(text, "\r\n")
	var low []byte
	bestN := -1              // the best line's word count
	startOff := 0            // where the snippet starts: the best line or the short one before it
	prevOff, prevLen := 0, 0 // the line before the current one
	lineNo, off := 0, 0
	for {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		l := text[off:end]
		if strings.TrimSpace(l) != "" {
			n := 0
			if ascii(l) {
				low = append(low[:0], l...)
				for i, c := range low {
					if 'A' <= c && c <= 'Z' {
						low[i] = c + 'a' - 'A'
					}
				}
				for _, w := range words {
					if bytes.Contains(low, []byte(w)) {
						n++
					}
				}
			} else {
				ll := strings.ToLower(l)
				for _, w := range words {
					if strings.Contains(ll, w) {
						n++
					}
				}
			}
			if n > bestN {
				bestN, startOff = n, off
				if lineNo > 0 && prevLen < 120 && strings.TrimSpace(text[prevOff:prevOff+prevLen]) != "" {
					startOff = prevOff
				}
			}
		}
		if end == len(text) {
			break
		}
		prevOff, prevLen = off, end-off
		off, lineNo = end+1, lineNo+1
	}
	s := text[startOff:]
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r", "")
	}
	return clip(strings.TrimSpace(s), words)
}

// clip cuts a snippet that starts at its best line to SnippetChars. When
// the first match lies past what the cut keeps (a long line, a paragraph
// written on one line), the snippet starts a little before the match
// instead, at a word boundary, marked "… ": a hit must show why it
// matched, not only the heading above it.
func clip(s string, words []string) string {
	if len(s) <= SnippetChars {
		return s
	}
	at, wlen := firstMatch(s, words)
	if at < 0 || at+wlen+SnippetChars/8 <= SnippetChars {
		return cutSnippet(s)
	}
	start := at - SnippetChars/4
	if i := strings.LastIndexAny(s[:start], " \n"); i >= 0 && i >= start-SnippetChars/8 {
		start = i + 1
	}
	for start < at && !utf8.RuneStart(s[start]) {
		start++
	}
	return "… " + cutSnippet(strings.TrimSpace(s[start:]))
}

// firstMatch returns the byte offset and length of the earliest occurrence
// in s of any of words (lowercase), ignoring case; -1 when none occurs or
// when lowercasing s changes its byte offsets (then no window is moved).
func firstMatch(s string, words []string) (int, int) {
	low := strings.ToLower(s)
	if len(low) != len(s) {
		return -1, 0
	}
	at, n := -1, 0
	for _, w := range words {
		if i := strings.Index(low, w); i >= 0 && (at < 0 || i < at) {
			at, n = i, len(w)
		}
	}
	return at, n
}

// cutSnippet shortens s to at most SnippetChars bytes, at a space or line
// end in its second half when there is one, and marks the cut.
func cutSnippet(s string) string {
	if len(s) <= SnippetChars {
		return s
	}
	cut := SnippetChars
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexAny(s[:cut], " \n"); i > SnippetChars/2 {
		cut = i
	}
	return strings.TrimSpace(s[:cut]) + " …"
}

// ascii reports whether s is all ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
