package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
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

// ExploreOut is the output of memory_explore.
type ExploreOut struct {
	Found    []ExploredMemory  `json:"found" jsonschema:"the memories the walk started from: the topic's search hits and the ids given"`
	Related  []ExploredMemory  `json:"related" jsonschema:"memories reached only through the graph, best first"`
	Concepts []explore.Concept `json:"concepts" jsonschema:"the concepts the walk spent most time on: where to look next"`
	Missing  []string          `json:"missing,omitempty" jsonschema:"ids given that no active memory has"`
	Excluded []string          `json:"excluded,omitempty" jsonschema:"ids given that memoryFilter keeps out"`
	Hint     string            `json:"hint,omitempty" jsonschema:"set when no memory is stored yet: what to do"`
}

// ExploredMemory is one memory an exploration found or reached.
type ExploredMemory struct {
	ID     string         `json:"id"`
	Kind   string         `json:"kind"`
	Title  string         `json:"title"`
	Path   string         `json:"path" jsonschema:"cairn://memories/<kind>/<id>.md: pass it to memory_get"`
	Score  float64        `json:"score" jsonschema:"its share of the walk (Personalized PageRank)"`
	Origin string         `json:"origin,omitempty" jsonschema:"found: id (given), concept (names the concept the topic is) or search (a hit of the topic)"`
	Via    []explore.Step `json:"via,omitempty" jsonschema:"related: how a walker most likely came to it from a starting memory, step by step (via a concept, a related link)"`
}

// Explore runs memory_explore: the concept graph walked from the topic's
// hits and the given ids, each memory with its kind and title. No model
// is called.
func (a *Agent) Explore(ctx context.Context, in ExploreIn) (*ExploreOut, error) {
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
	out := &ExploreOut{Found: []ExploredMemory{}, Related: []ExploredMemory{}, Concepts: res.Concepts, Missing: res.Missing, Excluded: res.Excluded,
		Hint: res.Hint}
	if out.Concepts == nil {
		out.Concepts = []explore.Concept{}
	}
	for _, f := range res.Found {
		m, err := a.explored(ctx, f.ID, f.Score)
		if err != nil {
			return nil, err
		}
		m.Origin = f.Origin
		out.Found = append(out.Found, m)
	}
	for _, r := range res.Related {
		m, err := a.explored(ctx, r.ID, r.Score)
		if err != nil {
			return nil, err
		}
		m.Via = r.Path
		out.Related = append(out.Related, m)
	}
	return out, nil
}

// explored reads what memory_explore shows of a memory.
func (a *Agent) explored(ctx context.Context, id string, score float64) (ExploredMemory, error) {
	m, err := a.eng.Memory(ctx, id)
	if errors.Is(err, cairn.ErrNotFound) {
		return ExploredMemory{ID: id, Score: score}, nil // removed since the graph was built
	}
	if err != nil {
		return ExploredMemory{}, err
	}
	return ExploredMemory{ID: id, Kind: m.Kind, Title: m.Title, Path: "cairn://" + cairn.MemoriesCorpus + "/" + consolidate.DocumentPath(&m),
		Score: math.Round(score*1e4) / 1e4}, nil
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
