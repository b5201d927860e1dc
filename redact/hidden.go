package redact

import "strings"

// Text pasted from web pages, PDFs and chat apps can carry characters that
// show as nothing: a zero-width space or joiner, a word joiner, a soft
// hyphen, a byte-order mark, a direction mark (ux U1). One inside a token
// (ghp_abc<U+200B>def...) splits it for every rule, and the token is kept
// whole though a reader sees it and can copy it back without the
// character.
//
// So a line holding such a character between two printable ASCII bytes
// is tried again without them (joined). When the rules hide more of the
// joined line than of the line as it is, the line is redacted joined: its
// invisible characters between ASCII bytes are dropped and the secret is
// replaced. Elsewhere the characters stay, so the joiners of emoji
// sequences, the soft hyphens of a German word and a line whose secret the
// rules find anyway are kept byte for byte. A secret split over lines by
// such a character is not joined.

// hiddenLen returns the length of the invisible character at s[i], or 0:
// U+00AD, U+200B to U+200F, U+2060 and U+FEFF.
func hiddenLen(s string, i int) int {
	switch {
	case i+1 < len(s) && s[i] == 0xc2 && s[i+1] == 0xad:
		return 2
	case i+2 < len(s) && s[i] == 0xe2 && s[i+1] == 0x80 && s[i+2] >= 0x8b && s[i+2] <= 0x8f,
		i+2 < len(s) && s[i] == 0xe2 && s[i+1] == 0x81 && s[i+2] == 0xa0,
		i+2 < len(s) && s[i] == 0xef && s[i+1] == 0xbb && s[i+2] == 0xbf:
		return 3
	}
	return 0
}

// printableASCII reports a byte a token can hold on either side of a
// hidden character.
func printableASCII(c byte) bool { return c > ' ' && c < 0x7f }

// innerHidden returns the end of the run of invisible characters starting
// at s[i] when the run lies between two printable ASCII bytes, else -1.
func innerHidden(s string, i int) int {
	if i == 0 || !printableASCII(s[i-1]) {
		return -1
	}
	j := i
	for {
		n := hiddenLen(s, j)
		if n == 0 {
			break
		}
		j += n
	}
	if j == i || j >= len(s) || !printableASCII(s[j]) {
		return -1
	}
	return j
}

// firstInnerHidden returns the offset of the first run of invisible
// characters between printable ASCII bytes, or -1. Their first bytes are
// looked for with IndexByte, so text without them costs three scans.
func firstInnerHidden(s string) int {
	best := -1
	for _, lead := range []byte{0xc2, 0xe2, 0xef} {
		for from := 0; from < len(s); {
			k := strings.IndexByte(s[from:], lead)
			if k < 0 || best >= 0 && from+k >= best {
				break
			}
			k += from
			if innerHidden(s, k) >= 0 {
				best = k
				break
			}
			from = k + 1
		}
	}
	return best
}

// nextInnerHidden is firstInnerHidden of s from offset from on, in one
// forward pass: joinHidden's loop calls it once a line, and
// firstInnerHidden's three scans to the end of the text each time made a
// long text with many such lines cost lines × length.
func nextInnerHidden(s string, from int) int {
	for i := from; i < len(s); i++ {
		if c := s[i]; (c == 0xc2 || c == 0xe2 || c == 0xef) && innerHidden(s, i) >= 0 {
			return i
		}
	}
	return -1
}

// joinHidden returns text with the invisible characters between printable
// ASCII bytes dropped on each line where that lets the rules hide more
// (see above); text is returned as it is when no line does.
func joinHidden(text string) string {
	first := firstInnerHidden(text)
	if first < 0 {
		return text
	}
	var b strings.Builder
	last := 0 // text[:last] is written to b
	for first >= 0 {
		ls := strings.LastIndexByte(text[:first], '\n') + 1
		le := strings.IndexByte(text[first:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += first
		}
		line := text[ls:le]
		if joined := dropInnerHidden(line); hidesMore(joined, line) {
			b.WriteString(text[last:ls])
			b.WriteString(joined)
			last = le
		}
		if le == len(text) {
			break
		}
		if first = nextInnerHidden(text, le); first < 0 {
			break
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// dropInnerHidden drops the runs of invisible characters that lie between
// printable ASCII bytes.
func dropInnerHidden(line string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(line); i++ {
		if hiddenLen(line, i) == 0 {
			continue
		}
		if j := innerHidden(line, i); j >= 0 {
			b.WriteString(line[last:i])
			last = j
			i = j - 1
		}
	}
	b.WriteString(line[last:])
	return b.String()
}

// hidesMore reports whether the rules leave less of joined than of line,
// counting the bytes outside placeholders (joined is line without some
// invisible characters, which count as left in line).
func hidesMore(joined, line string) bool {
	var seen repeats
	var c Counts
	rj := redactPart(joined, &c, &seen)
	if c == nil {
		return false
	}
	seen, c = repeats{}, nil
	rl := redactPart(line, &c, &seen)
	return keptBytes(rj)+len(line)-len(joined) < keptBytes(rl)
}

// keptBytes is the length of s less its placeholders.
func keptBytes(s string) int {
	n := len(s)
	for i := 0; ; {
		j := strings.Index(s[i:], placeholderPrefix)
		if j < 0 {
			return n
		}
		i += j
		e := strings.IndexByte(s[i:], ']')
		if e < 0 {
			return n
		}
		n -= e + 1
		i += e + 1
	}
}
