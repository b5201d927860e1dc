// Package jsonschema validates JSON documents against the subset of JSON
// Schema that Cairn's model answers use: the subset OpenAI's strict
// structured outputs and Anthropic's tool input schemas share, plus the
// bounds that make an answer usable.
//
// Supported keywords: type (a name or a list of names: object, array,
// string, integer, number, boolean, null), properties, required,
// additionalProperties (true, false or a schema), items, minItems,
// maxItems, enum, const, minimum, maximum, minLength, maxLength (counted in
// Unicode code points), anyOf. Annotations are accepted and ignored:
// $schema, $id, $comment, title, description, default, examples, format.
// Any other keyword fails Compile, so a schema never silently promises a
// check that does not run.
//
// Quick start:
//
//	s, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false}`))
//	if err != nil { ... }            // an unsupported keyword or a malformed schema
//	err = s.ValidateJSON([]byte(`{"n":0}`))
//	// err: "at /n: 0 is less than the minimum 1"
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	types        []string // empty: any type
	properties   map[string]*Schema
	required     []string
	additional   *Schema // nil: any additional property; see noAdditional
	noAdditional bool
	items        *Schema
	minItems     int
	maxItems     int // -1: no bound
	enum         []any
	constant     []any // zero or one value
	minimum      *float64
	maximum      *float64
	minLength    int
	maxLength    int // -1: no bound
	anyOf        []*Schema
}

var typeNames = []string{"object", "array", "string", "integer", "number", "boolean", "null"}

var annotations = []string{"$schema", "$id", "$comment", "title", "description", "default", "examples", "format"}

// Compile parses a schema. It fails on malformed JSON, a keyword outside
// the supported subset, or a keyword whose value has the wrong shape; the
// error names the keyword and its path in the schema.
func Compile(data []byte) (*Schema, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	return compile(v, "")
}

// MustCompile is Compile for schemas written in the program; it panics on
// an error.
func MustCompile(data []byte) *Schema {
	s, err := Compile(data)
	if err != nil {
		panic(err)
	}
	return s
}

// decode reads one JSON value with numbers kept exact.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

func compile(v any, path string) (*Schema, error) {
	if b, ok := v.(bool); ok { // true accepts anything; false nothing
		if b {
			return &Schema{maxItems: -1, maxLength: -1}, nil
		}
		return &Schema{anyOf: []*Schema{}, maxItems: -1, maxLength: -1}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("compile schema at %s: a schema is an object or a boolean, not %s", where(path), kindOf(v))
	}
	s := &Schema{maxItems: -1, maxLength: -1}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic errors
	for _, k := range keys {
		if err := s.keyword(k, m[k], path); err != nil {
			return nil, fmt.Errorf("compile schema at %s: %s: %w", where(path), k, err)
		}
	}
	return s, nil
}

func where(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// keyword compiles one keyword of the schema at path into s.
func (s *Schema) keyword(k string, v any, path string) error {
	var err error
	switch k {
	case "type":
		s.types, err = compileTypes(v)
	case "properties":
		s.properties, err = compileProperties(v, path)
	case "required":
		s.required, err = stringList(v)
	case "additionalProperties":
		if b, ok := v.(bool); ok {
			s.noAdditional = !b
			return nil
		}
		s.additional, err = compile(v, path+"/additionalProperties")
	case "items":
		s.items, err = compile(v, path+"/items")
	case "anyOf":
		s.anyOf, err = compileList(v, path+"/anyOf")
	case "enum":
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("want a non-empty array")
		}
		s.enum = list
	case "const":
		s.constant = []any{v}
	case "minItems":
		s.minItems, err = count(v)
	case "maxItems":
		s.maxItems, err = count(v)
	case "minLength":
		s.minLength, err = count(v)
	case "maxLength":
		s.maxLength, err = count(v)
	case "minimum":
		s.minimum, err = bound(v)
	case "maximum":
		s.maximum, err = bound(v)
	default:
		if slices.Contains(annotations, k) {
			return nil
		}
		return fmt.Errorf("unsupported keyword; supported: type, properties, required, additionalProperties, items, " +
			"minItems, maxItems, enum, const, minimum, maximum, minLength, maxLength, anyOf and annotations")
	}
	return err
}

func compileTypes(v any) ([]string, error) {
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	case []any:
		var err error
		if names, err = stringList(t); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("want a type name or a list of them")
	}
	for _, n := range names {
		if !slices.Contains(typeNames, n) {
			return nil, fmt.Errorf("type %q; allowed: %s", n, strings.Join(typeNames, ", "))
		}
	}
	return names, nil
}

func compileProperties(v any, path string) (map[string]*Schema, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want an object of schemas")
	}
	out := make(map[string]*Schema, len(m))
	for name, sub := range m {
		s, err := compile(sub, path+"/properties/"+name)
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

func compileList(v any, path string) ([]*Schema, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("want a non-empty array of schemas")
	}
	out := make([]*Schema, len(list))
	for i, sub := range list {
		s, err := compile(sub, fmt.Sprintf("%s/%d", path, i))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of strings")
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("want an array of strings")
		}
		out[i] = s
	}
	return out, nil
}

func count(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want a non-negative integer")
	}
	i, err := n.Int64()
	if err != nil || i < 0 || i > 1<<31 {
		return 0, fmt.Errorf("want a non-negative integer, not %s", n)
	}
	return int(i), nil
}

func bound(v any) (*float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("want a number")
	}
	f, err := n.Float64()
	if err != nil {
		return nil, fmt.Errorf("want a number, not %s", n)
	}
	return &f, nil
}
