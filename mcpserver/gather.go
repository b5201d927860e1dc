package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/gather"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolGather gathers every memory a question needs (also POST /v1/gather).
const ToolGather = "memory_gather"

// GatherIn is the input of memory_gather and POST /v1/gather.
type GatherIn struct {
	Question     string        `json:"question" jsonschema:"the question, one that counts, lists, adds up or compares (\"how many museums did I visit in 2023?\"); must not be blank"`
	From         string        `json:"from,omitempty" jsonschema:"start of the time the question is about: YYYY, YYYY-MM or YYYY-MM-DD (default: the time the question names, if any)"`
	To           string        `json:"to,omitempty" jsonschema:"end of that time, inclusive: YYYY, YYYY-MM or YYYY-MM-DD"`
	MemoryFilter *MemoryFilter `json:"memoryFilter,omitempty" jsonschema:"keeps only the memories that match every given field, in every search the gather runs"`
}

// Gather runs memory_gather: a wide memory search, the fast model
// ([llm.fast], Agent.FastModel) reading the candidates in parts and
// proposing further searches, the kept set first. Without a fast model, or
// with one unavailable, the ranked list comes back with judged false.
func (a *Agent) Gather(ctx context.Context, in GatherIn) (*gather.Result, error) {
	opts, err := gatherOptions(in)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	opts.Model = a.FastModel
	res, err := a.eng.Gather(ctx, strings.TrimSpace(in.Question), opts)
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	return res, nil
}

// gatherOptions validates in.
func gatherOptions(in GatherIn) (*engine.GatherOptions, error) {
	if strings.TrimSpace(in.Question) == "" {
		return nil, cairn.Invalidf("question is blank: ask what to gather memories for")
	}
	for _, d := range []struct{ name, v string }{{"from", in.From}, {"to", in.To}} {
		if _, _, ok := cairn.DateBounds(strings.TrimSpace(d.v)); d.v != "" && !ok {
			return nil, cairn.Invalidf("%s %q: allowed a date as YYYY, YYYY-MM or YYYY-MM-DD", d.name, d.v)
		}
	}
	f, err := memoryFilter(in.MemoryFilter) // search.go
	if err != nil {
		return nil, err
	}
	return &engine.GatherOptions{From: strings.TrimSpace(in.From), To: strings.TrimSpace(in.To), Filter: f}, nil
}

func gatherSchema() *jsonschema.Schema {
	return inputSchema[GatherIn](func(p map[string]*jsonschema.Schema) {
		p["question"].MinLength = jsonschema.Ptr(1)
		memoryFilterSchema(p["memoryFilter"]) // search.go
	})
}

func addGather(s *mcp.Server, a *Agent) {
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolGather, InputSchema: gatherSchema(), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		Description: "Gather every memory a question needs, for questions that count, list, add up or compare: a wide search of the memories " +
			"(and of the time the question names, first), a fast model reading them in parts and keeping what the answer needs, further searches it proposes. " +
			"Returns memories (kept first, then the rest by rank; each with its dates, text and the passage that matched), judged (false: no fast model " +
			"answered, the list is the ranked search), the further searches run and the cost. Slower than memory_search: seconds, several model calls.",
	}, handler(a.Gather))
}
