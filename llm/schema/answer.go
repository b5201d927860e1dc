package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Answer checks a model's answer against s (nil: any JSON value) and
// returns its JSON text, unfenced and trimmed, for the caller to decode.
// An answer that is not one JSON value, or that violates s, is a
// *cairn.InvalidOutputError keeping the raw text: the answer is unusable
// as a whole (see the package doc) and must not be decoded.
func Answer(raw string, s *Schema) (string, error) {
	text := Unfence(raw)
	var v any // no UseNumber: jsonschema-go would see json.Number as a string
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&v); err != nil {
		return "", &cairn.InvalidOutputError{Reason: fmt.Sprintf("answer is not JSON: %v", err), Raw: raw}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", &cairn.InvalidOutputError{Reason: "answer has text after its JSON value", Raw: raw}
	}
	if s == nil {
		return text, nil
	}
	if err := s.Validate(v); err != nil {
		return "", &cairn.InvalidOutputError{Reason: "answer violates the schema: " + err.Error(), Raw: raw}
	}
	return text, nil
}

// Unfence returns text without surrounding blanks and without a Markdown
// code fence around it ("```json" or "```" on the first line, "```" at
// the end), which models in JSON mode sometimes add. It is the one
// fence-stripper for model answers. A missing closing fence is forgiven;
// a first line holding JSON ("```{...}```") is kept.
func Unfence(text string) string {
	s := strings.TrimSpace(text)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "```"), "```")
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.ContainsAny(s[:nl], "{[\"") {
		s = s[nl+1:] // the language tag line: ```json
	}
	return strings.TrimSpace(s)
}
