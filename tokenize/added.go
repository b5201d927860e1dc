package tokenize

import (
	"sort"
	"strings"
	"unicode"
)

// addedVocab finds the file's added tokens (special tokens such as [CLS])
// in raw text, longest first at each position, as HF does before
// normalization.
type addedVocab struct {
	tokens []addedToken // longest content first
	first  [256]bool    // first bytes of the contents
}

type addedToken struct {
	content      string
	id           int
	lstrip, rstr bool
}

type addedTokenJSON struct {
	ID      int    `json:"id"`
	Content string `json:"content"`
	LStrip  bool   `json:"lstrip"`
	RStrip  bool   `json:"rstrip"`
}

func newAddedVocab(js []addedTokenJSON) *addedVocab {
	a := &addedVocab{}
	for _, j := range js {
		if j.Content == "" {
			continue
		}
		a.tokens = append(a.tokens, addedToken{content: j.Content, id: j.ID, lstrip: j.LStrip, rstr: j.RStrip})
		a.first[j.Content[0]] = true
	}
	if len(a.tokens) == 0 {
		return nil
	}
	sort.SliceStable(a.tokens, func(i, j int) bool { return len(a.tokens[i].content) > len(a.tokens[j].content) })
	return a
}

// match returns the added token that starts at s[i], or nil.
func (a *addedVocab) match(s string, i int) *addedToken {
	if !a.first[s[i]] {
		return nil
	}
	for k := range a.tokens {
		if strings.HasPrefix(s[i:], a.tokens[k].content) {
			return &a.tokens[k]
		}
	}
	return nil
}

// each calls f on the text between added tokens and appends the added
// tokens' ids in between. first tells f whether its segment starts text.
func (a *addedVocab) each(ids []int, text string, f func(ids []int, seg string, first bool) []int) []int {
	start := 0
	for i := 0; i < len(text); {
		t := a.match(text, i)
		if t == nil {
			i++
			continue
		}
		seg := text[start:i]
		if t.lstrip {
			seg = strings.TrimRightFunc(seg, unicode.IsSpace)
		}
		ids = f(ids, seg, start == 0)
		ids = append(ids, t.id)
		i += len(t.content)
		if t.rstr {
			i += len(text[i:]) - len(strings.TrimLeftFunc(text[i:], unicode.IsSpace))
		}
		start = i
	}
	return f(ids, text[start:], start == 0)
}
