package tokenize

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
)

// ErrUnsupported is wrapped by load errors for components this package does
// not implement. It also matches cairn.ErrInvalid.
var ErrUnsupported = fmt.Errorf("unsupported tokenizer component: %w", cairn.ErrInvalid)

// Tokenizer encodes text the way a Hugging Face tokenizer.json describes.
type Tokenizer struct {
	added   *addedVocab
	norm    normalizer   // nil: none
	pre     preTokenizer // nil: the whole segment is one word
	model   model
	post    []postStep
	scratch sync.Pool // *scratch
}

// scratch holds the buffers one Encode call reuses.
type scratch struct {
	words []word
	tmp   []word
	ids   []int
	uni   []uniNode
	path  []uniTok
	syms  []bpeSymbol
}

// word is a pre-tokenized piece of a segment; off is its byte offset in the
// normalized segment and first says whether the segment starts the text.
type word struct {
	s     string
	off   int
	first bool
}

type normalizer interface {
	normalize(s string) string
}

type preTokenizer interface {
	// split appends the pieces of each word in src to dst.
	split(dst, src []word) []word
}

type model interface {
	name() string
	// encode appends the ids of one pre-tokenized word.
	encode(ids []int, w string, sc *scratch) []int
	tokenID(tok string) (int, bool)
}

type postStep struct {
	before, after []int
}

// Load reads and parses a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return t, nil
}

type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	Model         json.RawMessage  `json:"model"`
	PostProcessor json.RawMessage  `json:"post_processor"`
}

// Parse builds a Tokenizer from the contents of a tokenizer.json file.
func Parse(data []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse tokenizer json: %v: %w", err, cairn.ErrInvalid)
	}
	if isNull(f.Model) {
		return nil, fmt.Errorf("parse tokenizer: no model: %w", cairn.ErrInvalid)
	}
	t := &Tokenizer{}
	var err error
	if t.model, err = parseModel(f.Model); err != nil {
		return nil, err
	}
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

// Model names the tokenization model: "Unigram", "WordPiece", "BPE" or
// "WordLevel".
func (t *Tokenizer) Model() string { return t.model.name() }

// Encode returns the token ids of text, with the special tokens the
// post-processor adds (such as [CLS] and [SEP]) and no padding or
// truncation.
func (t *Tokenizer) Encode(text string) []int {
	sc := t.scratch.Get().(*scratch)
	ids := t.encode(sc.ids[:0], text, sc)
	out := make([]int, len(ids))
	copy(out, ids)
	sc.ids = ids
	t.scratch.Put(sc)
	return out
}

// Count returns len(t.Encode(text)) without allocating the result.
func (t *Tokenizer) Count(text string) int {
	sc := t.scratch.Get().(*scratch)
	ids := t.encode(sc.ids[:0], text, sc)
	n := len(ids)
	sc.ids = ids
	t.scratch.Put(sc)
	return n
}

func (t *Tokenizer) encode(ids []int, text string, sc *scratch) []int {
	// Later processors wrap the output of earlier ones.
	for i := len(t.post) - 1; i >= 0; i-- {
		ids = append(ids, t.post[i].before...)
	}
	if t.added == nil {
		ids = t.encodeSegment(ids, text, true, sc)
	} else {
		ids = t.added.each(ids, text, func(ids []int, seg string, first bool) []int {
			return t.encodeSegment(ids, seg, first, sc)
		})
	}
	for _, p := range t.post {
		ids = append(ids, p.after...)
	}
	return ids
}

// encodeSegment normalizes, pre-tokenizes and encodes text that holds no
// added token.
func (t *Tokenizer) encodeSegment(ids []int, seg string, first bool, sc *scratch) []int {
	if t.norm != nil {
		seg = t.norm.normalize(seg)
	}
	if seg == "" {
		return ids
	}
	words := append(sc.words[:0], word{s: seg, first: first})
	if t.pre != nil {
		words = t.pre.split(sc.tmp[:0], words)
		sc.tmp = sc.words // swap buffers
	}
	for _, w := range words {
		if w.s != "" {
			ids = t.model.encode(ids, w.s, sc)
		}
	}
	sc.words = words[:0]
	return ids
}

// typeOf reads the "type" field of a component; "" when there is none.
func typeOf(raw json.RawMessage) (string, error) {
	var h struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", fmt.Errorf("parse tokenizer json: %v: %w", err, cairn.ErrInvalid)
	}
	return h.Type, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

func unsupported(kind, typ string, supported []string) error {
	return fmt.Errorf("parse tokenizer: %s type %q (supported: %s): %w",
		kind, typ, strings.Join(supported, ", "), ErrUnsupported)
}

func decode(kind string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("parse tokenizer %s: %v: %w", kind, err, cairn.ErrInvalid)
	}
	return nil
}
