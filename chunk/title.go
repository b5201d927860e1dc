package chunk

import "strings"

// Title returns a document's title: the title value of a YAML front matter
// block at the very start (surrounding quotes removed), else the text of the
// first ATX heading outside fenced code, else "".
func Title(text string) string {
	s := &scanner{text: text}
	i := 0
	if end := frontMatterEnd(text); end > 0 {
		if t := frontMatterTitle(s, end); t != "" {
			return t
		}
		i = end
	}
	var fc byte
	var fn int
	for i < len(text) {
		next, l := s.line(i)
		i = next
		switch {
		case fn > 0:
			if fenceClose(l, fc, fn) {
				fn = 0
			}
		case headingLevel(l) > 0:
			if t := headingText(l); t != "" {
				return t
			}
		default:
			if c, n, ok := fenceOpen(l); ok {
				fc, fn = c, n
			}
		}
	}
	return ""
}

// frontMatterTitle returns the unquoted value of the top-level "title:" key
// of the front matter that ends at end, or "".
func frontMatterTitle(s *scanner, end int) string {
	i, _ := s.line(0)
	for i < end {
		next, l := s.line(i)
		i = next
		key, val, ok := strings.Cut(l, ":")
		if !ok || strings.TrimRight(key, " \t") != "title" {
			continue
		}
		return unquote(strings.TrimSpace(val))
	}
	return ""
}

// unquote removes one pair of matching single or double quotes.
func unquote(v string) string {
	if n := len(v); n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n-1] == v[0] {
		return strings.TrimSpace(v[1 : n-1])
	}
	return v
}
