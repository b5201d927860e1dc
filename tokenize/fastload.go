package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// LoadFast is Load with a quicker reader for a Unigram model's
// vocabulary: the same Tokenizer, in about a fifth of the time for
// USE-lite's 8,000 pieces (a one-shot hybrid search loads it on every
// call: bench/RESULTS.md, "The cold one-shot hybrid search"). Load reads
// each vocabulary entry through encoding/json (two Unmarshal calls an
// entry) and builds the trie through a map a node; LoadFast scans the
// entries by hand and builds the trie from the sorted pieces. Any entry
// it does not expect, and every other model kind, goes the way Load
// goes, so errors and results are Load's.
func LoadFast(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := parseFast(data)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return t, nil
}

// fastFile is fileJSON with the model's fields a Unigram needs: one
// pass of encoding/json over the file instead of one for the file, one
// for the model's type and one for the model.
type fastFile struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Model         struct {
		Type         string          `json:"type"`
		Vocab        json.RawMessage `json:"vocab"`
		UnkID        *int            `json:"unk_id"`
		ByteFallback bool            `json:"byte_fallback"`
	} `json:"model"`
}

// parseFast is Parse with parseUnigramFast for a Unigram model; anything
// else, and any error, is Parse's.
func parseFast(data []byte) (*Tokenizer, error) {
	var f fastFile
	if json.Unmarshal(data, &f) != nil || f.Model.Type != "Unigram" {
		return Parse(data)
	}
	m, ok := parseUnigramFast(f.Model.Vocab, f.Model.UnkID, f.Model.ByteFallback)
	if !ok {
		return Parse(data)
	}
	t := &Tokenizer{model: m}
	var err error
	if t.norm, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if t.pre, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if t.post, err = parsePostProcessor(f.PostProcessor, t.model); err != nil {
		return nil, err
	}
	t.added = newAddedVocab(f.AddedTokens)
	t.scratch.New = func() any { return new(scratch) }
	return t, nil
}

// parseUnigramFast builds what parseUnigram builds from the model's
// vocab, unk_id and byte_fallback; ok is false for anything it does not
// read the way parseUnigram would (the caller then parses with Parse,
// errors included). vocab is part of a document encoding/json has
// already checked, so its numbers are valid JSON numbers.
func parseUnigramFast(vocab json.RawMessage, unkID *int, byteFallback bool) (*unigram, bool) {
	pieces, scores, ok := scanVocab(vocab)
	if !ok {
		return nil, false
	}
	m := &unigram{ids: make(map[string]int, len(pieces)), scores: scores, unk: -1, byteFallback: byteFallback}
	minScore := math.Inf(1)
	for id, p := range pieces {
		m.ids[p] = id
		minScore = min(minScore, scores[id])
	}
	if unkID != nil {
		if *unkID < 0 || *unkID >= len(pieces) {
			return nil, false
		}
		m.unk = *unkID
	}
	m.unkScore = minScore - unkPenalty
	keys := make([]string, 0, len(m.ids))
	for p := range m.ids {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	m.trie = buildSortedTrie(keys, m.ids)
	return m, true
}

// scanVocab reads [["piece", score], ...]: pieces as encoding/json
// decodes them (escapes and invalid UTF-8 through it), scores by
// strconv.ParseFloat as it does. ok is false on anything else.
func scanVocab(b []byte) (pieces []string, scores []float64, ok bool) {
	s := scanner{b: b}
	if !s.byte('[') {
		return nil, nil, false
	}
	n := bytes.Count(b, []byte("],")) + 1
	pieces, scores = make([]string, 0, n), make([]float64, 0, n)
	if s.peek(']') {
		return pieces, scores, s.byte(']') && s.end()
	}
	for {
		if !s.byte('[') {
			return nil, nil, false
		}
		p, ok1 := s.str()
		if !ok1 || !s.byte(',') {
			return nil, nil, false
		}
		f, ok2 := s.num()
		if !ok2 || !s.byte(']') {
			return nil, nil, false
		}
		pieces, scores = append(pieces, p), append(scores, f)
		if s.byte(',') {
			continue
		}
		return pieces, scores, s.byte(']') && s.end()
	}
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) peek(c byte) bool { s.space(); return s.i < len(s.b) && s.b[s.i] == c }

func (s *scanner) byte(c byte) bool {
	if !s.peek(c) {
		return false
	}
	s.i++
	return true
}

func (s *scanner) end() bool { s.space(); return s.i == len(s.b) }

// str reads a JSON string; one with an escape or bytes that are not
// UTF-8 is decoded by encoding/json, which also replaces bad bytes.
func (s *scanner) str() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start, plain := s.i, true
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if plain && utf8.Valid(raw) {
				return string(raw), true
			}
			var out string
			if json.Unmarshal(s.b[start-1:s.i], &out) != nil {
				return "", false
			}
			return out, true
		case c == '\\':
			plain = false
			s.i++ // the escaped byte (a quote, say) does not end the string
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// num reads a JSON number as encoding/json reads one into a float64
// (the document was checked: the bytes are a valid JSON number).
func (s *scanner) num() (float64, bool) {
	s.space()
	start := s.i
	for s.i < len(s.b) && strings.IndexByte("+-0123456789.eE", s.b[s.i]) >= 0 {
		s.i++
	}
	lit := s.b[start:s.i]
	if len(lit) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}

// buildSortedTrie is buildTrie over sorted keys with payload ids[key]:
// the same edges (each node's sorted by byte, the root's also in its
// table) and payloads, the nodes numbered depth first instead of in
// insertion order, which the trie's readers never see.
func buildSortedTrie(keys []string, ids map[string]int) *trie {
	t := &trie{nodes: make([]trieNode, 1, 4*len(keys)+1)}
	t.nodes[0] = trieNode{value: -1}
	var build func(n int32, lo, hi, depth int)
	build = func(n int32, lo, hi, depth int) {
		if lo < hi && len(keys[lo]) == depth { // sorted: the key that ends here comes first
			t.nodes[n].value = int32(ids[keys[lo]])
			lo++
		}
		type group struct {
			c      byte
			lo, hi int
		}
		var groups []group
		for i := lo; i < hi; {
			c, j := keys[i][depth], i+1
			for j < hi && keys[j][depth] == c {
				j++
			}
			groups = append(groups, group{c, i, j})
			i = j
		}
		first := int32(len(t.nodes))
		t.nodes[n].start = int32(len(t.labels))
		for k, g := range groups {
			child := first + int32(k)
			t.nodes = append(t.nodes, trieNode{value: -1})
			t.labels, t.next = append(t.labels, g.c), append(t.next, child)
			if n == 0 {
				t.root[g.c] = child
			}
		}
		t.nodes[n].end = int32(len(t.labels))
		for k, g := range groups {
			build(first+int32(k), g.lo, g.hi, depth+1)
		}
	}
	build(0, 0, len(keys), 0)
	return t
}
