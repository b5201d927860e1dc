package chunk

import (
	"unicode"
	"unicode/utf8"
)

// Character classes used by EstimateTokens and the splitter.
const (
	classSpace  = iota // separates units, counts nothing
	classWord          // letters, digits, '_' and combining marks: runs of them
	classSingle        // punctuation, symbols, CJK, invalid bytes: one token each
)

// asciiClass classifies every ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch {
		case b == ' ' || (b >= '\t' && b <= '\r'):
			t[b] = classSpace
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', b == '_':
			t[b] = classWord
		default:
			t[b] = classSingle
		}
	}
	return t
}()

// classAt returns the class of the unit at s[i] and its size in bytes. An
// invalid UTF-8 byte is a unit of size 1 and class classSingle.
func classAt(s string, i int) (class uint8, size int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return runeClass(r, size), size
}

func runeClass(r rune, size int) uint8 {
	switch {
	case r == utf8.RuneError && size == 1:
		return classSingle
	case isCJK(r):
		return classSingle
	case unicode.IsSpace(r):
		return classSpace
	case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r):
		return classWord
	}
	return classSingle
}

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character,
// scripts written without spaces where a tokenizer spends about one token a
// character.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// wordTokens is the estimate for a run of n word characters.
func wordTokens(n int) int { return (n + 3) / 4 }

// EstimateTokens returns a cheap, deterministic estimate of the number of
// tokens a subword tokenizer would produce for s, with no model:
//
//   - whitespace counts nothing and separates units;
//   - a run of word characters (letters, digits, '_', combining marks)
//     counts one token per 4 characters, rounded up ("the" 1, "chunker" 2);
//   - every other character (punctuation, symbols, emoji) counts 1, and so
//     does each Han, Hiragana, Katakana or Hangul character;
//   - each byte that is not valid UTF-8 counts 1.
//
// The estimate is additive over text split at whitespace, so the tokens of a
// chunk are the sum of the tokens of its lines.
func EstimateTokens(s string) int {
	n, run := 0, 0
	for i := 0; i < len(s); {
		var class uint8
		if b := s[i]; b < utf8.RuneSelf {
			class = asciiClass[b]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			class = runeClass(r, size)
			i += size
		}
		switch class {
		case classWord:
			run++
		case classSpace:
			n += wordTokens(run)
			run = 0
		default:
			n += wordTokens(run) + 1
			run = 0
		}
	}
	return n + wordTokens(run)
}
