package redact

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// A secret written once in a known shape ("the password is hunter2") is
// often written again bare ("I will not repeat hunter2"): in the next turn
// of a chat, in a log line, in a later note. No rule sees the bare copy, so
// every value a rule replaced is remembered for its document, and its other
// copies there are replaced too, before and after it, with the same kind
// (the kind of its first replacement).
//
// Only values that could not be ordinary text are remembered (repeatable):
// six or more characters, no line break, not a stand-in, and holding a
// digit or a symbol. A value of letters alone, or of words joined by '-',
// '_', '.' or blanks (swordfish, sunshine, read-only, correct horse), is
// the password when a rule took it, but the same word elsewhere in the
// document is more often the word: it stays.
//
// A copy counts only as a whole token: a value that starts (ends) with a
// letter, digit or '_' must not have one of those just before (after) it,
// except that a JSON escape (\n, \r, \t) may precede it. So hunter2 is
// found in "repeat hunter2.", "hunter2@host" and "\"pw\": \"hunter2\"",
// not in "xhunter2" or "hunter22".
//
// Cost: one pass over the text per round, a table lookup per byte, and at
// each token start whose first byte begins some value a map lookup of its
// first bytes and one per distinct length of the values that start so.
// Values are never compared one by one, so many values sharing a prefix
// (Qz7k9x1, Qz7k9x2, ...) cost no more than one. Nothing is done when no
// value was replaced.

// repeatKey is how many leading bytes of a value index it; values are at
// least this long.
const repeatKey = 6

// repeats are the values replaced in one document so far.
type repeats struct {
	kinds map[string]string // value → kind of its first replacement
	lens  map[string][]int  // first repeatKey bytes → lengths of values so, longest first
	first [256]bool         // bytes that begin some value
	n     int               // values added, for parts scanned before some were
}

// add remembers v, replaced as kind, when it is repeatable.
func (r *repeats) add(v, kind string) {
	if r == nil || !repeatable(v) {
		return
	}
	if _, ok := r.kinds[v]; ok {
		return
	}
	if r.kinds == nil {
		r.kinds, r.lens = map[string]string{}, map[string][]int{}
	}
	r.kinds[v] = kind
	k := v[:repeatKey]
	ls := r.lens[k]
	at := sort.Search(len(ls), func(i int) bool { return ls[i] <= len(v) })
	if at == len(ls) || ls[at] != len(v) {
		ls = slices.Insert(ls, at, len(v))
	}
	r.lens[k] = ls
	r.first[v[0]] = true
	r.n++
}

// repeatable reports whether a replaced value is remembered: see above.
// A value that ends in a quote or in sentence or code punctuation
// ("required\",", "hunter2.") was cut badly by its rule, and a value that
// is a plain word once the punctuation around it is dropped ("required!")
// is the word elsewhere: neither is spread (ux F26). Summer2024! still is.
func repeatable(v string) bool {
	if utf8.RuneCountInString(v) < repeatKey || len(v) < repeatKey ||
		strings.ContainsAny(v, "\r\n") || strings.Contains(v, placeholderPrefix) || isPlaceholder(v) ||
		strings.IndexByte("\"'`,;:.)]}", v[len(v)-1]) >= 0 {
		return false
	}
	v = strings.TrimFunc(v, func(r rune) bool { return r < 0x80 && strings.ContainsRune(punctuation, r) })
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x80 && !isLower(c) && !isUpper(c) && strings.IndexByte("-_. \t", c) < 0 {
			return true // a digit or a symbol
		}
	}
	return false
}

// punctuation is what repeatable drops from a value's ends before it looks
// for a digit or a symbol.
const punctuation = "\"'`,;:.!?()[]{}<>"

// tokenByte is a byte that continues a token: a copy of a value must not
// have one beside it where the value's own end is one.
func tokenByte(c byte) bool { return isLower(c) || isUpper(c) || isDigit(c) || c == '_' }

// startOK reports whether a copy of a value whose first byte is c may start
// at text[i].
func startOK(text string, i int, c byte) bool {
	if i == 0 || !tokenByte(c) || !tokenByte(text[i-1]) {
		return true
	}
	return i >= 2 && text[i-2] == '\\' && strings.IndexByte("nrt", text[i-1]) >= 0
}

// replace replaces the bare copies of the values in text.
func (r *repeats) replace(text string, counts *Counts) (string, int) {
	if r == nil || r.n == 0 {
		return text, 0
	}
	var hits []hit
	for i := 0; i+repeatKey <= len(text); i++ {
		c := text[i]
		if !r.first[c] || !startOK(text, i, c) {
			continue
		}
		for _, n := range r.lens[text[i:i+repeatKey]] {
			e := i + n
			if e > len(text) {
				continue
			}
			kind, ok := r.kinds[text[i:e]]
			if !ok || e < len(text) && tokenByte(text[e-1]) && tokenByte(text[e]) {
				continue
			}
			hits = append(hits, hit{i, e, kind})
			i = e - 1
			break
		}
	}
	if len(hits) == 0 {
		return text, 0
	}
	return apply(text, hits, counts, nil)
}
