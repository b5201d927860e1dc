package tokenize

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// bertNormalizer is BERT's BasicTokenizer cleanup, in HF's order: clean
// text, pad CJK characters with spaces, strip accents, lowercase.
type bertNormalizer struct {
	clean, chinese, accents, lower bool
}

func parseBertNormalizer(raw json.RawMessage) (normalizer, error) {
	v := struct {
		CleanText          *bool `json:"clean_text"`
		HandleChineseChars *bool `json:"handle_chinese_chars"`
		StripAccents       *bool `json:"strip_accents"`
		Lowercase          *bool `json:"lowercase"`
	}{}
	if err := decode("normalizer BertNormalizer", raw, &v); err != nil {
		return nil, err
	}
	on := func(b *bool) bool { return b == nil || *b }
	n := bertNormalizer{clean: on(v.CleanText), chinese: on(v.HandleChineseChars), lower: on(v.Lowercase)}
	n.accents = n.lower // strip_accents null follows lowercase
	if v.StripAccents != nil {
		n.accents = *v.StripAccents
	}
	return n, nil
}

func (n bertNormalizer) normalize(s string) string {
	if n.clean || n.chinese {
		s = n.cleanAndPad(s)
	}
	if n.accents {
		s = stripAccents{marks: unicode.Mn}.normalize(formNormalizer{norm.NFD}.normalize(s))
	}
	if n.lower {
		s = toLower(s)
	}
	return s
}

// cleanAndPad drops NUL, U+FFFD and control characters, turns whitespace
// into U+0020 and surrounds CJK ideographs with spaces.
func (n bertNormalizer) cleanAndPad(s string) string {
	if isPlainASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case n.clean && (r == 0 || r == utf8.RuneError || isBertControl(r)):
		case n.clean && isBertSpace(r):
			b.WriteByte(' ')
		case n.chinese && isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlainASCII reports whether s is printable ASCII plus spaces, which the
// BERT cleanup leaves as is.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

func isBertSpace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.IsSpace(r)
}

// isBertControl is Rust's char::is_other (Cc, Cf, Cs, Co, Cn) minus tab,
// newline and carriage return.
func isBertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// isPunct is BERT's punctuation test: ASCII punctuation or Unicode P.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiPunct[r]
	}
	return unicode.IsPunct(r)
}

var asciiPunct = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		t[c] = true
	}
	return t
}()
