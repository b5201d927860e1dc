package chunk

import (
	"strings"
	"unicode/utf8"
)

// cut is cutTokens within room bytes as well: when all of the first room
// bytes fit the token budget but s is longer, the piece ends after the
// last line end or whitespace in them if that leaves it at least half
// full (or where whitespace follows them), else, with hard true, at the
// code point (or invalid byte) where the room runs out; n is 0 (and hard
// true) only when not one code point fits in room.
func cut(s string, budget, room int) (n, tokens int, hard bool) {
	if room >= len(s) {
		return cutTokens(s, budget)
	}
	t := s[:unitStart(s, max(room, 0))]
	if t == "" {
		return 0, 0, true
	}
	if n, tokens, hard = cutTokens(t, budget); n < len(t) {
		return n, tokens, hard
	}
	if c, _ := classAt(s, len(t)); c == classSpace {
		return len(t), tokens, false
	}
	if j := strings.LastIndexByte(t, '\n') + 1; 2*j >= len(t) {
		return j, EstimateTokens(t[:j]), false
	}
	if j := lastSpaceEnd(t); 2*j >= len(t) {
		return j, EstimateTokens(t[:j]), false
	}
	return len(t), tokens, true
}

// unitStart returns the largest i' <= i that starts a unit of s as
// classAt steps through it (a code point, or an invalid byte on its own),
// or len(s) when i >= len(s). Any byte utf8.RuneStart accepts starts a
// unit, since a valid multi-byte sequence holds continuation bytes only.
func unitStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for k := i; k >= 0 && k > i-utf8.UTFMax; k-- {
		if utf8.RuneStart(s[k]) {
			if _, size := utf8.DecodeRuneInString(s[k:]); k+size > i {
				return k // the unit at k spans i
			}
			return i // stray continuation bytes from k+size to i: units of one byte
		}
	}
	return i
}

// lastSpaceEnd returns the end of the last whitespace unit of s, or 0.
func lastSpaceEnd(s string) int {
	end := 0
	for i := 0; i < len(s); {
		c, size := classAt(s, i)
		if i += size; c == classSpace {
			end = i
		}
	}
	return end
}

// cutTokens returns the length n of the first piece of s for a piece budget of
// budget tokens (at least 1), the piece's tokens and whether it is a hard cut.
// When all of s fits, n is len(s). Otherwise the piece ends, in order of
// preference, after the last sentence end ('.', '!' or '?' followed by
// whitespace), the last line end or the last whitespace that keeps it within
// the budget and at least half full; then after the last whitespace at all;
// then, with hard true, at the code point (or invalid byte) where the budget
// runs out. A piece always includes the whitespace that ends it, so the next
// piece starts at a word, and n is at least 1 for a non-empty s.
func cutTokens(s string, budget int) (n, tokens int, hard bool) {
	var sentN, sentT, lineN, lineT, spaceN, spaceT int
	tok, i := 0, 0
	for i < len(s) {
		class, size := classAt(s, i)
		switch class {
		case classSpace:
			end := i + size
			for end < len(s) {
				c, sz := classAt(s, end)
				if c != classSpace {
					break
				}
				end += sz
			}
			if strings.IndexByte(s[i:end], '\n') >= 0 {
				lineN, lineT = end, tok
			}
			if i > 0 && (s[i-1] == '.' || s[i-1] == '!' || s[i-1] == '?') {
				sentN, sentT = end, tok
			}
			spaceN, spaceT, i = end, tok, end
			continue
		case classWord:
			// Scan the run only as far as the budget allows, so that cutting
			// a huge run into pieces stays linear.
			end, runes, room := i+size, 1, 4*(budget-tok)
			for end < len(s) && runes <= room {
				c, sz := classAt(s, end)
				if c != classWord {
					break
				}
				end, runes = end+sz, runes+1
			}
			if runes > room {
				return choose(s, i, tok, budget, [3][2]int{{sentN, sentT}, {lineN, lineT}, {spaceN, spaceT}})
			}
			tok, i = tok+wordTokens(runes), end
		default:
			if tok+1 > budget {
				return choose(s, i, tok, budget, [3][2]int{{sentN, sentT}, {lineN, lineT}, {spaceN, spaceT}})
			}
			tok, i = tok+1, i+size
		}
	}
	return len(s), tok, false
}

// choose picks the cut once the unit at i (with tok tokens before it) no
// longer fits: the first boundary in bounds (sentence, line, whitespace;
// each an offset and the tokens before it, offset 0 for none) that leaves
// the piece at least half full, else the last whitespace, else a hard cut
// inside the unit at i.
func choose(s string, i, tok, budget int, bounds [3][2]int) (n, tokens int, hard bool) {
	for _, b := range bounds {
		if b[0] > 0 && 2*b[1] >= budget {
			return b[0], b[1], false
		}
	}
	if sp := bounds[2]; sp[0] > 0 && sp[1] > 0 {
		return sp[0], sp[1], false
	}
	// Hard cut: the word at i gets as many code points as the budget left
	// allows, 4 a token.
	n, k, room := i, 0, 4*(budget-tok)
	for ; k < room && n < len(s); k++ {
		c, size := classAt(s, n)
		if c != classWord {
			break
		}
		n += size
	}
	if n == 0 { // cannot happen for budget >= 1; guarantee progress anyway
		_, n = classAt(s, 0)
		return n, EstimateTokens(s[:n]), true
	}
	return n, tok + wordTokens(k), true
}
