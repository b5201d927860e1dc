package search

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// SnippetChars caps a snippet's length in bytes.
const SnippetChars = 400

func (q Query) highlightWords() []string {
	var out []string
	for _, t := range q.Terms {
		for _, w := range t.Words {
			out = append(out, stemPrefix(w))
		}
		if p := camelParts(t.Text); len(p) > 1 {
			for _, w := range p {
				out = append(out, stemPrefix(w))
			}
		}
	}
	return out
}

// stemPrefix approximates the porter stem with a prefix, enough to find
// the line a match is on.
func stemPrefix(w string) string {
	if len(w) > 5 {
		return w[:len(w)-2]
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
	return cutSnippet(strings.TrimSpace(s))
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
