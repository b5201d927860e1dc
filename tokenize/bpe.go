package tokenize

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

// bpe is byte-pair encoding: a word starts as characters and the adjacent
// pair with the lowest merge rank is merged until no pair has a merge.
// With a ByteLevel pre-tokenizer the characters are GPT-2's byte
// stand-ins, mapped before the word gets here.
type bpe struct {
	vocab        vocabMap
	merges       map[uint64]merge // (left id, right id) to merge
	unk          int              // -1: unknown characters are dropped
	prefix       string           // continuing_subword_prefix
	suffix       string           // end_of_word_suffix
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
}

type merge struct {
	rank, id int
}

type bpeSymbol struct {
	id, size int // size: bytes of the word it covers
}

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func parseBPE(raw json.RawMessage) (model, error) {
	v := struct {
		Vocab        vocabMap          `json:"vocab"`
		Merges       []json.RawMessage `json:"merges"`
		UnkToken     *string           `json:"unk_token"`
		Prefix       *string           `json:"continuing_subword_prefix"`
		Suffix       *string           `json:"end_of_word_suffix"`
		FuseUnk      bool              `json:"fuse_unk"`
		ByteFallback bool              `json:"byte_fallback"`
		IgnoreMerges bool              `json:"ignore_merges"`
	}{}
	if err := decode("model BPE", raw, &v); err != nil {
		return nil, err
	}
	m := &bpe{vocab: v.Vocab, merges: make(map[uint64]merge, len(v.Merges)), unk: -1,
		fuseUnk: v.FuseUnk, byteFallback: v.ByteFallback, ignoreMerges: v.IgnoreMerges}
	if v.Prefix != nil {
		m.prefix = *v.Prefix
	}
	if v.Suffix != nil {
		m.suffix = *v.Suffix
	}
	if v.UnkToken != nil {
		id, err := v.Vocab.id("model BPE unk_token", *v.UnkToken)
		if err != nil {
			return nil, err
		}
		m.unk = id
	}
	for rank, r := range v.Merges {
		a, b, err := parseMerge(r)
		if err != nil {
			return nil, err
		}
		if err := m.addMerge(rank, a, b); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// parseMerge reads "a b" or ["a", "b"].
func parseMerge(r json.RawMessage) (string, string, error) {
	var s string
	if err := json.Unmarshal(r, &s); err == nil {
		a, b, ok := strings.Cut(s, " ")
		if !ok {
			return "", "", fmt.Errorf("parse tokenizer model BPE: merge %q has no space: %w", s, cairn.ErrInvalid)
		}
		return a, b, nil
	}
	var p []string
	if err := json.Unmarshal(r, &p); err != nil || len(p) != 2 {
		return "", "", fmt.Errorf("parse tokenizer model BPE: merge %s is not \"a b\" or [a, b]: %w",
			r, cairn.ErrInvalid)
	}
	return p[0], p[1], nil
}

func (m *bpe) addMerge(rank int, a, b string) error {
	aid, err := m.vocab.id("model BPE merge", a)
	if err != nil {
		return err
	}
	bid, err := m.vocab.id("model BPE merge", b)
	if err != nil {
		return err
	}
	if m.prefix != "" {
		b = strings.TrimPrefix(b, m.prefix)
	}
	id, err := m.vocab.id("model BPE merge", a+b)
	if err != nil {
		return err
	}
	m.merges[pairKey(aid, bid)] = merge{rank: rank, id: id}
	return nil
}

func (m *bpe) name() string { return "BPE" }

func (m *bpe) tokenID(tok string) (int, bool) {
	id, ok := m.vocab[tok]
	return id, ok
}

func (m *bpe) encode(ids []int, w string, sc *scratch) []int {
	if m.ignoreMerges {
		if id, ok := m.vocab[w]; ok {
			return append(ids, id)
		}
	}
	syms := m.symbols(sc.syms[:0], w)
	syms = m.mergeAll(syms)
	for _, s := range syms {
		ids = append(ids, s.id)
	}
	sc.syms = syms
	return ids
}

// symbols splits w into characters looked up in the vocabulary, as HF's
// merge_word: prefix on all but the first, suffix on the last, unknowns
// as bytes (byte_fallback), the unknown token (merged when fuse_unk) or
// dropped.
func (m *bpe) symbols(syms []bpeSymbol, w string) []bpeSymbol {
	var buf [64]byte
	unk := bpeSymbol{id: -1}
	for i := 0; i < len(w); {
		_, n := decodeRune(w, i)
		ch := w[i : i+n]
		var id int
		var ok bool
		if (i == 0 || m.prefix == "") && (i+n < len(w) || m.suffix == "") {
			id, ok = m.vocab[ch]
		} else {
			b := buf[:0]
			if i > 0 {
				b = append(b, m.prefix...)
			}
			b = append(b, ch...)
			if i+n == len(w) {
				b = append(b, m.suffix...)
			}
			id, ok = m.vocab[string(b)]
		}
		switch {
		case ok:
			if unk.id >= 0 {
				syms = append(syms, unk)
				unk.id = -1
			}
			syms = append(syms, bpeSymbol{id: id, size: n})
		case m.byteFallback && m.hasBytes(ch):
			for k := 0; k < n; k++ {
				syms = append(syms, bpeSymbol{id: m.vocab[byteToken(ch[k])], size: 1})
			}
		case m.unk >= 0:
			if unk.id >= 0 && m.fuseUnk {
				unk.size += n
			} else {
				if unk.id >= 0 {
					syms = append(syms, unk)
				}
				unk = bpeSymbol{id: m.unk, size: n}
			}
		}
		i += n
	}
	if unk.id >= 0 {
		syms = append(syms, unk)
	}
	return syms
}

func (m *bpe) hasBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := m.vocab[byteToken(s[i])]; !ok {
			return false
		}
	}
	return true
}

// mergeAll applies the lowest-ranked merge, leftmost first, until none
// applies.
func (m *bpe) mergeAll(syms []bpeSymbol) []bpeSymbol {
	for len(syms) > 1 {
		best, at := merge{rank: -1}, -1
		for i := 0; i+1 < len(syms); i++ {
			if mg, ok := m.merges[pairKey(syms[i].id, syms[i+1].id)]; ok && (at < 0 || mg.rank < best.rank) {
				best, at = mg, i
			}
		}
		if at < 0 {
			break
		}
		syms[at] = bpeSymbol{id: best.id, size: syms[at].size + syms[at+1].size}
		syms = append(syms[:at+1], syms[at+2:]...)
	}
	return syms
}
