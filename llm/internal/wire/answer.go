package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/internal/jsonschema"
)

// validSchemaName reports whether name is 1 to 64 letters, digits, _ and
// - (a loop: the equivalent regexp compiles 64 states at process start).
func validSchemaName(name string) bool {
	if len(name) < 1 || len(name) > 64 {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// DefaultSchemaName names a schema on the wire when the request gives none.
const DefaultSchemaName = "answer"

// Schema compiles the request's schema (nil when it has none) and returns
// the name to send it under. A bad schema or name is the caller's error
// and matches cairn.ErrInvalid.
func Schema(req *cairn.LLMRequest) (*jsonschema.Schema, string, error) {
	if len(req.Schema) == 0 {
		return nil, "", nil
	}
	name := req.SchemaName
	if name == "" {
		name = DefaultSchemaName
	}
	if !validSchemaName(name) {
		return nil, "", cairn.Invalidf("schema name %q; allowed: 1 to 64 letters, digits, _ and -", name)
	}
	s, err := jsonschema.Compile(req.Schema)
	if err != nil {
		return nil, "", cairn.Invalidf("request schema %s: %v", name, err)
	}
	return s, name, nil
}

// Answer checks a model's JSON answer against s (nil: any JSON) and returns it without
// surrounding blanks or a Markdown code fence (which models in JSON mode
// sometimes add). An answer that does not parse or violates s is a
// *cairn.InvalidOutputError keeping the raw text.
func Answer(raw string, s *jsonschema.Schema) (string, error) {
	text := unfence(strings.TrimSpace(raw))
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", &cairn.InvalidOutputError{Reason: fmt.Sprintf("answer is not JSON: %v", err), Raw: raw}
	}
	if dec.More() {
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

func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	s = strings.TrimSuffix(s[3:], "```")
	if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.ContainsAny(s[:nl], "{[\"") {
		s = s[nl+1:] // the language tag line: ```json
	}
	return strings.TrimSpace(s)
}

// Truncated is the error for an answer cut at the output limit.
func Truncated(raw string, limit int) error {
	return &cairn.InvalidOutputError{Reason: fmt.Sprintf("answer cut at the output limit (max_tokens %d)", limit), Raw: raw}
}

// InPrompt is the instruction added to the system prompt when the server
// cannot enforce a schema itself.
func InPrompt(system string, schema []byte) string {
	text := "Answer with one JSON value and nothing else: no prose, no Markdown fence. It must satisfy this JSON Schema:\n" + string(schema)
	if system == "" {
		return text
	}
	return system + "\n\n" + text
}

// Spent wraps the error of a call that reached the model and was billed
// but still failed (an answer cut short or off the schema), so usage
// counting sees the tokens.
type Spent struct {
	Err                 error
	TokensIn, TokensOut int
}

func (e *Spent) Error() string { return e.Err.Error() }
func (e *Spent) Unwrap() error { return e.Err }

// Tokens reports what the failed call cost.
func (e *Spent) Tokens() (in, out int) { return e.TokensIn, e.TokensOut }

// Header returns an http.Header from name, value pairs, skipping empty
// values.
func Header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			h.Set(kv[i], kv[i+1])
		}
	}
	return h
}
