package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// message says why v breaks s, for a model asked to fix its answer: the
// keyword jsonschema-go reported, then the reason. jsonschema-go renders
// values with Go's %v (strings unquoted, null as "<invalid reflect.Value>",
// objects as map[...], numbers as fractions: "0/1 is less than
// 1.000000"), so for the keywords about one value the reason is written
// again here from v and s, with values as JSON; properties not allowed
// come with the names that are. Either way the message is one line of at
// most maxMessage bytes.
func message(err error, v any, s *jsonschema.Schema) string {
	depth := 0
	for {
		u := errors.Unwrap(err)
		if u == nil || !strings.HasPrefix(err.Error(), "validating ") {
			break
		}
		err, depth = u, depth+1
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	kw, _, _ := strings.Cut(msg, ":")
	// depth 1: the failure is s's own keyword, not one of a subschema
	// inside anyOf or allOf, whose bounds s does not hold.
	if f := reworded[kw]; f != nil && depth == 1 && s != nil {
		if r := f(v, s); r != "" {
			msg = kw + ": " + r
		}
	}
	if strings.HasPrefix(msg, "unexpected additional properties") && depth == 1 && s != nil && len(s.Properties) > 0 {
		msg += " (allowed: " + strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", ") + ")"
	}
	return cut(msg, maxMessage)
}

// reworded writes the reason for a keyword from the value and the schema;
// "" keeps jsonschema-go's words.
var reworded = map[string]func(v any, s *jsonschema.Schema) string{
	"type": func(v any, s *jsonschema.Schema) string {
		want := s.Type
		if want == "" {
			want = strings.Join(s.Types, " or ")
		}
		return fmt.Sprintf("%s is %s, want %s", brief(v), kindOf(v), want)
	},
	"enum": func(v any, s *jsonschema.Schema) string {
		parts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			parts[i] = brief(e)
		}
		return fmt.Sprintf("%s is not one of %s", brief(v), strings.Join(parts, ", "))
	},
	"const": func(v any, s *jsonschema.Schema) string {
		if s.Const == nil {
			return ""
		}
		return fmt.Sprintf("%s is not %s", brief(v), brief(*s.Const))
	},
	"not": func(v any, s *jsonschema.Schema) string {
		if isFalse(s) {
			return "no value is allowed here"
		}
		return ""
	},
	"minimum":          bound(func(s *jsonschema.Schema) *float64 { return s.Minimum }, "is less than"),
	"maximum":          bound(func(s *jsonschema.Schema) *float64 { return s.Maximum }, "is greater than"),
	"exclusiveMinimum": bound(func(s *jsonschema.Schema) *float64 { return s.ExclusiveMinimum }, "is not greater than"),
	"exclusiveMaximum": bound(func(s *jsonschema.Schema) *float64 { return s.ExclusiveMaximum }, "is not less than"),
	"multipleOf":       bound(func(s *jsonschema.Schema) *float64 { return s.MultipleOf }, "is not a multiple of"),
	"minLength":        length(func(s *jsonschema.Schema) *int { return s.MinLength }, "at least"),
	"maxLength":        length(func(s *jsonschema.Schema) *int { return s.MaxLength }, "at most"),
}

func bound(field func(*jsonschema.Schema) *float64, says string) func(any, *jsonschema.Schema) string {
	return func(v any, s *jsonschema.Schema) string {
		b := field(s)
		if b == nil {
			return ""
		}
		return fmt.Sprintf("%s %s %s", brief(v), says, strconv.FormatFloat(*b, 'g', -1, 64))
	}
}

func length(field func(*jsonschema.Schema) *int, says string) func(any, *jsonschema.Schema) string {
	return func(v any, s *jsonschema.Schema) string {
		n, ok := v.(string)
		if b := field(s); ok && b != nil {
			return fmt.Sprintf("%d characters, want %s %d", utf8.RuneCountInString(n), says, *b)
		}
		return ""
	}
}

// kindOf names a decoded JSON value's type as a message says it.
func kindOf(v any) string {
	switch n := v.(type) {
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
	case float64:
		if n == math.Trunc(n) {
			return "an integer"
		}
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// brief renders a value as JSON, cut to 40 bytes.
func brief(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(string(data), 40)
}

// cut shortens s to at most n bytes on a character boundary, marking the
// cut with "...".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - 3
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}
