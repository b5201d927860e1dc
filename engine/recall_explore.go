package engine

import (
	"context"
	"strings"

	"github.com/cairnmemory/cairn"
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
// explore: memory-concept edges, related links, Personalized PageRank
// from the seeds) from a topic's search hits and/or given memory ids, and
// returns what it found, the memories reached only through the graph with
// the way each was reached, and the concepts where to look next. The
// topic is searched with the engine's memory search and the same filter
// the walk applies. No model is called.
//
// The graph is built for each call from the stored memories and related
// links (a read of every active memory). The walk adds no
// nearest-neighbour edges yet: the engine has no per-memory key vectors
// to ask (explore.Neighbours is left nil).
func (e *Engine) Explore(ctx context.Context, topic string, opts *ExploreOptions) (*explore.Result, error) {
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
	ms, err := e.store.Memories(ctx, cairn.MemoryFilter{Status: cairn.StatusActive})
	if err != nil {
		return nil, err
	}
	links, err := e.store.LinksOfKind(ctx, cairn.LinkRelated)
	if err != nil {
		return nil, err
	}
	g := explore.Build(ms, links)
	req := &explore.Request{Topic: topic, IDs: o.IDs, Seeds: o.Seeds, Limit: o.Limit, Concepts: o.Concepts}
	if !o.Filter.IsZero() {
		allowed, err := e.filterIDs(ctx, o.Filter)
		if err != nil {
			return nil, err
		}
		req.Filter = func(id string) bool { return allowed[id] }
	}
	var search explore.Searcher
	if topic != "" {
		search = &memorySearcher{e: e, filter: o.Filter, mode: o.Mode}
	}
	return explore.New(g, search, nil).Explore(ctx, req)
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
