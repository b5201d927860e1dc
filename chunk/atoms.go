package chunk

import (
	"iter"
	"strings"
)

// atomKind is the structural kind of an atom.
type atomKind uint8

const (
	kindBlank   atomKind = iota // blank lines at the start of the text
	kindFront                   // YAML front matter at the very start
	kindHeading                 // ATX heading line or setext heading
	kindRule                    // thematic break
	kindFence                   // fenced code block, never split
	kindTable                   // pipe table, never split
	kindList                    // top-level list item with its continuations
	kindPara                    // prose paragraph
)

// atom is the smallest unit the packer moves: an exact slice text[pos:end]
// that ends at a line end (or the end of the text) and includes the blank
// lines that follow it.
type atom struct {
	pos, end int
	tokens   int
	kind     atomKind
	level    int  // heading level, 1 to 6
	hard     bool // a chunk must start here
	cont     bool // a piece of a line cut for the byte ceiling: starts a chunk
}

// splittable reports whether an oversized atom may be cut into pieces.
func (a atom) splittable() bool { return a.kind != kindFence && a.kind != kindTable }

// scanner cuts a text into atoms of at most maxBytes bytes and hands them
// to yield one by one: a list of them cost 48 bytes an atom, 240 MB for a
// note of 4.95M empty headings.
type scanner struct {
	text     string
	maxBytes int
	yield    func(atom) bool
	stopped  bool
}

// emit hands a to yield unless an earlier yield asked to stop.
func (s *scanner) emit(a atom) {
	if !s.stopped && !s.yield(a) {
		s.stopped = true
	}
}

const bom = "\ufeff"

// line returns the start of the line after the one at i and the content of
// the line at i: without its '\n', one trailing '\r' or a leading byte order
// mark.
func (s *scanner) line(i int) (next int, content string) {
	rest := s.text[i:]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		next, content = i+j+1, rest[:j]
	} else {
		next, content = len(s.text), rest
	}
	if n := len(content); n > 0 && content[n-1] == '\r' {
		content = content[:n-1]
	}
	if i == 0 {
		content = strings.TrimPrefix(content, bom)
	}
	return next, content
}

// scan yields the atoms of the text, in order, covering it exactly, none
// longer than maxBytes.
func scan(text string, maxBytes int) iter.Seq[atom] {
	return func(yield func(atom) bool) {
		s := &scanner{text: text, maxBytes: maxBytes, yield: yield}
		i := 0
		if end := frontMatterEnd(text); end > 0 {
			i = s.add(atom{pos: 0, end: end, kind: kindFront})
		}
		for i < len(text) && !s.stopped {
			i = s.add(s.block(i))
		}
	}
}

// add appends a, extended over the blank lines that follow it, and returns
// its end. An atom longer than maxBytes goes in pieces (see pieces).
func (s *scanner) add(a atom) int {
	a.end = s.skipBlank(a.end)
	if a.end-a.pos > s.maxBytes {
		s.pieces(a)
		return a.end
	}
	a.tokens = EstimateTokens(s.text[a.pos:a.end])
	s.emit(a)
	return a.end
}

// pieces appends atom a, longer than maxBytes, as pieces of at most
// maxBytes: each ends after the last line end that fits, or, in a line
// longer than that, after its last whitespace if that leaves the piece at
// least half full, else at the code point where the room runs out. The
// first piece is a as it starts (a hard boundary if a is one); the others
// continue it: a fence's or table's pieces stay code or table, a
// heading's or rule's are prose, and one that starts inside a word starts
// a chunk of its own (cont).
func (s *scanner) pieces(a atom) {
	for pos := a.pos; pos < a.end && !s.stopped; {
		end := a.end
		if end-pos > s.maxBytes {
			win := s.text[pos : pos+s.maxBytes]
			if j := strings.LastIndexByte(win, '\n'); j >= 0 {
				end = pos + j + 1
			} else if j := lastSpaceEnd(win); 2*j >= len(win) {
				end = pos + j
			} else {
				end = unitStart(s.text, pos+s.maxBytes)
			}
		}
		p := atom{pos: pos, end: end, kind: a.kind, level: a.level}
		if pos == a.pos {
			p.hard = a.hard
		} else {
			// A cut after whitespace keeps token counts additive, so the
			// piece may share a chunk; one inside a word starts its own.
			c, _ := classAt(s.text, unitStart(s.text, pos-1))
			p.cont = c != classSpace
			if a.kind == kindHeading || a.kind == kindRule || a.kind == kindFront {
				p.kind = kindPara
			}
		}
		p.tokens = EstimateTokens(s.text[pos:end])
		s.emit(p)
		pos = end
	}
}

// skipBlank returns the start of the first non-blank line at or after i.
func (s *scanner) skipBlank(i int) int {
	for i < len(s.text) {
		next, l := s.line(i)
		if !isBlank(l) {
			break
		}
		i = next
	}
	return i
}

