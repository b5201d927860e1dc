package search

import (
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
func Snippet(text string, words []string) string {
	lines := strings.Split(strings.TrimRight(text, "\r\n"), "\n")
	best, bestN := 0, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ll := strings.ToLower(l)
		n := 0
		for _, w := range words {
			if strings.Contains(ll, w) {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	start := best
	if start > 0 && len(lines[start-1]) < 120 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	s := strings.TrimSpace(strings.ReplaceAll(strings.Join(lines[start:], "\n"), "\r", ""))
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
