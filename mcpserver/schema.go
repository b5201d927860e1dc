package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/cairnmemory/cairn"
	"github.com/google/jsonschema-go/jsonschema"
)

// Limits of the tool inputs (spec C11, C13).
const (
	DefaultMaxResults = 5
	MaxMaxResults     = 20
	DefaultMinScore   = cairn.DefaultMinScore
	DefaultGetFrom    = 1
	// MaxGetFrom is the largest integer a JSON number carries exactly
	// (2^53-1): MCP clients and the SDK hold numbers as float64, so a
	// larger from would be read rounded.
	MaxGetFrom      = maxExactInt
	DefaultGetLines = 120
	MaxGetLines     = 1000
)

// inputSchema infers the schema of T and removes the "null" the inference
// allows for pointers and slices: an input field is either given with its
// type or left out. patch adds limits and defaults.
func inputSchema[T any](patch func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("infer input schema: %v", err))
	}
	dropNull(s)
	if patch != nil {
		patch(s.Properties)
	}
	return s
}

func dropNull(s *jsonschema.Schema) {
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	if s.Items != nil {
		dropNull(s.Items)
	}
}

func rangeOf(s *jsonschema.Schema, lo, hi float64, def any) {
	if s == nil {
		panic("rangeOf: no such property")
	}
	s.Minimum = &lo
	if hi > lo {
		s.Maximum = &hi
	}
	if def != nil {
		b, _ := json.Marshal(def)
		s.Default = b
	}
}

func searchSchema() *jsonschema.Schema {
	return inputSchema[SearchIn](func(p map[string]*jsonschema.Schema) {
		// 20 unless corpora is ["memories"] (searchOptionsOf checks which).
		rangeOf(p["maxResults"], 1, cairn.MaxRecallLimit, DefaultMaxResults)
		rangeOf(p["minScore"], 0, 1, DefaultMinScore)
		memoryFilterSchema(p["memoryFilter"]) // search.go
		p["mode"].Enum = []any{"hybrid", "lexical", "vector"}
		p["corpora"].Items.MinLength = jsonschema.Ptr(1)
	})
}

func getSchema() *jsonschema.Schema {
	return inputSchema[GetIn](func(p map[string]*jsonschema.Schema) {
		// No "default" in the schema: the SDK fills a default in before
		// Agent.Get runs, where it reads as given and wins over the line
		// range of the path (ux F6). The descriptions say the defaults.
		rangeOf(p["from"], 1, MaxGetFrom, nil)
		rangeOf(p["lines"], 1, MaxGetLines, nil)
	})
}
