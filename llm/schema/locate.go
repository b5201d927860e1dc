package schema

import (
	"iter"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// node is one subschema split from its children, so a failed answer can
// be validated one value at a time and each failure named by where it is
// in the answer. Every check is still jsonschema-go's: self is the
// subschema with the children split off replaced by true, and each child
// is validated by its own node.
//
// Split off: properties, additionalProperties (a schema other than false,
// and only beside no patternProperties, which would decide which
// properties it covers) and items (only without prefixItems, which would
// decide where it starts). Everything else (anyOf, allOf, not, prefix
// items, pattern properties) stays in self: its failures are reported at
// the value that holds them, in jsonschema-go's words.
type node struct {
	own   *jsonschema.Schema // what self was resolved from
	self  *jsonschema.Resolved
	props map[string]*node
	extra *node // additionalProperties
	items *node
}

// split builds the tree, or returns nil for a schema with references: a
// subschema resolved on its own would resolve "#/..." against itself.
func split(s *jsonschema.Schema) *node {
	if refers(s) {
		return nil
	}
	n, err := splitNode(s, s.Schema)
	if err != nil {
		return nil
	}
	return n
}

func splitNode(s *jsonschema.Schema, draft string) (*node, error) {
	n := &node{}
	own := *s // shallow: the subschemas kept are shared, which separate Resolves allow
	own.Schema = draft
	var err error
	if len(s.Properties) > 0 {
		n.props = make(map[string]*node, len(s.Properties))
		own.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
		for k, sub := range s.Properties {
			if n.props[k], err = splitNode(sub, draft); err != nil {
				return nil, err
			}
			own.Properties[k] = &jsonschema.Schema{} // still a known property for additionalProperties
		}
	}
	if a := s.AdditionalProperties; a != nil && !isFalse(a) && len(s.PatternProperties) == 0 {
		if n.extra, err = splitNode(a, draft); err != nil {
			return nil, err
		}
		own.AdditionalProperties = &jsonschema.Schema{}
	}
	if s.Items != nil && len(s.PrefixItems) == 0 {
		if n.items, err = splitNode(s.Items, draft); err != nil {
			return nil, err
		}
		own.Items = &jsonschema.Schema{}
	}
	n.own = &own
	n.self, err = own.Resolve(nil)
	return n, err
}

// refers reports whether s or a subschema uses $ref or $dynamicRef.
func refers(s *jsonschema.Schema) bool {
	if s.Ref != "" || s.DynamicRef != "" {
		return true
	}
	for _, sub := range children(s) {
		if refers(sub) {
			return true
		}
	}
	return false
}

// isFalse reports whether s is the false schema (jsonschema-go reads false
// as {"not": {}}, and tests it the same way); it stays in self, whose
// message lists the properties not allowed.
func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// collector gathers the violations of one validation.
type collector struct {
	out  []Violation
	more bool
}

// add records that v at path breaks s (err from validating it).
func (c *collector) add(path string, err error, v any, s *jsonschema.Schema) {
	if len(c.out) == MaxViolations {
		c.more = true
		return
	}
	c.out = append(c.out, Violation{Path: path, Msg: message(err, v, s)})
}

// check validates v against n and then its parts against n's children,
// adding a violation for each value that breaks its own keywords.
func (n *node) check(v any, path string, c *collector) {
	if c.more {
		return
	}
	if err := n.self.Validate(v); err != nil {
		c.add(path, err, v, n.own)
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			sub, ok := n.props[k]
			if !ok {
				sub = n.extra
			}
			if sub != nil {
				sub.check(t[k], path+"/"+escape(k), c)
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		for i, e := range t {
			n.items.check(e, path+"/"+strconv.Itoa(i), c)
		}
	}
}

// escape makes a property name a JSON Pointer token (RFC 6901).
func escape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

var (
	schemaPtr   = reflect.TypeFor[*jsonschema.Schema]()
	schemaSlice = reflect.TypeFor[[]*jsonschema.Schema]()
	schemaMap   = reflect.TypeFor[map[string]*jsonschema.Schema]()
)

// children yields every subschema of s with its path below s, found by
// the fields' types, so a keyword jsonschema-go adds is walked too.
func children(s *jsonschema.Schema) iter.Seq2[string, *jsonschema.Schema] {
	return func(yield func(string, *jsonschema.Schema) bool) {
		v := reflect.ValueOf(s).Elem()
		for i := range v.NumField() {
			f, name := v.Field(i), keyword(v.Type().Field(i))
			switch f.Type() {
			case schemaPtr:
				if !f.IsNil() && !yield(name, f.Interface().(*jsonschema.Schema)) {
					return
				}
			case schemaSlice:
				for j, sub := range f.Interface().([]*jsonschema.Schema) {
					if !yield(name+"/"+strconv.Itoa(j), sub) {
						return
					}
				}
			case schemaMap:
				m := f.Interface().(map[string]*jsonschema.Schema)
				for _, k := range slices.Sorted(maps.Keys(m)) {
					if !yield(name+"/"+escape(k), m[k]) {
						return
					}
				}
			}
		}
	}
}

// keyword is a field's JSON name; fields jsonschema-go reads by hand
// (tag "-": items, type, dependencies) by their Go name, lower-cased.
func keyword(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" || name == "-" {
		r, n := utf8.DecodeRuneInString(f.Name)
		name = string(unicode.ToLower(r)) + f.Name[n:]
	}
	return name
}
