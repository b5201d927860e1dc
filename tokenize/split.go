package tokenize

import (
	"fmt"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// behavior is HF's SplitDelimiterBehavior: what happens to the matches when
// a word is cut at them.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

func parseBehavior(s string, def behavior) (behavior, error) {
	switch s {
	case "":
		return def, nil
	case "Removed", "removed":
		return removed, nil
	case "Isolated", "isolated":
		return isolated, nil
	case "MergedWithPrevious", "merged_with_previous":
		return mergedWithPrevious, nil
	case "MergedWithNext", "merged_with_next":
		return mergedWithNext, nil
	case "Contiguous", "contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("parse tokenizer: split behavior %q (supported: Removed, Isolated, "+
		"MergedWithPrevious, MergedWithNext, Contiguous): %w", s, cairn.ErrInvalid)
}

// span is a byte range of a word; match says whether it matched the
// delimiter pattern.
type span struct {
	start, end int
	match      bool
}

// fill turns the sorted, non-overlapping matches of s into spans that
// cover all of s, gaps included, appended to dst.
func fill(dst []span, matches []span, n int, invert bool) []span {
	pos := 0
	for _, m := range matches {
		if m.start > pos {
			dst = append(dst, span{pos, m.start, invert})
		}
		dst = append(dst, span{m.start, m.end, !invert})
		pos = m.end
	}
	if pos < n {
		dst = append(dst, span{pos, n, invert})
	}
	return dst
}

// cut appends the pieces of w delimited by the covering spans ss, treating
// the matches per b exactly as HF's NormalizedString::split. Empty pieces
// are dropped.
func cut(dst []word, w word, ss []span, b behavior) []word {
	var out []span
	var buf [32]span
	out = buf[:0]
	prev := false
	switch b {
	case removed:
		for _, s := range ss {
			if !s.match {
				out = append(out, s)
			}
		}
	case isolated:
		out = ss
	case mergedWithPrevious:
		for _, s := range ss {
			if s.match && !prev && len(out) > 0 {
				out[len(out)-1].end = s.end
			} else {
				out = append(out, s)
			}
			prev = s.match
		}
	case mergedWithNext:
		for i := len(ss) - 1; i >= 0; i-- {
			s := ss[i]
			if s.match && !prev && len(out) > 0 {
				out[len(out)-1].start = s.start
			} else {
				out = append(out, s)
			}
			prev = s.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case contiguous:
		for _, s := range ss {
			if s.match == prev && len(out) > 0 {
				out[len(out)-1].end = s.end
			} else {
				out = append(out, s)
			}
			prev = s.match
		}
	}
	for _, s := range out {
		if s.end > s.start {
			dst = append(dst, word{s: w.s[s.start:s.end], off: w.off + s.start, first: w.first})
		}
	}
	return dst
}

// cutFunc cuts w at every character for which isDelim is true, each
// character its own match.
func cutFunc(dst []word, w word, isDelim func(rune) bool, b behavior, invert bool) []word {
	var mbuf, sbuf [64]span
	ms := mbuf[:0]
	s := w.s
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if isDelim(r) {
			ms = append(ms, span{start: i, end: i + n})
		}
		i += n
	}
	if len(ms) == 0 && !invert {
		return append(dst, w)
	}
	return cut(dst, w, fill(sbuf[:0], ms, len(s), invert), b)
}
