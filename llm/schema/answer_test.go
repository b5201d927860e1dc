package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestAnswer(t *testing.T) {
	s := MustCompile([]byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	tests := []struct{ raw, want, err string }{
		{` {"n":1} `, `{"n":1}`, ""},
		{"```json\n{\"n\":1}\n```", `{"n":1}`, ""},
		{"```JSON\n{\"n\":1}\n```\n", `{"n":1}`, ""},
		{"```\n{\"n\":1}\n```", `{"n":1}`, ""},
		{"```{\"n\":1}```", `{"n":1}`, ""},
		{"```json\n{\"n\":1}", `{"n":1}`, ""}, // no closing fence
		{"```json\n{\"n\":1}\n```\nHope this helps!", "", "answer has text after its JSON value"},
		{`{"n":1} and more`, "", "answer has text after its JSON value"},
		{`{"n":1} {"n":2}`, "", "answer has text after its JSON value"},
		{`{"n":1}}`, "", "answer has text after its JSON value"},
		{`{"n":`, "", "answer is not JSON"},
		{``, "", "answer is not JSON"},
		{"```json\n```", "", "answer is not JSON"},
		{`{"n":1e400}`, "", "answer is not JSON"}, // not a finite float64
		{`{"n":"1"}`, "", `answer violates the schema: at /n: type: "1" is a string, want integer`},
		{`{}`, "", `answer violates the schema: at /: required: missing properties: ["n"]`},
	}
	for _, tt := range tests {
		got, err := Answer(tt.raw, s)
		var ie *cairn.InvalidOutputError
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Answer(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
		case tt.err != "" && (!errors.As(err, &ie) || !errors.Is(err, cairn.ErrInvalid) || ie.Raw != tt.raw || !strings.HasPrefix(ie.Reason, tt.err) || got != ""):
			t.Errorf("Answer(%q) = %q, %v; want invalid with %q keeping the raw text", tt.raw, got, err, tt.err)
		}
	}
	// Without a schema any one JSON value passes.
	if got, err := Answer("```\n[1, \"a\"]\n```", nil); err != nil || got != `[1, "a"]` {
		t.Errorf("no schema: %q, %v", got, err)
	}
}

func TestUnfence(t *testing.T) {
	for in, want := range map[string]string{
		"  {\"a\":1}\n":                   `{"a":1}`,
		"```json\n{\"a\":1}\n```":         `{"a":1}`,
		"```\n[1]\n```":                   `[1]`,
		"```[1]```":                       `[1]`,
		"```\"text\"```":                  `"text"`,
		"\n```json\n  {\"a\":1}  \n```\n": `{"a":1}`,
		"```":                             ``,
		"no fence":                        `no fence`,
		"``not a fence":                   "``not a fence",
	} {
		if got := Unfence(in); got != want {
			t.Errorf("Unfence(%q) = %q, want %q", in, got, want)
		}
	}
}
