package tokenize

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var preTokenizerTypes = []string{"Metaspace", "Whitespace", "WhitespaceSplit", "BertPreTokenizer",
	"ByteLevel", "Punctuation", "Digits", "CharDelimiterSplit", "Split", "Sequence"}

func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Metaspace":
		return parseMetaspace(raw)
	case "Whitespace":
		return whitespace{}, nil
	case "WhitespaceSplit":
		return funcSplit{isDelim: unicode.IsSpace, b: removed}, nil
	case "BertPreTokenizer":
		return bertPre{}, nil
	case "ByteLevel":
		return parseByteLevel(raw)
	case "Punctuation":
		v := struct {
			Behavior string `json:"behavior"`
		}{}
		if err := decode("pre_tokenizer Punctuation", raw, &v); err != nil {
			return nil, err
		}
		b, err := parseBehavior(v.Behavior, isolated)
		if err != nil {
			return nil, err
		}
		return funcSplit{isDelim: isPunct, b: b}, nil
	case "Digits":
		v := struct {
			Individual bool `json:"individual_digits"`
		}{}
		if err := decode("pre_tokenizer Digits", raw, &v); err != nil {
			return nil, err
		}
		if v.Individual {
			return funcSplit{isDelim: unicode.IsNumber, b: isolated}, nil
		}
		return funcSplit{isDelim: unicode.IsNumber, b: contiguous}, nil
	case "CharDelimiterSplit":
		v := struct {
			Delimiter string `json:"delimiter"`
		}{}
		if err := decode("pre_tokenizer CharDelimiterSplit", raw, &v); err != nil {
			return nil, err
		}
		d, _ := utf8.DecodeRuneInString(v.Delimiter)
		return funcSplit{isDelim: func(r rune) bool { return r == d }, b: removed}, nil
	case "Split":
		return parseSplit(raw)
	case "Sequence":
		v := struct {
			PreTokenizers []json.RawMessage `json:"pretokenizers"`
		}{}
		if err := decode("pre_tokenizer Sequence", raw, &v); err != nil {
			return nil, err
		}
		var seq sequencePre
		for _, r := range v.PreTokenizers {
			p, err := parsePreTokenizer(r)
			if err != nil {
				return nil, err
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	}
	return nil, unsupported("pre_tokenizer", typ, preTokenizerTypes)
}

type sequencePre []preTokenizer

func (q sequencePre) split(dst, src []word) []word {
	cur := src
	for i, p := range q {
		if i == len(q)-1 {
			return p.split(dst, cur)
		}
		cur = p.split(make([]word, 0, 2*len(cur)+4), cur)
	}
	return append(dst, cur...)
}

// funcSplit cuts at every character for which isDelim is true.
type funcSplit struct {
	isDelim func(rune) bool
	b       behavior
	invert  bool
}

func (f funcSplit) split(dst, src []word) []word {
	for _, w := range src {
		dst = cutFunc(dst, w, f.isDelim, f.b, f.invert)
	}
	return dst
}

// bertPre splits on whitespace and isolates each punctuation character.
type bertPre struct{}

func (bertPre) split(dst, src []word) []word {
	for _, w := range src {
		s := w.s
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case unicode.IsSpace(r):
				i += n
				continue
			case isPunct(r):
				dst = append(dst, word{s: s[i : i+n], off: w.off + i, first: w.first})
				i += n
				continue
			}
			j := i + n
			for j < len(s) {
				r, m := utf8.DecodeRuneInString(s[j:])
				if unicode.IsSpace(r) || isPunct(r) {
					break
				}
				j += m
			}
			dst = append(dst, word{s: s[i:j], off: w.off + i, first: w.first})
			i = j
		}
	}
	return dst
}

// whitespace is HF's Whitespace pre-tokenizer, the regex \w+|[^\w\s]+:
// runs of word characters and runs of other non-space characters.
type whitespace struct{}

const (
	classSpace = iota
	classWord
	classOther
)

func charClass(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case r == ' ' || (r >= '\t' && r <= '\r'):
			return classSpace
		case r == '_' || (r >= '0' && r <= '9') || (r|0x20 >= 'a' && r|0x20 <= 'z'):
			return classWord
		}
		return classOther
	case unicode.IsSpace(r):
		return classSpace
	case isWordChar(r):
		return classWord
	}
	return classOther
}

// isWordChar is \w in Unicode mode: alphabetic, marks, decimal digits,
// connector punctuation and the joiners.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.In(r, unicode.M, unicode.Nd, unicode.Nl, unicode.Pc,
		unicode.Other_Alphabetic) || r == 0x200C || r == 0x200D
}