// block returns the atom that starts with the line at i (its end before
// trailing blank lines).
func (s *scanner) block(i int) atom {
	next, l := s.line(i)
	a := atom{pos: i, end: next}
	switch {
	case isBlank(l):
		a.kind = kindBlank
	case headingLevel(l) > 0:
		a.kind, a.level, a.hard = kindHeading, headingLevel(l), true
	case isRule(l):
		a.kind, a.hard = kindRule, true
	default:
		if c, n, ok := fenceOpen(l); ok {
			a.kind, a.end = kindFence, s.fenceEnd(next, c, n)
		} else if ok, _ := listItem(l); ok {
			a.kind, a.end = kindList, s.listEnd(next)
		} else if s.tableStart(l, next) {
			a.kind, a.end = kindTable, s.tableEnd(next)
		} else {
			a = s.paragraph(i, next, l)
		}
	}
	return a
}

// fenceEnd returns the end of the fence opened before line i: after its
// closing line, or the end of the text when it is never closed.
func (s *scanner) fenceEnd(i int, c byte, n int) int {
	for i < len(s.text) {
		next, l := s.line(i)
		if fenceClose(l, c, n) {
			return next
		}
		i = next
	}
	return len(s.text)
}

// tableStart reports whether the line at i (content l, next line at next)
// starts a table: it starts with '|', or it holds a '|' and the next line is
// a delimiter row.
func (s *scanner) tableStart(l string, next int) bool {
	if t, ok := stripIndent(l); ok && t != "" && t[0] == '|' {
		return true
	}
	if strings.IndexByte(l, '|') < 0 || next >= len(s.text) {
		return false
	}
	_, nl := s.line(next)
	return isDelimiterRow(nl)
}

// tableEnd returns the end of the table rows from line i on: non-blank lines
// holding a '|'.
func (s *scanner) tableEnd(i int) int {
	for i < len(s.text) {
		next, l := s.line(i)
		if isBlank(l) || strings.IndexByte(l, '|') < 0 {
			break
		}
		i = next
	}
	return i
}

// listEnd returns the end of the list item whose first line ends before i.
// Indented lines continue it (nested items, code, more paragraphs; after a
// blank line they need 2 spaces or a tab), and so do unindented lines
// directly after content that start no other block (lazy continuation). A
// fence opened in a continuation runs to its closer whatever its indentation.
func (s *scanner) listEnd(i int) int {
	end, blank := i, false
	for i < len(s.text) {
		next, l := s.line(i)
		if isBlank(l) {
			blank, i = true, next
			continue
		}
		ind := indentWidth(l)
		switch {
		case ind >= 2 || (ind == 1 && !blank):
			if c, n, ok := fenceOpen(strings.TrimLeft(l, " \t")); ok {
				next = s.fenceEnd(next, c, n)
			}
		case ind == 0 && !blank && !s.interrupts(l, next):
			if ok, _ := listItem(l); ok {
				return end
			}
		default:
			return end
		}
		end, blank, i = next, false, next
	}
	return end
}

// indentWidth returns the width of the line's leading spaces and tabs, a tab
// counting 4.
func indentWidth(l string) int {
	w := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w
		}
	}
	return w
}

// interrupts reports whether the line l (next line at next) ends a paragraph
// by starting another block: a heading, rule, fence, bullet or "1." list
// item, table or hard-boundary marker.
func (s *scanner) interrupts(l string, next int) bool {
	if headingLevel(l) > 0 || isRule(l) || isMarker(l) {
		return true
	}
	if _, _, ok := fenceOpen(l); ok {
		return true
	}
	if ok, first := listItem(l); ok && first {
		return true
	}
	return s.tableStart(l, next)
}

// paragraph returns the prose atom starting with line l at i (next line at
// next): it runs until a blank line or a line that interrupts it. A first
// line that is a marker makes the atom a hard boundary; a single line
// underlined with "===" or "---" is a setext heading.
func (s *scanner) paragraph(i, next int, l string) atom {
	a := atom{pos: i, kind: kindPara, hard: isMarker(l)}
	if next < len(s.text) {
		after, nl := s.line(next)
		if lv := setextLevel(nl); lv > 0 {
			return atom{pos: i, end: after, kind: kindHeading, level: lv, hard: true}
		}
	}
	for next < len(s.text) {
		after, nl := s.line(next)
		if isBlank(nl) || s.interrupts(nl, after) {
			break
		}
		next = after
	}
	a.end = next
	return a
}

// frontMatterEnd returns the end of a YAML front matter block at the very
// start of text (after an optional byte order mark): a "---" line, a first
// line that is not blank and holds a ':' or starts a comment, and a closing
// "---" or "..." line. It returns 0 when there is none.
func frontMatterEnd(text string) int {
	s := &scanner{text: text}
	next, l := s.line(0)
	if strings.TrimRight(l, " \t") != "---" || next >= len(text) {
		return 0
	}
	i, first := next, true
	for i < len(text) {
		next, l := s.line(i)
		if first && (isBlank(l) || (strings.IndexByte(l, ':') < 0 && l[0] != '#')) {
			return 0
		}
		first = false
		if t := strings.TrimRight(l, " \t"); t == "---" || t == "..." {
			return next
		}
		i = next
	}
	return 0
}
