package jsonschema

import (
	"errors"
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

func TestValidate(t *testing.T) {
	s := MustCompile([]byte(item))
	tests := []struct {
		name, doc string
		want      string // a substring of the error; "" for valid
	}{
		{"valid", `{"segment_summary":"did it","items":[{"kind":"fact","importance":3,"cues":["a"],"event_date":null}]}`, ""},
		{"valid empty items", `{"segment_summary":"x","items":[]}`, ""},
		{"integer written as 3.0", `{"segment_summary":"x","items":[{"kind":"fact","importance":3.0,"cues":["a"]}]}`, ""},
		{"nullable date as string", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":["a"],"event_date":"2024-05"}]}`, ""},
		{"not an object", `[]`, `at /: [] is an array, want object`},
		{"missing required", `{"segment_summary":"x"}`, `at /: missing required property "items"`},
		{"extra property", `{"segment_summary":"x","items":[],"note":1}`, `property "note" is not allowed; allowed: items, segment_summary`},
		{"wrong type", `{"segment_summary":7,"items":[]}`, `at /segment_summary: 7 is an integer, want string`},
		{"empty string", `{"segment_summary":"","items":[]}`, `0 characters, want at least 1`},
		{"too long counts runes", `{"segment_summary":"ééééééééééééééééééééé","items":[]}`, `21 characters, want at most 20`},
		{"twenty runes fit", `{"segment_summary":"éééééééééééééééééééé","items":[]}`, ""},
		{"enum", `{"segment_summary":"x","items":[{"kind":"rumor","importance":3,"cues":["a"]}]}`, `at /items/0/kind: "rumor" is not one of "decision", "fact"`},
		{"integer below minimum", `{"segment_summary":"x","items":[{"kind":"fact","importance":0,"cues":["a"]}]}`, `0 is less than the minimum 1`},
		{"integer above maximum", `{"segment_summary":"x","items":[{"kind":"fact","importance":6,"cues":["a"]}]}`, `6 is greater than the maximum 5`},
		{"fraction is not an integer", `{"segment_summary":"x","items":[{"kind":"fact","importance":2.5,"cues":["a"]}]}`, `2.5 is a number, want integer`},
		{"number minimum", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"score":0.25,"cues":["a"]}]}`, `0.25 is less than the minimum 0.5`},
		{"boolean", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"contested":"no","cues":["a"]}]}`, `"no" is a string, want boolean`},
		{"null where not allowed", `{"segment_summary":null,"items":[]}`, `null is null, want string`},
		{"too many items", `{"segment_summary":"x","items":[` + strings.Repeat(`{"kind":"fact","importance":2,"cues":["a"]},`, 2) + `{"kind":"fact","importance":2,"cues":["a"]}]}`, `3 items, want at most 2`},
		{"too few items", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":[]}]}`, `at /items/0/cues: 0 items, want at least 1`},
		{"item type", `{"segment_summary":"x","items":[{"kind":"fact","importance":2,"cues":[1]}]}`, `at /items/0/cues/0: 1 is an integer, want string`},
		{"several violations", `{"segment_summary":1,"items":[{"kind":"x","importance":9,"cues":[]}]}`, `at /items/0/cues: 0 items, want at least 1; at /items/0/importance`},
	}
	for _, tt := range tests {
		err := s.ValidateJSON([]byte(tt.doc))
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestValidateKeywords(t *testing.T) {
	tests := []struct {
		name, schema, doc, want string
	}{
		{"true accepts anything", `true`, `{"a":[1,null]}`, ""},
		{"false accepts nothing", `false`, `1`, "no value is allowed here"},
		{"no type accepts any type", `{"minLength":2}`, `5`, ""},
		{"const", `{"const":"v1"}`, `"v2"`, `"v2" is not "v1"`},
		{"enum of numbers compares values", `{"enum":[1,2]}`, `2.0`, ""},
		{"enum of objects", `{"enum":[{"a":[1]}]}`, `{"a":[1]}`, ""},
		{"enum of objects differs", `{"enum":[{"a":[1]}]}`, `{"a":[2]}`, `is not one of`},
		{"additionalProperties schema", `{"additionalProperties":{"type":"integer"}}`, `{"a":1,"b":"x"}`, `at /b: "x" is a string, want integer`},
		{"additionalProperties true", `{"properties":{"a":{}},"additionalProperties":true}`, `{"b":1}`, ""},
		{"anyOf matches one", `{"anyOf":[{"type":"string"},{"type":"integer","minimum":3}]}`, `4`, ""},
		{"anyOf matches none", `{"anyOf":[{"type":"string"},{"type":"integer","minimum":3}]}`, `2`, `matches none of the anyOf schemas (2 is an integer, want string; 2 is less than the minimum 3)`},
		{"pointer escapes", `{"properties":{"a/b":{"type":"string"}}}`, `{"a/b":1}`, `at /a~1b:`},
		{"text after the value", `{}`, `{} {}`, `text after the JSON value`},
		{"truncated", `{}`, `{"a":`, `parse JSON`},
	}
	for _, tt := range tests {
		s, err := Compile([]byte(tt.schema))
		if err != nil {
			t.Errorf("%s: compile: %v", tt.name, err)
			continue
		}
		err = s.ValidateJSON([]byte(tt.doc))
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestValidateBoundsViolations(t *testing.T) {
	s := MustCompile([]byte(`{"type":"array","items":{"type":"string"}}`))
	err := s.ValidateJSON([]byte(`[` + strings.Repeat(`1,`, 20) + `1]`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Violations) != maxViolations || !ve.More || !strings.HasSuffix(err.Error(), "; and more") {
		t.Fatalf("error %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"pattern":"^x"}}}`, `compile schema at /properties/a: pattern: unsupported keyword`},
		{`{"oneOf":[{}]}`, `oneOf: unsupported keyword`},
		{`{"$ref":"#/x"}`, `$ref: unsupported keyword`},
		{`{"type":"int"}`, `type "int"; allowed: object, array, string, integer, number, boolean, null`},
		{`{"type":3}`, `type: want a type name`},
		{`{"required":"a"}`, `required: want an array of strings`},
		{`{"maxItems":-1}`, `maxItems: want a non-negative integer`},
		{`{"maxLength":1.5}`, `maxLength: want a non-negative integer`},
		{`{"minimum":"1"}`, `minimum: want a number`},
		{`{"enum":[]}`, `enum: want a non-empty array`},
		{`{"anyOf":{}}`, `anyOf: want a non-empty array of schemas`},
		{`{"items":3}`, `compile schema at /items: a schema is an object or a boolean, not an integer`},
		{`{"properties":[]}`, `properties: want an object of schemas`},
		{`{"type":`, `parse schema`},
	}
	for _, tt := range tests {
		if _, err := Compile([]byte(tt.schema)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.schema, err, tt.want)
		}
	}
	// Annotations compile and are ignored.
	if _, err := Compile([]byte(`{"$schema":"x","title":"t","description":"d","default":1,"examples":[1],"format":"date","$comment":"c"}`)); err != nil {
		t.Errorf("annotations: %v", err)
	}
}
