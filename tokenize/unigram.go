package tokenize

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/cairnmemory/cairn"
)

// unkPenalty is subtracted from the lowest piece score to score an unknown
// character, as in SentencePiece and HF (K_UNK_PENALTY).
const unkPenalty = 10.0

// unigram is SentencePiece's unigram model: the segmentation with the
// highest total piece score (Viterbi). A character no piece starts with
// becomes the unknown id, and consecutive unknowns merge into one.
type unigram struct {
	ids          map[string]int // piece to id; a repeated piece keeps its last id
	scores       []float64      // by id
	trie         *trie          // payload: id
	unk          int            // -1: none
	unkScore     float64
	byteFallback bool
}

type uniNode struct {
	score float64
	start int32 // -1: not reached
	id    int32
}

type uniTok struct {
	start, end, id int32
}

func parseUnigram(raw json.RawMessage) (model, error) {
	v := struct {
		Vocab        [][2]json.RawMessage `json:"vocab"`
		UnkID        *int                 `json:"unk_id"`
		ByteFallback bool                 `json:"byte_fallback"`
	}{}
	if err := decode("model Unigram", raw, &v); err != nil {
		return nil, err
	}
	m := &unigram{ids: make(map[string]int, len(v.Vocab)), scores: make([]float64, len(v.Vocab)),
		unk: -1, byteFallback: v.ByteFallback}
	minScore := math.Inf(1)
	for id, e := range v.Vocab {
		var piece string
		if err := json.Unmarshal(e[0], &piece); err != nil {
			return nil, fmt.Errorf("parse tokenizer model Unigram: vocab entry %d: %v: %w", id, err, cairn.ErrInvalid)
		}
		if err := json.Unmarshal(e[1], &m.scores[id]); err != nil {
			return nil, fmt.Errorf("parse tokenizer model Unigram: vocab entry %d: %v: %w", id, err, cairn.ErrInvalid)
		}
		m.ids[piece] = id
		minScore = min(minScore, m.scores[id])
	}
	if v.UnkID != nil {
		if *v.UnkID < 0 || *v.UnkID >= len(v.Vocab) {
			return nil, fmt.Errorf("parse tokenizer model Unigram: unk_id %d outside the vocab of %d: %w",
				*v.UnkID, len(v.Vocab), cairn.ErrInvalid)
		}
		m.unk = *v.UnkID
	}
	m.unkScore = minScore - unkPenalty
	keys := make([]string, 0, len(m.ids))
	vals := make([]int32, 0, len(m.ids))
	for piece, id := range m.ids {
		keys = append(keys, piece)
		vals = append(vals, int32(id))
	}
	m.trie = buildTrie(keys, vals)
	return m, nil
}

func (m *unigram) name() string { return "Unigram" }

func (m *unigram) tokenID(tok string) (int, bool) {
	id, ok := m.ids[tok]
	return id, ok
}

func (m *unigram) encode(ids []int, w string, sc *scratch) []int {
	n := len(w)
	if cap(sc.uni) < n+1 {
		sc.uni = make([]uniNode, n+1, 2*n+2)
	}
	nodes := sc.uni[:n+1]
	for i := range nodes {
		nodes[i] = uniNode{start: -1}
	}
	nodes[0].start = 0
	unk := int32(m.unk)
	for s := 0; s < n; {
		cur := nodes[s].score
		_, mblen := decodeRune(w, s)
		single := false
		for k, node := s, int32(0); k < n; k++ {
			if node = m.trie.child(node, w[k]); node == 0 {
				break
			}
			id := m.trie.nodes[node].value
			if id < 0 {
				continue
			}
			end := k + 1
			if c := cur + m.scores[id]; nodes[end].start < 0 || c > nodes[end].score {
				nodes[end] = uniNode{score: c, start: int32(s), id: id}
			}
			if end-s == mblen {
				single = true
			}
		}
		if !single {
			if c := cur + m.unkScore; nodes[s+mblen].start < 0 || c > nodes[s+mblen].score {
				nodes[s+mblen] = uniNode{score: c, start: int32(s), id: unk}
			}
		}
		s += mblen
	}
	// Walk back, merging runs of unknowns.
	path := sc.path[:0]
	for end := int32(n); end > 0; {
		nd := nodes[end]
		if nd.id == unk && len(path) > 0 && path[len(path)-1].id == unk && path[len(path)-1].start == end {
			path[len(path)-1].start = nd.start
		} else {
			path = append(path, uniTok{start: nd.start, end: end, id: nd.id})
		}
		end = nd.start
	}
	for i := len(path) - 1; i >= 0; i-- {
		ids = m.emit(ids, w, path[i])
	}
	sc.path = path
	return ids
}

// emit appends the id of one path token; a merged run of unknowns is
// looked up as a string first, as HF does.
func (m *unigram) emit(ids []int, w string, t uniTok) []int {
	if t.id != int32(m.unk) {
		return append(ids, int(t.id))
	}
	s := w[t.start:t.end]
	if id, ok := m.ids[s]; ok {
		return append(ids, id)
	}
	if m.byteFallback {
		if out, ok := m.bytes(ids, s); ok {
			return out
		}
	}
	if m.unk < 0 {
		return ids
	}
	return append(ids, m.unk)
}

// bytes appends the <0xXX> pieces of s, if the vocabulary has all of them.
func (m *unigram) bytes(ids []int, s string) ([]int, bool) {
	n := len(ids)
	for i := 0; i < len(s); i++ {
		id, ok := m.ids[byteToken(s[i])]
		if !ok {
			return ids[:n], false
		}
		ids = append(ids, id)
	}
	return ids, true
}

func byteToken(b byte) string {
	const hex = "0123456789ABCDEF"
	return string([]byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'})
}
