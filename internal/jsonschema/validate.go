package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxViolations bounds the violations one validation reports.
const maxViolations = 10

// Violation is one place where a document breaks its schema. Path is a
// JSON Pointer into the document ("" for the whole document,
// "/items/2/kind" for a field).
type Violation struct {
	Path string
	Msg  string
}

// ValidationError lists the first violations found (at most 10) in
// document order of the schema's walk.
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

// ValidateJSON parses data as one JSON value and validates it. A parse
// error is returned as is; violations as *ValidationError.
func (s *Schema) ValidateJSON(data []byte) error {
	v, err := decode(data)
	if err != nil {
		return fmt.Errorf("parse JSON: %w", err)
	}
	return s.Validate(v)
}

// Validate checks a decoded JSON value (from encoding/json, with numbers
// as json.Number or float64) and returns nil or a *ValidationError.
func (s *Schema) Validate(v any) error {
	var c checker
	c.check(s, v, "")
	if len(c.out) == 0 {
		return nil
	}
	return &ValidationError{Violations: c.out, More: c.more}
}

type checker struct {
	out  []Violation
	more bool
}

func (c *checker) fail(path, format string, args ...any) {
	if len(c.out) == maxViolations {
		c.more = true
		return
	}
	c.out = append(c.out, Violation{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) check(s *Schema, v any, path string) {
	if s.anyOf != nil && !c.anyOf(s, v, path) {
		return
	}
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		c.fail(path, "%s is %s, want %s", brief(v), kindOf(v), strings.Join(s.types, " or "))
		return
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return equal(e, v) }) {
		c.fail(path, "%s is not one of %s", brief(v), list(s.enum))
	}
	if s.constant != nil && !equal(s.constant[0], v) {
		c.fail(path, "%s is not %s", brief(v), brief(s.constant[0]))
	}
	switch t := v.(type) {
	case map[string]any:
		c.object(s, t, path)
	case []any:
		c.array(s, t, path)
	case string:
		c.str(s, t, path)
	case json.Number, float64:
		c.number(s, v, path)
	}
}

// anyOf reports whether v matches one of s.anyOf, recording a violation
// when it matches none.
func (c *checker) anyOf(s *Schema, v any, path string) bool {
	var first []string
	for _, sub := range s.anyOf {
		var b checker
		b.check(sub, v, path)
		if len(b.out) == 0 {
			return true
		}
		first = append(first, b.out[0].Msg)
	}
	if len(first) == 0 {
		c.fail(path, "no value is allowed here")
	} else {
		c.fail(path, "matches none of the anyOf schemas (%s)", strings.Join(first, "; "))
	}
	return false
}

func (c *checker) object(s *Schema, m map[string]any, path string) {
	for _, name := range s.required {
		if _, ok := m[name]; !ok {
			c.fail(path, "missing required property %q", name)
		}
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		sub := path + "/" + escape(name)
		if ps, ok := s.properties[name]; ok {
			c.check(ps, m[name], sub)
			continue
		}
		switch {
		case s.noAdditional:
			c.fail(path, "property %q is not allowed; allowed: %s", name, keys(s.properties))
		case s.additional != nil:
			c.check(s.additional, m[name], sub)
		}
	}
}

func (c *checker) array(s *Schema, a []any, path string) {
	if len(a) < s.minItems {
		c.fail(path, "%d items, want at least %d", len(a), s.minItems)
	}
	if s.maxItems >= 0 && len(a) > s.maxItems {
		c.fail(path, "%d items, want at most %d", len(a), s.maxItems)
	}
	if s.items == nil {
		return
	}
	for i, e := range a {
		c.check(s.items, e, path+"/"+strconv.Itoa(i))
	}
}

func (c *checker) str(s *Schema, v, path string) {
	n := utf8.RuneCountInString(v)
	if n < s.minLength {
		c.fail(path, "%d characters, want at least %d", n, s.minLength)
	}
	if s.maxLength >= 0 && n > s.maxLength {
		c.fail(path, "%d characters, want at most %d", n, s.maxLength)
	}
}

func (c *checker) number(s *Schema, v any, path string) {
	f, ok := toFloat(v)
	if !ok {
		c.fail(path, "%s is not a finite number", brief(v))
		return
	}
	if s.minimum != nil && f < *s.minimum {
		c.fail(path, "%s is less than the minimum %v", brief(v), *s.minimum)
	}
	if s.maximum != nil && f > *s.maximum {
		c.fail(path, "%s is greater than the maximum %v", brief(v), *s.maximum)
	}
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := toFloat(v)
		return ok
	case "integer":
		f, ok := toFloat(v)
		return ok && f == math.Trunc(f)
	}
	return false
}

func toFloat(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = n
	default:
		return 0, false
	}
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

// equal compares two decoded JSON values, numbers by value.
func equal(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			if yv, ok := y[k]; !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equal)
	}
	return a == b
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case json.Number, float64:
		if hasType(v, "integer") {
			return "an integer"
		}
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// brief renders a value for a message, cut to 40 bytes.
func brief(v any) string {
	data, _ := json.Marshal(v)
	if len(data) > 40 {
		return string(data[:37]) + "..."
	}
	return string(data)
}

func list(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = brief(v)
	}
	return strings.Join(parts, ", ")
}

func keys(m map[string]*Schema) string {
	if len(m) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// escape makes a property name a JSON Pointer token (RFC 6901).
func escape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
