package tokenize

import (
	"encoding/json"
	"fmt"

	"github.com/cairnmemory/cairn"
)

var postProcessorTypes = []string{"TemplateProcessing", "BertProcessing", "RobertaProcessing",
	"ByteLevel", "Sequence"}

// parsePostProcessor reads the single-sequence part of a post-processor as
// the ids it puts before and after the sequence.
func parsePostProcessor(raw json.RawMessage, m model) ([]postStep, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "TemplateProcessing":
		step, err := parseTemplate(raw)
		if err != nil {
			return nil, err
		}
		return []postStep{step}, nil
	case "BertProcessing", "RobertaProcessing":
		v := struct {
			Sep [2]json.RawMessage `json:"sep"`
			Cls [2]json.RawMessage `json:"cls"`
		}{}
		if err := decode("post_processor "+typ, raw, &v); err != nil {
			return nil, err
		}
		var cls, sep int
		if err := json.Unmarshal(v.Cls[1], &cls); err != nil {
			return nil, fmt.Errorf("parse tokenizer post_processor %s cls: %v: %w", typ, err, cairn.ErrInvalid)
		}
		if err := json.Unmarshal(v.Sep[1], &sep); err != nil {
			return nil, fmt.Errorf("parse tokenizer post_processor %s sep: %v: %w", typ, err, cairn.ErrInvalid)
		}
		return []postStep{{before: []int{cls}, after: []int{sep}}}, nil
	case "ByteLevel":
		return nil, nil // trims offsets only
	case "Sequence":
		v := struct {
			Processors []json.RawMessage `json:"processors"`
		}{}
		if err := decode("post_processor Sequence", raw, &v); err != nil {
			return nil, err
		}
		var steps []postStep
		for _, r := range v.Processors {
			s, err := parsePostProcessor(r, m)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		}
		return steps, nil
	}
	return nil, unsupported("post_processor", typ, postProcessorTypes)
}

type templateItem struct {
	SpecialToken *struct {
		ID string `json:"id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID string `json:"id"`
	} `json:"Sequence"`
}

func parseTemplate(raw json.RawMessage) (postStep, error) {
	v := struct {
		Single        []templateItem `json:"single"`
		SpecialTokens map[string]struct {
			IDs []int `json:"ids"`
		} `json:"special_tokens"`
	}{}
	if err := decode("post_processor TemplateProcessing", raw, &v); err != nil {
		return postStep{}, err
	}
	var step postStep
	seen := false
	for _, it := range v.Single {
		switch {
		case it.Sequence != nil:
			seen = true
		case it.SpecialToken != nil:
			tok, ok := v.SpecialTokens[it.SpecialToken.ID]
			if !ok {
				return postStep{}, fmt.Errorf("parse tokenizer post_processor TemplateProcessing: "+
					"special token %q not in special_tokens: %w", it.SpecialToken.ID, cairn.ErrInvalid)
			}
			if seen {
				step.after = append(step.after, tok.IDs...)
			} else {
				step.before = append(step.before, tok.IDs...)
			}
		}
	}
	return step, nil
}
