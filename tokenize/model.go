package tokenize

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
)

var modelTypes = []string{"Unigram", "WordPiece", "BPE", "WordLevel"}

func parseModel(raw json.RawMessage) (model, error) {
	typ, err := typeOf(raw)
	if err != nil {
		return nil, err
	}
	if typ == "" {
		typ, err = guessModelType(raw)
		if err != nil {
			return nil, err
		}
	}
	switch typ {
	case "Unigram":
		return parseUnigram(raw)
	case "WordPiece":
		return parseWordPiece(raw)
	case "BPE":
		return parseBPE(raw)
	case "WordLevel":
		return parseWordLevel(raw)
	}
	return nil, unsupported("model", typ, modelTypes)
}

// guessModelType names the model of an untagged (older) file by its fields,
// as HF does.
func guessModelType(raw json.RawMessage) (string, error) {
	var v map[string]json.RawMessage
	if err := decode("model", raw, &v); err != nil {
		return "", err
	}
	switch {
	case v["merges"] != nil:
		return "BPE", nil
	case strings.HasPrefix(strings.TrimSpace(string(v["vocab"])), "["):
		return "Unigram", nil
	case v["max_input_chars_per_word"] != nil:
		return "WordPiece", nil
	case v["vocab"] != nil:
		return "WordLevel", nil
	}
	return "", fmt.Errorf("parse tokenizer: model without type or vocab (supported: %s): %w",
		strings.Join(modelTypes, ", "), ErrUnsupported)
}

// vocabMap is the {"token": id} vocabulary of WordPiece, BPE and WordLevel.
type vocabMap map[string]int

func (v vocabMap) id(kind, tok string) (int, error) {
	id, ok := v[tok]
	if !ok {
		return 0, fmt.Errorf("parse tokenizer %s: token %q not in vocab: %w", kind, tok, cairn.ErrInvalid)
	}
	return id, nil
}

// wordLevel maps each word to its id, or to the unknown token.
type wordLevel struct {
	vocab vocabMap
	unk   int
}

func parseWordLevel(raw json.RawMessage) (model, error) {
	v := struct {
		Vocab    vocabMap `json:"vocab"`
		UnkToken string   `json:"unk_token"`
	}{}
	if err := decode("model WordLevel", raw, &v); err != nil {
		return nil, err
	}
	unk, err := v.Vocab.id("model WordLevel unk_token", v.UnkToken)
	if err != nil {
		return nil, err
	}
	return &wordLevel{vocab: v.Vocab, unk: unk}, nil
}

func (m *wordLevel) name() string { return "WordLevel" }

func (m *wordLevel) tokenID(tok string) (int, bool) {
	id, ok := m.vocab[tok]
	return id, ok
}

func (m *wordLevel) encode(ids []int, w string, _ *scratch) []int {
	if id, ok := m.vocab[w]; ok {
		return append(ids, id)
	}
	return append(ids, m.unk)
}
