package redact

import (
	"sort"
	"strings"
)

// Counts maps a kind (see Kinds) to the number of values replaced.
type Counts map[string]int

// placeholderPrefix starts every replacement; Placeholder adds the kind.
const placeholderPrefix = "[REDACTED:"

// maxPasses bounds the re-runs that make Redact idempotent: a pass that
// replaces something is followed by another, because a replacement can
// change the context an earlier rule saw. Text without secrets takes one.
const maxPasses = 3

// Placeholder is the text that replaces a secret of the given kind.
func Placeholder(kind string) string { return placeholderPrefix + kind + "]" }

// Redact replaces every secret it recognizes in text with
// Placeholder(kind) and reports how many values of each kind it replaced.
// Text around a secret is kept byte for byte: quotes, separators, the user
// and host of a URL, the key of an assignment; only a line whose secret an
// invisible character hides loses its invisible characters (hidden.go). A
// secret that spans lines (a private key block) keeps its line breaks
// after the placeholder, so the text has as many lines as before and line
// numbers into it stay valid.
// A value a rule replaced is also replaced where text repeats it bare,
// before or after (repeat.go). Counts is nil when nothing was replaced.
// Redact is idempotent and safe for concurrent use.
func Redact(text string) (string, Counts) {
	counts := RedactParts([]*string{&text})
	return text, counts
}

// RedactParts redacts the texts parts point to, in place, as the parts of
// one document (the turns, titles and tool calls of a chat session): each
// as Redact would, and a value a rule replaced in any part is also replaced
// at its bare repeats in every part. It reports the replacements of all
// parts together; nil and empty parts are skipped.
func RedactParts(parts []*string) Counts {
	var counts Counts
	var seen repeats
	done := make([]int, len(parts)) // values seen when the part was last scanned
	for i, p := range parts {
		if p != nil && *p != "" {
			*p = redactPart(joinHidden(*p), &counts, &seen) // hidden.go
		}
		done[i] = seen.n
	}
	// Values found in a later part are looked for again in the earlier
	// ones; a part changed then is redacted again, which can (rarely) find
	// a value more.
	for round := 0; round < maxPasses; round++ {
		again := false
		for i, p := range parts {
			if p == nil || *p == "" || done[i] == seen.n {
				continue
			}
			done[i] = seen.n
			text, n := seen.replace(*p, &counts)
			if n > 0 {
				*p = redactPart(text, &counts, &seen)
				again = again || done[i] != seen.n
				done[i] = seen.n
			}
		}
		if !again {
			break
		}
	}
	return counts
}

// redactPart runs the rules over text until nothing changes, remembering
// the values replaced in seen and replacing their repeats after each pass
// that replaced something (and after the first, for values from earlier
// parts).
func redactPart(text string, counts *Counts, seen *repeats) string {
	for pass := 0; pass < maxPasses; pass++ {
		var n int
		text, n = redactOnce(text, counts, seen)
		if n > 0 || pass == 0 {
			var m int
			text, m = seen.replace(text, counts)
			n += m
		}
		if n == 0 {
			break
		}
	}
	return text
}

// Kinds lists every kind Redact can report, sorted.
func Kinds() []string {
	out := append([]string(nil), allKinds...)
	sort.Strings(out)
	return out
}

// hit is one secret found by a rule: the byte span to replace and its kind.
type hit struct {
	start, end int
	kind       string
}

// rule finds one family of secrets. A rule runs only where one of its
// anchors occurs: on the lines holding an anchor, or on the whole text when
// whole is set (for secrets that span lines). fold means the anchors are
// lower case and are looked up in the ASCII-lower-cased text.
type rule struct {
	anchors []string
	fold    bool
	whole   bool
	// find appends the hits in s, with offsets relative to s, in order.
	find func(s string, hits []hit) []hit
	// ids are the anchors' ids in the rule's anchor set (anchors.go).
	ids []int
}

func redactOnce(text string, counts *Counts, seen *repeats) (string, int) {
	var lower string
	lowerOK := false
	total := 0
	var hits []hit
	var occ occurrences // of text as it is now
	rs := loadRules()
	// Most short texts (a file name, a title) hold no anchor at all; then
	// no rule has anything to look at, and the loop over the rules is
	// skipped.
	lower, lowerOK = asciiLower(text), true
	occ.exact, occ.exactDone = anchorsExact.find(text), true
	occ.folded, occ.foldedDone = anchorsFolded.find(lower), true
	if occ.exact == nil && occ.folded == nil {
		return text, 0
	}
	for i := range rs {
		r := &rs[i]
		hay := text
		if r.fold {
			if !lowerOK {
				lower, lowerOK = asciiLower(text), true
			}
			hay = lower
		}
		at := occ.of(r, hay)
		if at == nil { // none of the rule's anchors occurs
			continue
		}
		hits = hits[:0]
		if r.whole {
			if anyOccurs(at) {
				hits = r.find(text, hits)
			}
		} else {
			lineWindows(hay, at, func(start, end int) {
				n := len(hits)
				hits = r.find(text[start:end], hits)
				for j := n; j < len(hits); j++ {
					hits[j].start += start
					hits[j].end += start
				}
			})
		}
		if len(hits) == 0 {
			continue
		}
		var n int
		text, n = apply(text, hits, counts, seen)
		if n > 0 {
			total += n
			lowerOK = false
			occ = occurrences{}
		}
	}
	return text, total
}

// apply replaces the hits (sorted by start) in text. Hits that overlap an
// earlier hit or lie inside an existing placeholder are skipped. The values
// replaced are remembered in seen (when not nil).
func apply(text string, hits []hit, counts *Counts, seen *repeats) (string, int) {
	var b strings.Builder
	last, n := 0, 0
	for _, h := range hits {
		if h.start < last || h.end <= h.start || inPlaceholder(text, h.start, h.end) {
			continue
		}
		if n == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[last:h.start])
		b.WriteString(Placeholder(h.kind))
		seen.add(text[h.start:h.end], h.kind)
		for range strings.Count(text[h.start:h.end], "\n") {
			b.WriteByte('\n')
		}
		last = h.end
		if *counts == nil {
			*counts = Counts{}
		}
		(*counts)[h.kind]++
		n++
	}
	if n == 0 {
		return text, 0
	}
	b.WriteString(text[last:])
	return b.String(), n
}

// inPlaceholder reports whether text[start:end] overlaps a well-formed
// placeholder, so that no rule redacts part of an earlier replacement.
func inPlaceholder(text string, start, end int) bool {
	if strings.Contains(text[start:end], placeholderPrefix) {
		return true
	}
	from := max(0, start-64) // longer than any placeholder
	i := strings.LastIndex(text[from:start], placeholderPrefix)
	if i < 0 {
		return false
	}
	i += from
	j := i + len(placeholderPrefix)
	for j < len(text) && (text[j] == '-' || isLower(text[j]) || isDigit(text[j])) {
		j++
	}
	return j < len(text) && text[j] == ']' && j >= start
}

// asciiLower lower-cases ASCII letters only, so offsets stay the same.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
