package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/explore"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolExplore walks the concept graph of the memories (also POST
// /v1/explore).
const ToolExplore = "memory_explore"

// ExploreIn is the input of memory_explore and POST /v1/explore.
type ExploreIn struct {
	Topic        string        `json:"topic,omitempty" jsonschema:"what to explore: searched for the memories to start from (give topic, ids or both)"`
	IDs          []string      `json:"ids,omitempty" jsonschema:"memory ids to start from (from memory_search hits' memory.id)"`
	MemoryFilter *MemoryFilter `json:"memoryFilter,omitempty" jsonschema:"keeps only the memories that match every given field, as seeds and along the walk"`
	MaxResults   *int          `json:"maxResults,omitempty" jsonschema:"related memories to return, 1 to 200 (default 20)"`
}

// Explore runs memory_explore: the concept graph walked from the topic's
// hits and the given ids. No model is called.
func (a *Agent) Explore(ctx context.Context, in ExploreIn) (*explore.Result, error) {
	topic, opts, err := exploreOptions(in)
	if err != nil {
		return nil, err
	}
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	res, err := a.eng.Explore(ctx, topic, opts)
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	return res, nil
}

// exploreOptions validates in.
func exploreOptions(in ExploreIn) (string, *engine.ExploreOptions, error) {
	topic := strings.TrimSpace(in.Topic)
	o := &engine.ExploreOptions{}
	for _, id := range in.IDs {
		if id = strings.TrimSpace(id); id != "" {
			o.IDs = append(o.IDs, id)
		}
	}
	if topic == "" && len(o.IDs) == 0 {
		return "", nil, cairn.Invalidf("topic and ids are blank: give a topic to search, memory ids to start from, or both")
	}
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > explore.MaxLimit {
			return "", nil, cairn.Invalidf("maxResults %d out of range: allowed 1 to %d", *in.MaxResults, explore.MaxLimit)
		}
		o.Limit = *in.MaxResults
	}
	var err error
	o.Filter, err = memoryFilter(in.MemoryFilter) // search.go
	return topic, o, err
}

func exploreSchema() *jsonschema.Schema {
	return inputSchema[ExploreIn](func(p map[string]*jsonschema.Schema) {
		rangeOf(p["maxResults"], 1, explore.MaxLimit, explore.DefaultLimit)
		memoryFilterSchema(p["memoryFilter"]) // search.go
	})
}

func addExplore(s *mcp.Server, a *Agent) {
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolExplore, InputSchema: exploreSchema(), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		Description: "Explore what else memory holds about a topic: from the memories a search finds for it (and/or given ids), a walk over the " +
			"concept graph (memories joined by the concepts they share and by related links) returns found (the starting memories), related " +
			"(reached only through the graph, best first, each with the path it was reached by: via concept X, via a related link) and the concepts " +
			"where to look next. No model call; read a memory with memory_get on cairn://memories/<kind>/<id>.md.",
	}, handler(a.Explore))
}
