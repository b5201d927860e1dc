package schema

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// item is shaped like the consolidation answer: nested objects, enums,
// bounded arrays, integers with a range, nullable dates.
const item = `{
  "type": "object",
  "description": "one window's answer",
  "properties": {
    "segment_summary": {"type": "string", "minLength": 1, "maxLength": 20},
    "items": {
      "type": "array", "maxItems": 2,
      "items": {
        "type": "object",
        "properties": {
          "kind": {"type": "string", "enum": ["decision", "fact"]},
          "importance": {"type": "integer", "minimum": 1, "maximum": 5},
          "score": {"type": "number", "minimum": 0.5},
          "contested": {"type": "boolean"},
          "event_date": {"type": ["string", "null"]},
          "cues": {"type": "array", "items": {"type": "string"}, "minItems": 1}
        },
        "required": ["kind", "importance", "cues"],
        "additionalProperties": false
      }
    }
  },
  "required": ["segment_summary", "items"],
  "additionalProperties": false
}`

// validate decodes doc as Answer does and validates it.
func validate(t *testing.T, s *Schema, doc string) error {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("test document %s: %v", doc, err)
	}
	return s.Validate(v)
}

func TestValidate(t *testing.T) {
	s := MustCompile([]byte(item))
	tests := []struct {
		name, doc string
		want      string // the whole error; "" for valid
	}{
		{"valid", `{"segment_summary":"did it","items":[{"kind":"fact","importance":3,"cues":["a"],"event_date":null}]}`, ""},
		{"valid empty items", `{"segment_summary":"x","items":[]}`, ""},
		{"integer written as 3.0", `{"segment_summary":"x","items":[{"kind":"fact","importance":3.0,"cues":["a"]}]}`, ""},
		{"nullable date as string", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":["a"],"event_date":"2024-05"}]}`, ""},
		{"twenty runes fit", `{"segment_summary":"éééééééééééééééééééé","items":[]}`, ""},
		{"not an object", `[]`, `at /: type: [] is an array, want object`},
		{"missing required", `{"segment_summary":"x"}`, `at /: required: missing properties: ["items"]`},
		{"extra property", `{"segment_summary":"x","items":[],"note":1}`, `at /: unexpected additional properties ["note"] (allowed: items, segment_summary)`},
		{"wrong type", `{"segment_summary":7,"items":[]}`, `at /segment_summary: type: 7 is an integer, want string`},
		{"empty string", `{"segment_summary":"","items":[]}`, `at /segment_summary: minLength: 0 characters, want at least 1`},
		{"too long counts runes", `{"segment_summary":"ééééééééééééééééééééé","items":[]}`, `at /segment_summary: maxLength: 21 characters, want at most 20`},
		{"enum", `{"segment_summary":"x","items":[{"kind":"rumor","importance":3,"cues":["a"]}]}`, `at /items/0/kind: enum: "rumor" is not one of "decision", "fact"`},
		{"integer below minimum", `{"segment_summary":"x","items":[{"kind":"fact","importance":0,"cues":["a"]}]}`, `at /items/0/importance: minimum: 0 is less than 1`},
		{"integer above maximum", `{"segment_summary":"x","items":[{"kind":"fact","importance":6,"cues":["a"]}]}`, `at /items/0/importance: maximum: 6 is greater than 5`},
		{"fraction is not an integer", `{"segment_summary":"x","items":[{"kind":"fact","importance":2.5,"cues":["a"]}]}`, `at /items/0/importance: type: 2.5 is a number, want integer`},
		{"number minimum", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"score":0.25,"cues":["a"]}]}`, `at /items/0/score: minimum: 0.25 is less than 0.5`},
		{"boolean", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"contested":"no","cues":["a"]}]}`, `at /items/0/contested: type: "no" is a string, want boolean`},
		{"null where not allowed", `{"segment_summary":null,"items":[]}`, `at /segment_summary: type: null is null, want string`},
		{"type list", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":["a"],"event_date":5}]}`, `at /items/0/event_date: type: 5 is an integer, want string or null`},
		{"too many items", `{"segment_summary":"x","items":[` + strings.Repeat(`{"kind":"fact","importance":2,"cues":["a"]},`, 2) + `{"kind":"fact","importance":2,"cues":["a"]}]}`, `at /items: maxItems: array length 3 is greater than 2`},
		{"too few items", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":[]}]}`, `at /items/0/cues: minItems: array length 0 is less than 1`},
		{"item type", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":[1]}]}`, `at /items/0/cues/0: type: 1 is an integer, want string`},
		{"second element", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":["a"]},{"kind":"fact","importance":"2","cues":["a"]}]}`, `at /items/1/importance: type: "2" is a string, want integer`},
		{"several violations, properties in name order", `{"segment_summary":1,"items":[{"kind":"x","importance":9,"cues":[]}]}`,
			`at /items/0/cues: minItems: array length 0 is less than 1; at /items/0/importance: maximum: 9 is greater than 5; ` +
				`at /items/0/kind: enum: "x" is not one of "decision", "fact"; at /segment_summary: type: 1 is an integer, want string`},
		// One violation per value (jsonschema-go stops at a value's first failing keyword), then its parts'.
		{"a value's own violation and its parts'", `{"items":[{"importance":0,"cues":["a"],"x":1}]}`,
			`at /: required: missing properties: ["segment_summary"]; at /items/0: unexpected additional properties ["x"] (allowed: contested, cues, event_date, importance, kind, score); at /items/0/importance: minimum: 0 is less than 1`},
	}
	for _, tt := range tests {
		err := validate(t, s, tt.doc)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || err.Error() != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.name, err, tt.want)
		}
	}
}

