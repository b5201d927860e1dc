// Package schema checks a model's JSON answer against the JSON Schema its
// request asked for. github.com/google/jsonschema-go does the validating;
// this package adds what Cairn needs on top of it:
//
//   - where: jsonschema-go reports the first failure with the path of the
//     subschema ("/properties/items/items/properties/importance"), which
//     does not say which array element broke it. A failed answer is walked
//     again, one subschema at a time, so every violation comes with a JSON
//     Pointer into the answer ("/items/0/importance"), up to 10 of them: a
//     model asked again can fix them all at once.
//   - no silent promises: a keyword jsonschema-go does not know (a typo such
//     as "minimun") fails Compile instead of being ignored.
//   - bounded messages: each violation is one line of at most 200 bytes, as
//     jsonschema-go quotes whole values (a 10 KB string, an object).
//   - one fence-stripper: Answer accepts a JSON value inside a Markdown code
//     fence, which models in JSON mode sometimes add (Unfence).
//
// What a violation means, for every caller (the chat clients and
// consolidation): the answer as a whole is unusable. It is never decoded or
// read in part; Answer returns a *cairn.InvalidOutputError whose Reason
// names the violations ("answer violates the schema: at /items/0/importance:
// ...") and whose Raw keeps the text. Consolidation asks once more with that
// reason in the prompt and fails the window when the second answer is
// unusable too; nothing is dropped item by item.
//
// Quick start:
//
//	s, err := schema.Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`))
//	if err != nil { ... }               // malformed, or a keyword jsonschema-go does not know
//	text, err := schema.Answer("```json\n{\"n\":0}\n```", s)
//	// err: invalid model output: answer violates the schema: at /n: minimum: 0 is less than 1
package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// MaxViolations bounds the violations one validation reports.
const MaxViolations = 10

// maxMessage bounds one violation's message, in bytes.
const maxMessage = 200

// Schema is a compiled schema, immutable and safe for concurrent use.
type Schema struct {
	root *jsonschema.Resolved
	// tree locates violations; built on the first failed validation, as
	// valid answers never need it. nil when the schema cannot be split
	// (it uses $ref): a violation is then reported at the root.
	tree func() *node
}

// Compile parses and resolves a schema. It fails on malformed JSON, a
// schema jsonschema-go rejects, or a keyword it does not know; the error
// names the keyword and where it is.
func Compile(data []byte) (*Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	if err := known(&s, ""); err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	root, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	return &Schema{root: root, tree: sync.OnceValue(func() *node { return split(&s) })}, nil
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

// typeNames are JSON Schema's types.
var typeNames = []string{"object", "array", "string", "integer", "number", "boolean", "null"}

// drafts are the $schema values jsonschema-go validates ("" is 2020-12);
// it takes any other at Resolve and fails every Validate.
var drafts = []string{"", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#"}

// known fails on what jsonschema-go accepts but would not check as
// written: a keyword it parsed into Extra (one it does not implement, or a
// typo), a type name outside JSON Schema's (which no value matches) and a
// $schema it does not validate.
func known(s *jsonschema.Schema, at string) error {
	if !slices.Contains(drafts, s.Schema) {
		return fmt.Errorf("at %s: $schema %q; allowed: draft 2020-12 or draft-07", where(at), s.Schema)
	}
	for _, t := range append(slices.Clip(s.Types), s.Type) {
		if t != "" && !slices.Contains(typeNames, t) {
			return fmt.Errorf("at %s: type %q; allowed: %s", where(at), t, strings.Join(typeNames, ", "))
		}
	}
	if len(s.Extra) > 0 {
		names := make([]string, 0, len(s.Extra))
		for k := range s.Extra {
			names = append(names, k)
		}
		slices.Sort(names)
		return fmt.Errorf("at %s: unknown keyword %s (jsonschema-go would not check it)", where(at), strings.Join(names, ", "))
	}
	for k, sub := range children(s) {
		if err := known(sub, at+"/"+k); err != nil {
			return err
		}
	}
	return nil
}

// Violation is one place where an answer breaks its schema. Path is a JSON
// Pointer into the answer: "" for the whole answer, "/items/2/kind" for a
// field.
type Violation struct {
	Path string
	Msg  string
}

// ValidationError lists the first violations found (at most
// MaxViolations), object properties in name order.
type ValidationError struct {
	Violations []Violation
	More       bool // more violations were found and left out
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = "at " + where(v.Path) + ": " + v.Msg
	}
	msg := strings.Join(parts, "; ")
	if e.More {
		msg += "; and more"
	}
	return msg
}

// Validate checks a decoded JSON value and returns nil or a
// *ValidationError. The value must come from encoding/json decoding into
// an any without UseNumber: jsonschema-go sees a json.Number as a string.
func (s *Schema) Validate(v any) error {
	err := s.root.Validate(v)
	if err == nil {
		return nil
	}
	var c collector
	if t := s.tree(); t != nil {
		t.check(v, "", &c)
	}
	if len(c.out) == 0 { // the walk found nothing to blame: say what jsonschema-go said
		c.add("", err, v, s.root.Schema())
	}
	return &ValidationError{Violations: c.out, More: c.more}
}

func where(path string) string {
	if path == "" {
		return "/"
	}
	return path
}
