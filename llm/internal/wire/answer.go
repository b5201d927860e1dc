package wire

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/llm/schema"
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
// and matches cairn.ErrInvalid. Compiled schemas are kept by their text
// (jsonschema-go takes about 5 ms to read the window schema, 20 times
// what validating an answer takes), up to maxCompiled of them.
func Schema(req *cairn.LLMRequest) (*schema.Schema, string, error) {
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
	s, err := compiled.get(req.Schema)
	if err != nil {
		return nil, "", cairn.Invalidf("request schema %s: %v", name, err)
	}
	return s, name, nil
}

// maxCompiled bounds the compiled schemas kept; Cairn sends four.
const maxCompiled = 32

var compiled = &schemaCache{m: map[string]*schema.Schema{}}

// schemaCache keeps compiled schemas by their text.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*schema.Schema
}

func (c *schemaCache) get(text []byte) (*schema.Schema, error) {
	c.mu.Lock()
	s := c.m[string(text)]
	c.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := schema.Compile(text)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) < maxCompiled {
		c.m[string(text)] = s
	}
	c.mu.Unlock()
	return s, nil
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
