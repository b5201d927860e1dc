package tokenize

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// gpt2Pattern is the GPT-2 pre-tokenization regex, which Go's regexp cannot
// compile (it uses a lookahead); gpt2Split implements it by hand.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// byteLevel is HF's ByteLevel pre-tokenizer: an optional leading space,
// the GPT-2 split, then every byte mapped to a printable character.
type byteLevel struct {
	addPrefix bool
	useRegex  bool
	noMap     bool // split only (a Split pre-tokenizer with the GPT-2 pattern)
}

func parseByteLevel(raw json.RawMessage) (preTokenizer, error) {
	v := struct {
		AddPrefixSpace *bool `json:"add_prefix_space"`
		UseRegex       *bool `json:"use_regex"`
	}{}
	if err := decode("pre_tokenizer ByteLevel", raw, &v); err != nil {
		return nil, err
	}
	return byteLevel{addPrefix: v.AddPrefixSpace == nil || *v.AddPrefixSpace,
		useRegex: v.UseRegex == nil || *v.UseRegex}, nil
}

// byteChars maps each byte to the UTF-8 of its GPT-2 stand-in character
// (bytes_to_unicode): printable Latin-1 maps to itself, the other bytes to
// U+0100 onwards in order.
var byteChars = func() (t [256]string) {
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			t[b] = string(rune(b))
		} else {
			t[b] = string(rune(256 + n))
			n++
		}
	}
	return t
}()

func (p byteLevel) split(dst, src []word) []word {
	var sbuf [64]span
	for _, w := range src {
		s := w.s
		if p.addPrefix && s != "" && s[0] != ' ' {
			s = " " + s
		}
		ss := sbuf[:0]
		if p.useRegex {
			ss = gpt2Split(ss, s)
		} else if s != "" {
			ss = append(ss, span{0, len(s), true})
		}
		if p.noMap {
			for _, sp := range ss {
				dst = append(dst, word{s: s[sp.start:sp.end], off: w.off + sp.start, first: w.first})
			}
			continue
		}
		// Map all pieces into one string and slice it.
		var b strings.Builder
		b.Grow(2 * len(s))
		for i := range ss {
			start := b.Len()
			for k := ss[i].start; k < ss[i].end; k++ {
				b.WriteString(byteChars[s[k]])
			}
			ss[i].start, ss[i].end = start, b.Len()
		}
		m := b.String()
		for _, sp := range ss {
			dst = append(dst, word{s: m[sp.start:sp.end], off: w.off + sp.start, first: w.first})
		}
	}
	return dst
}

// gpt2Split appends the matches of gpt2Pattern in s, which cover all of s.
func gpt2Split(dst []span, s string) []span {
	for i := 0; i < len(s); {
		end := contraction(s, i)
		if end == 0 {
			j := i
			if s[i] == ' ' && i+1 < len(s) {
				j = i + 1
			}
			r, n := decodeRune(s, j)
			switch {
			case unicode.IsLetter(r):
				end = runEnd(s, j+n, unicode.IsLetter)
			case unicode.IsNumber(r):
				end = runEnd(s, j+n, unicode.IsNumber)
			case !unicode.IsSpace(r):
				end = runEnd(s, j+n, isOtherChar)
			default: // \s+(?!\S)|\s+
				_, n = decodeRune(s, i)
				end = runEnd(s, i+n, unicode.IsSpace)
				if end < len(s) {
					if last := lastRuneStart(s, end); last > i {
						end = last
					}
				}
			}
		}
		dst = append(dst, span{i, end, true})
		i = end
	}
	return dst
}

// contraction returns the end of 's, 't, 're, 've, 'm, 'll or 'd at i, or 0.
func contraction(s string, i int) int {
	if s[i] != '\'' || i+1 >= len(s) {
		return 0
	}
	switch s[i+1] {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2] == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2] == 'l' {
			return i + 3
		}
	}
	return 0
}

func isOtherChar(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func runEnd(s string, i int, in func(rune) bool) int {
	for i < len(s) {
		r, n := decodeRune(s, i)
		if !in(r) {
			break
		}
		i += n
	}
	return i
}

func lastRuneStart(s string, end int) int {
	_, n := utf8.DecodeLastRuneInString(s[:end])
	return end - n
}
