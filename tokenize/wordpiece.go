package tokenize

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// wordPiece is BERT's greedy longest-match-first subword model.
type wordPiece struct {
	vocab    vocabMap
	cont     vocabMap // pieces that carry the prefix, with the prefix cut off
	unk      int
	maxChars int
}

func parseWordPiece(raw json.RawMessage) (model, error) {
	v := struct {
		Vocab    vocabMap `json:"vocab"`
		UnkToken *string  `json:"unk_token"`
		Prefix   *string  `json:"continuing_subword_prefix"`
		MaxChars *int     `json:"max_input_chars_per_word"`
	}{}
	if err := decode("model WordPiece", raw, &v); err != nil {
		return nil, err
	}
	unkTok, prefix, maxChars := "[UNK]", "##", 100
	if v.UnkToken != nil {
		unkTok = *v.UnkToken
	}
	if v.Prefix != nil {
		prefix = *v.Prefix
	}
	if v.MaxChars != nil {
		maxChars = *v.MaxChars
	}
	unk, err := v.Vocab.id("model WordPiece unk_token", unkTok)
	if err != nil {
		return nil, err
	}
	m := &wordPiece{vocab: v.Vocab, cont: v.Vocab, unk: unk, maxChars: maxChars}
	if prefix != "" {
		m.cont = vocabMap{}
		for tok, id := range v.Vocab {
			if rest, ok := strings.CutPrefix(tok, prefix); ok {
				m.cont[rest] = id
			}
		}
	}
	return m, nil
}

func (m *wordPiece) name() string { return "WordPiece" }

func (m *wordPiece) tokenID(tok string) (int, bool) {
	id, ok := m.vocab[tok]
	return id, ok
}

func (m *wordPiece) encode(ids []int, w string, _ *scratch) []int {
	if len(w) > m.maxChars && utf8.RuneCountInString(w) > m.maxChars {
		return append(ids, m.unk)
	}
	n0 := len(ids)
	for start := 0; start < len(w); {
		found := -1
		end := len(w)
		for start < end {
			vocab := m.vocab
			if start > 0 {
				vocab = m.cont
			}
			if id, ok := vocab[w[start:end]]; ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRuneInString(w[start:end])
			end -= size
		}
		if found < 0 {
			return append(ids[:n0], m.unk)
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}
