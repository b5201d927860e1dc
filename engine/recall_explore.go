package engine

import (
	"context"
	"strings"
	"sync"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/explore"
)

// ExploreOptions tune an exploration. A nil pointer means defaults: every
// active memory, explore's defaults for seeds, related memories and
// concepts.
type ExploreOptions struct {
	// IDs are memories to start from, besides the topic's search hits.
	IDs []string
	// Filter holds the memory filters (kinds, scope, project, told-at and
	// event ranges) the topic's search and the walk both respect.
	Filter *cairn.MemorySearch
	// Mode is the topic search's mode (default: hybrid with an embedder,
	// else lexical).
	Mode string
	// Seeds, Limit and Concepts: search hits taken as seeds, related
	// memories returned (at most explore.MaxLimit), concepts returned;
	// zero: explore's defaults.
	Seeds, Limit, Concepts int
}

// Explore walks the concept graph of the active memories (package
// explore: memory-concept edges, related links, each seed's nearest
// memories by key vector two hops out (recall_near.go), Personalized
// PageRank from the seeds) from a topic's search hits and/or given memory
// ids, and returns what it found, the memories reached only through the
// graph with the way each was reached, and the concepts where to look
// next. The topic is searched with the engine's memory search and the
// same filter the walk applies. No model is called.
//
// The graph is built from the stored memories and related links once and
// kept until the store's memories stamp changes (any write of a memory or
// a link, by any process): building it reads every active memory, 2.4 s
// at 100,000. A filter becomes a mask over the graph (one pass over the
// memories), which the walk reads without a call per memory.
func (e *Engine) Explore(ctx context.Context, topic string, opts *ExploreOptions) (*explore.Result, error) {
	if err := CanRead(ctx, cairn.MemoriesCorpus); err != nil { // scope.go: the graph is the memories'
		return nil, err
	}
	var o ExploreOptions
	if opts != nil {
		o = *opts
	}
	topic = strings.TrimSpace(topic)
	if o.Filter != nil {
		if err := CheckMemorySearch(o.Filter); err != nil {
			return nil, err
		}
	}
	none, err := e.noMemories(ctx) // recall_gather.go
	if err != nil {
		return nil, err
	}
	g, byID, err := e.exploreGraph(ctx)
	if err != nil {
		return nil, err
	}
	req := &explore.Request{Topic: topic, IDs: o.IDs, Seeds: o.Seeds, Limit: o.Limit, Concepts: o.Concepts}
	if !o.Filter.IsZero() {
		allowed, err := e.filterIDs(ctx, o.Filter)
		if err != nil {
			return nil, err
		}
		req.Mask = g.Mask(func(id string) bool { return allowed[id] })
	}
	var search explore.Searcher
	if topic != "" {
		search = &memorySearcher{e: e, filter: o.Filter, mode: o.Mode, none: none}
	}
	near := &memoryNeighbours{e: e, hash: func(id string) string {
		if m := byID[id]; m != nil {
			return sha256Hex(consolidate.Document(m))
		}
		return ""
	}}
	res, err := explore.New(g, search, near).Explore(ctx, req)
	if err == nil && none {
		res.Hint = NoMemories
	}
	return res, err
}

// graphCache is explore's graph of the active memories as of a memories
// stamp, with the memories it was built from by id.
type graphCache struct {
	mu    sync.Mutex
	ok    bool
	stamp int64
	graph *explore.Graph
	byID  map[string]*cairn.Memory
}

// exploreGraph returns the graph of the active memories, built again only
// when the memories stamp moved since the cached one.
func (e *Engine) exploreGraph(ctx context.Context) (*explore.Graph, map[string]*cairn.Memory, error) {
	c := &e.recall.graph
	c.mu.Lock()
	defer c.mu.Unlock()
	stamp, err := e.store.MemoriesStamp(ctx)
	if err != nil {
		return nil, nil, err
	}
	if c.ok && c.stamp == stamp {
		return c.graph, c.byID, nil
	}
	ms, err := e.store.Memories(ctx, cairn.MemoryFilter{Status: cairn.StatusActive})
	if err != nil {
		return nil, nil, err
	}
	links, err := e.store.LinksOfKind(ctx, cairn.LinkRelated)
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string]*cairn.Memory, len(ms))
	for i := range ms {
		byID[ms[i].ID] = &ms[i]
	}
	c.graph, c.byID, c.stamp, c.ok = explore.Build(ms, links), byID, stamp, true
	return c.graph, c.byID, nil
}

// filterIDs returns the ids of the active memories f keeps.
func (e *Engine) filterIDs(ctx context.Context, f *cairn.MemorySearch) (map[string]bool, error) {
	refs, err := e.memoryRefs(ctx, f) // recall.go
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(refs))
	for _, r := range refs {
		out[r.ID] = true
	}
	return out, nil
}