func (whitespace) split(dst, src []word) []word {
	for _, w := range src {
		s := w.s
		start, cls := 0, classSpace
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			c := charClass(r)
			if c != cls {
				if cls != classSpace {
					dst = append(dst, word{s: s[start:i], off: w.off + start, first: w.first})
				}
				start, cls = i, c
			}
			i += n
		}
		if cls != classSpace && start < len(s) {
			dst = append(dst, word{s: s[start:], off: w.off + start, first: w.first})
		}
	}
	return dst
}

type prependScheme int

const (
	prependAlways prependScheme = iota
	prependFirst
	prependNever
)

// metaspace replaces U+0020 with the replacement character, prepends it
// per the scheme and cuts before every replacement character.
type metaspace struct {
	repl   string
	scheme prependScheme
	split_ bool
}

func parseMetaspace(raw json.RawMessage) (preTokenizer, error) {
	v := struct {
		Replacement    string  `json:"replacement"`
		AddPrefixSpace *bool   `json:"add_prefix_space"`
		PrependScheme  *string `json:"prepend_scheme"`
		Split          *bool   `json:"split"`
	}{}
	if err := decode("pre_tokenizer Metaspace", raw, &v); err != nil {
		return nil, err
	}
	m := metaspace{repl: v.Replacement, scheme: prependAlways, split_: v.Split == nil || *v.Split}
	if m.repl == "" {
		m.repl = "▁"
	}
	switch {
	case v.PrependScheme != nil:
		switch *v.PrependScheme {
		case "always":
		case "first":
			m.scheme = prependFirst
		case "never":
			m.scheme = prependNever
		default:
			return nil, unsupported("Metaspace prepend_scheme", *v.PrependScheme,
				[]string{"always", "first", "never"})
		}
	case v.AddPrefixSpace != nil && !*v.AddPrefixSpace:
		m.scheme = prependNever
	}
	return m, nil
}

func (m metaspace) split(dst, src []word) []word {
	for _, w := range src {
		s := w.s
		if strings.IndexByte(s, ' ') >= 0 {
			s = strings.ReplaceAll(s, " ", m.repl)
		}
		if s != "" && !strings.HasPrefix(s, m.repl) &&
			(m.scheme == prependAlways || (m.scheme == prependFirst && w.first && w.off == 0)) {
			s = m.repl + s
		}
		if !m.split_ {
			dst = append(dst, word{s: s, off: w.off, first: w.first})
			continue
		}
		start := 0
		for start+1 < len(s) {
			i := strings.Index(s[start+1:], m.repl)
			if i < 0 {
				break
			}
			end := start + 1 + i
			dst = append(dst, word{s: s[start:end], off: w.off + start, first: w.first})
			start = end
		}
		if start < len(s) {
			dst = append(dst, word{s: s[start:], off: w.off + start, first: w.first})
		}
	}
	return dst
}

// splitPattern is HF's Split pre-tokenizer.
type splitPattern struct {
	lit    string
	re     *regexp.Regexp
	b      behavior
	invert bool
}

func parseSplit(raw json.RawMessage) (preTokenizer, error) {
	v := struct {
		Pattern  patternJSON `json:"pattern"`
		Behavior string      `json:"behavior"`
		Invert   bool        `json:"invert"`
	}{}
	if err := decode("pre_tokenizer Split", raw, &v); err != nil {
		return nil, err
	}
	b, err := parseBehavior(v.Behavior, removed)
	if err != nil {
		return nil, err
	}
	if v.Pattern.Regex != nil && *v.Pattern.Regex == gpt2Pattern && b == isolated && !v.Invert {
		// Go's regexp has no lookahead; this pattern is written by hand.
		return byteLevel{useRegex: true, noMap: true}, nil
	}
	lit, re, err := v.Pattern.compile("pre_tokenizer Split")
	if err != nil {
		return nil, err
	}
	return splitPattern{lit: lit, re: re, b: b, invert: v.Invert}, nil
}

func (p splitPattern) split(dst, src []word) []word {
	var mbuf, sbuf [64]span
	for _, w := range src {
		ms := mbuf[:0]
		if p.re != nil {
			for _, loc := range p.re.FindAllStringIndex(w.s, -1) {
				if loc[1] > loc[0] {
					ms = append(ms, span{start: loc[0], end: loc[1]})
				}
			}
		} else if p.lit != "" {
			for i := 0; ; {
				j := strings.Index(w.s[i:], p.lit)
				if j < 0 {
					break
				}
				ms = append(ms, span{start: i + j, end: i + j + len(p.lit)})
				i += j + len(p.lit)
			}
		}
		dst = cut(dst, w, fill(sbuf[:0], ms, len(w.s), p.invert), p.b)
	}
	return dst
}