func TestValidateKeywords(t *testing.T) {
	tests := []struct {
		name, schema, doc, want string
	}{
		{"true accepts anything", `true`, `{"a":[1,null]}`, ""},
		{"false accepts nothing", `false`, `1`, `at /: not: no value is allowed here`},
		{"false property", `{"properties":{"a":false}}`, `{"a":1}`, `at /a: not: no value is allowed here`},
		{"no type accepts any type", `{"minLength":2}`, `5`, ""},
		{"const", `{"const":"v1"}`, `"v2"`, `at /: const: "v2" is not "v1"`},
		{"enum of numbers compares values", `{"enum":[1,2]}`, `2.0`, ""},
		{"enum of objects", `{"enum":[{"a":[1]}]}`, `{"a":[1]}`, ""},
		{"enum of objects differs", `{"enum":[{"a":[1]}]}`, `{"a":[2]}`, `at /: enum: {"a":[2]} is not one of {"a":[1]}`},
		{"exclusive bound", `{"exclusiveMaximum":1}`, `1`, `at /: exclusiveMaximum: 1 is not less than 1`},
		{"additionalProperties schema", `{"additionalProperties":{"type":"integer"}}`, `{"a":1,"b":"x"}`, `at /b: type: "x" is a string, want integer`},
		{"additionalProperties true", `{"properties":{"a":{}},"additionalProperties":true}`, `{"b":1}`, ""},
		{"anyOf matches one", `{"anyOf":[{"type":"string"},{"type":"integer","minimum":3}]}`, `4`, ""},
		{"anyOf matches none: jsonschema-go's words", `{"anyOf":[{"type":"string"},{"type":"integer","minimum":3}]}`, `2`, `at /: anyOf: did not validate against any of`},
		{"allOf: the subschema's bound is not reworded", `{"minimum":0,"allOf":[{"minimum":3}]}`, `2`, `at /: minimum: 2/1 is less than 3.000000`},
		{"anyOf inside properties", `{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, `{"a":1}`, `at /a: anyOf: did not validate against any of`},
		{"prefixItems stay whole", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a","b"]`, `at /: type: b has type "string", want "integer"`},
		{"pointer escapes", `{"properties":{"a/b~c":{"type":"string"}}}`, `{"a/b~c":1}`, `at /a~1b~0c: type: 1 is an integer, want string`},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":{"type":"string"}}}}`, `{"a":["x",2]}`, `at /a/1: type: 2 is an integer, want string`},
		// Split off, the subschema would resolve "#/$defs/n" against its own $defs and blame /a.
		{"$ref resolves in the whole schema", `{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$defs":{"n":{"type":"string"}},"$ref":"#/$defs/n"},"b":{"type":"string"}}}`,
			`{"a":1,"b":2}`, `at /: type: 2 has type "integer", want "string"`},
		{"$ref: no split, reported at the root", `{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, `{"a":"x"}`, `at /: type: x has type "string", want "integer"`},
	}
	for _, tt := range tests {
		s, err := Compile([]byte(tt.schema))
		if err != nil {
			t.Errorf("%s: compile: %v", tt.name, err)
			continue
		}
		err = validate(t, s, tt.doc)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
			t.Errorf("%s:\n got %v\nwant %s", tt.name, err, tt.want)
		}
	}
}

func TestValidateBounds(t *testing.T) {
	s := MustCompile([]byte(`{"type":"array","items":{"type":"string"}}`))
	err := validate(t, s, `[`+strings.Repeat(`1,`, 20)+`1]`)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Violations) != MaxViolations || !ve.More || !strings.HasSuffix(err.Error(), "; and more") {
		t.Fatalf("error %v", err)
	}
	// A message quotes at most 40 bytes of a value and is at most 200 bytes.
	s = MustCompile([]byte(`{"properties":{"a":{"type":"integer"},"b":{"pattern":"^x"}}}`))
	long := strings.Repeat("é", 300)
	err = validate(t, s, `{"a":"`+long+`","b":"`+long+`"}`)
	if !errors.As(err, &ve) || len(ve.Violations) != 2 {
		t.Fatalf("error %v", err)
	}
	if got, want := ve.Violations[0].Msg, `type: "`+strings.Repeat("é", 18)+`... is a string, want integer`; got != want {
		t.Errorf("type message %q, want %q", got, want)
	}
	if m := ve.Violations[1].Msg; len(m) > maxMessage || !strings.HasPrefix(m, `pattern: "éé`) || !strings.HasSuffix(m, "é...") {
		t.Errorf("pattern message (%d bytes) %q", len(m), m)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"minimun":1,"patern":"x"}}}`, `compile schema: at /properties/a: unknown keyword minimun, patern (jsonschema-go would not check it)`},
		{`{"anyOf":[{"typ":"string"}]}`, `compile schema: at /anyOf/0: unknown keyword typ`},
		{`{"items":{"items":{"x-note":1}}}`, `compile schema: at /items/items: unknown keyword x-note`},
		{`{"type":"int"}`, `compile schema: at /: type "int"; allowed: object, array, string, integer, number, boolean, null`},
		{`{"properties":{"a":{"type":["string","nul"]}}}`, `compile schema: at /properties/a: type "nul"`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, `compile schema: at /: $schema "http://json-schema.org/draft-04/schema#"; allowed: draft 2020-12 or draft-07`},
		{`{"$ref":"#/x"}`, `compile schema: `},
		{`{"type":3}`, `parse schema: `},
		{`{"required":"a"}`, `parse schema: `},
		{`{"maxLength":1.5}`, `parse schema: `},
		{`{"minimum":"1"}`, `parse schema: `},
		{`{"anyOf":{}}`, `parse schema: `},
		{`{"items":3}`, `parse schema: `},
		{`{"type":`, `parse schema: `},
	}
	for _, tt := range tests {
		if _, err := Compile([]byte(tt.schema)); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.schema, err, tt.want)
		}
	}
	// Annotations compile and are ignored; format is not checked (jsonschema-go's choice).
	s, err := Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t","description":"d","default":1,"examples":[1],"format":"date","$comment":"c"}`))
	if err != nil {
		t.Fatalf("annotations: %v", err)
	}
	if err := validate(t, s, `"not a date"`); err != nil {
		t.Errorf("format: %v", err)
	}
}

