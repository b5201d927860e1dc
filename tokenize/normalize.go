package tokenize

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var normalizerTypes = []string{"NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents",
	"Strip", "Prepend", "Replace", "BertNormalizer", "Precompiled", "Sequence"}

func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "NFC":
		return formNormalizer{norm.NFC}, nil
	case "NFD":
		return formNormalizer{norm.NFD}, nil
	case "NFKC", "Precompiled":
		// Precompiled is approximated by NFKC; see the package doc.
		return formNormalizer{norm.NFKC}, nil
	case "NFKD":
		return formNormalizer{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "StripAccents":
		return stripAccents{marks: unicode.M}, nil
	case "Strip":
		v := struct {
			Left  *bool `json:"strip_left"`
			Right *bool `json:"strip_right"`
		}{}
		if err := decode("normalizer Strip", raw, &v); err != nil {
			return nil, err
		}
		return strip{left: v.Left == nil || *v.Left, right: v.Right == nil || *v.Right}, nil
	case "Prepend":
		v := struct {
			Prepend string `json:"prepend"`
		}{}
		if err := decode("normalizer Prepend", raw, &v); err != nil {
			return nil, err
		}
		return prepend(v.Prepend), nil
	case "Replace":
		return parseReplace(raw)
	case "BertNormalizer":
		return parseBertNormalizer(raw)
	case "Sequence":
		v := struct {
			Normalizers []json.RawMessage `json:"normalizers"`
		}{}
		if err := decode("normalizer Sequence", raw, &v); err != nil {
			return nil, err
		}
		var seq sequenceNormalizer
		for _, r := range v.Normalizers {
			n, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	}
	return nil, unsupported("normalizer", typ, normalizerTypes)
}

type sequenceNormalizer []normalizer

func (q sequenceNormalizer) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

type formNormalizer struct{ form norm.Form }

// normalize returns s itself when it is already in the form (the common
// ASCII case), without allocating.
func (f formNormalizer) normalize(s string) string {
	if f.form.IsNormalString(s) {
		return s
	}
	return f.form.String(s)
}

type lowercase struct{}

func (lowercase) normalize(s string) string { return toLower(s) }

// toLower lowercases like Rust's str::to_lowercase for the cases that
// matter: Go's strings.ToLower maps U+0130 to "i", Rust to "i̇".
func toLower(s string) string {
	if strings.ContainsRune(s, 'İ') {
		s = strings.ReplaceAll(s, "İ", "i\u0307")
	}
	return strings.ToLower(s)
}

// stripAccents drops the characters in marks (HF's StripAccents drops all
// combining marks; BertNormalizer only nonspacing ones, after NFD).
type stripAccents struct{ marks *unicode.RangeTable }

func (a stripAccents) normalize(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r >= utf8.RuneSelf && unicode.Is(a.marks, r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if !unicode.Is(a.marks, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

type strip struct{ left, right bool }

func (p strip) normalize(s string) string {
	if p.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if p.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

// prepend adds its text in front of any non-empty string.
type prepend string

func (p prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return string(p) + s
}

type replace struct {
	old, new string
	re       *regexp.Regexp // nil: literal
}

func (p replace) normalize(s string) string {
	if p.re != nil {
		return p.re.ReplaceAllLiteralString(s, p.new)
	}
	if p.old == "" || !strings.Contains(s, p.old) {
		return s
	}
	return strings.ReplaceAll(s, p.old, p.new)
}

// patternJSON is the {"String": ...} or {"Regex": ...} pattern of Replace
// and Split.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// compile returns the literal, or a compiled regexp for a Regex pattern.
func (p patternJSON) compile(kind string) (string, *regexp.Regexp, error) {
	switch {
	case p.String != nil:
		return *p.String, nil, nil
	case p.Regex != nil:
		re, err := regexp.Compile(*p.Regex)
		if err != nil {
			return "", nil, unsupported(kind+" pattern", *p.Regex+" ("+err.Error()+")",
				[]string{"String patterns", "Regex patterns that Go's regexp accepts"})
		}
		return "", re, nil
	}
	return "", nil, unsupported(kind+" pattern", "", []string{"String", "Regex"})
}

func parseReplace(raw json.RawMessage) (normalizer, error) {
	v := struct {
		Pattern patternJSON `json:"pattern"`
		Content string      `json:"content"`
	}{}
	if err := decode("normalizer Replace", raw, &v); err != nil {
		return nil, err
	}
	old, re, err := v.Pattern.compile("normalizer Replace")
	if err != nil {
		return nil, err
	}
	return replace{old: old, new: v.Content, re: re}, nil
}