// readSchema reads one of consolidation's schemas.
func readSchema(t testing.TB, name string) *Schema {
	t.Helper()
	data, err := os.ReadFile("../../consolidate/prompts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return MustCompile(data)
}

// edit returns the window answer in testdata with change applied.
func edit(t testing.TB, change func(a map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile("testdata/window-answer.json")
	if err != nil {
		t.Fatal(err)
	}
	var a map[string]any
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	change(a)
	out, _ := json.Marshal(a)
	return string(out)
}

func itemAt(a map[string]any, i int) map[string]any { return a["items"].([]any)[i].(map[string]any) }

// TestWindowSchema checks consolidation's window schema with a whole answer
// and answers broken the ways models break them.
func TestWindowSchema(t *testing.T) {
	s := readSchema(t, "window.schema.json")
	tests := []struct {
		name   string
		change func(a map[string]any)
		want   string
	}{
		{"valid", func(map[string]any) {}, ""},
		{"empty lists", func(a map[string]any) { a["episodes"], a["items"], a["observations"] = []any{}, []any{}, []any{} }, ""},
		{"importance as a word in every item", func(a map[string]any) {
			for i := range a["items"].([]any) {
				itemAt(a, i)["importance"] = "high"
			}
		}, `at /items/0/importance: type: "high" is a string, want integer; at /items/1/importance: type: "high" is a string, want integer; at /items/2/importance:`},
		{"importance out of range", func(a map[string]any) { itemAt(a, 3)["importance"] = 7 }, `at /items/3/importance: maximum: 7 is greater than 5`},
		{"unknown kind", func(a map[string]any) { itemAt(a, 0)["kind"] = "rumor" }, `at /items/0/kind: enum: "rumor" is not one of "decision", "procedure", "snippet", "template", "pitfall", "fact", "architecture", "preference", "reference"`},
		{"missing field", func(a map[string]any) { delete(itemAt(a, 1), "scope") }, `at /items/1: required: missing properties: ["scope"]`},
		{"extra field", func(a map[string]any) { itemAt(a, 1)["note"] = "x" }, `at /items/1: unexpected additional properties ["note"] (allowed: ambiguous, applies_when, body, concepts, confidence, contested, cues, importance, kind, requests, scope, summary, title)`},
		{"missing top-level list", func(a map[string]any) { delete(a, "observations") }, `at /: required: missing properties: ["observations"]`},
		{"keep as a string", func(a map[string]any) { a["episodes"].([]any)[0].(map[string]any)["keep"] = "yes" }, `at /episodes/0/keep: type: "yes" is a string, want boolean`},
		{"request as a float", func(a map[string]any) { a["episodes"].([]any)[2].(map[string]any)["request"] = 2.5 }, `at /episodes/2/request: type: 2.5 is a number, want integer`},
		{"observation phase", func(a map[string]any) { a["observations"].([]any)[4].(map[string]any)["phase"] = "past" }, `at /observations/4/phase: enum: "past" is not one of "done", "plan", "ongoing", "state"`},
		{"cues as one string", func(a map[string]any) { itemAt(a, 2)["cues"] = "shop" }, `at /items/2/cues: type: "shop" is a string, want array`},
	}
	for _, tt := range tests {
		err := validate(t, s, edit(t, tt.change))
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
			t.Errorf("%s:\n got %v\nwant %s", tt.name, err, tt.want)
		}
	}
}
