package explore

import (
	"cmp"
	"context"
	"fmt"

	"github.com/cairnmemory/cairn"
)

// Defaults of an exploration; see Request and Explorer.
const (
	DefaultRestart    = 0.5  // the walk's restart probability (§7)
	DefaultEpsilon    = 1e-5 // residual per unit of weighted degree left unpushed
	DefaultSeeds      = 10   // search hits taken as seeds
	DefaultLimit      = 20   // related memories returned
	MaxLimit          = 200  // the most related memories one call returns
	DefaultConcepts   = 10   // concepts returned
	DefaultNeighbours = 5    // nearest memories asked for per memory, per hop
	DefaultParallel   = 4    // nearest-neighbour lookups in flight
)

// How a related memory was reached, one step at a time.
const (
	ViaConcept   = "concept"   // both memories name the concept
	ViaRelated   = "related"   // a "related" link joins them
	ViaNeighbour = "neighbour" // one is among the other's nearest by key vector
)

// Hit is a search hit used as a seed.
type Hit struct {
	ID    string
	Score float64
}

// Searcher finds the seeds for a topic: memories matching it, best first,
// at most limit. The engine's memory search, with the same filters as the
// exploration, fits. (The method's name differs from gather.Searcher's so
// one type can serve both.)
type Searcher interface {
	SearchTopic(ctx context.Context, topic string, limit int) ([]Hit, error)
}

// Neighbour is one of a memory's nearest memories by key vector.
type Neighbour struct {
	ID         string
	Similarity float64 // the edge's weight; at most 1, and <= 0 adds no edge
}

// Neighbours finds a memory's nearest memories by key vector (best key
// against best key), at most k, itself excluded. Calls may run
// concurrently.
type Neighbours interface {
	Nearest(ctx context.Context, id string, k int) ([]Neighbour, error)
}

// Explorer walks a Graph. Search and Near are optional: without Search a
// request needs IDs; without Near the walk has no nearest-neighbour edges.
type Explorer struct {
	Graph  *Graph
	Search Searcher
	Near   Neighbours
	// Restart is the walk's restart probability (DefaultRestart); Epsilon
	// its precision (DefaultEpsilon); Parallel the nearest-neighbour
	// lookups in flight (DefaultParallel).
	Restart  float64
	Epsilon  float64
	Parallel int
}

// New returns an Explorer over g with the defaults.
func New(g *Graph, s Searcher, n Neighbours) *Explorer {
	return &Explorer{Graph: g, Search: s, Near: n, Restart: DefaultRestart, Epsilon: DefaultEpsilon, Parallel: DefaultParallel}
}

// Request is one exploration. A nil pointer is not allowed: a request
// needs a Topic or IDs.
type Request struct {
	Topic string   // searched for seeds when set
	IDs   []string // memories to start from, besides the topic's hits
	// Filter says whether a memory may be reached, walked through or
	// taken as a seed; nil lets every memory through. It is asked at most
	// once per memory per call, from the calling goroutine.
	Filter func(id string) bool
	// Mask, when set, is a filter evaluated beforehand (Graph.Mask); with
	// Filter too, a memory must pass both. A mask of another graph is
	// invalid.
	Mask  *Mask
	Seeds int // search hits taken as seeds (DefaultSeeds)
	Limit int // related memories returned (DefaultLimit, at most MaxLimit)
	// Concepts returned (DefaultConcepts); Neighbours asked for per memory
	// and hop (DefaultNeighbours; negative: none).
	Concepts   int
	Neighbours int
}

// SetDefaults fills zero fields.
func (r *Request) SetDefaults() {
	r.Seeds = cmp.Or(r.Seeds, DefaultSeeds)
	r.Limit = cmp.Or(r.Limit, DefaultLimit)
	r.Concepts = cmp.Or(r.Concepts, DefaultConcepts)
	r.Neighbours = cmp.Or(r.Neighbours, DefaultNeighbours)
}

func (r *Request) validate() error {
	switch {
	case r.Topic == "" && len(r.IDs) == 0:
		return cairn.Invalidf("topic or ids is required")
	case r.Limit < 0 || r.Limit > MaxLimit:
		return cairn.Invalidf("limit %d; allowed: 1 to %d", r.Limit, MaxLimit)
	case r.Seeds < 0 || r.Concepts < 0:
		return cairn.Invalidf("seeds and concepts must not be negative")
	}
	return nil
}

// Result is what an exploration found. JSON names are fixed.
type Result struct {
	Found    []Found   `json:"found"`    // the seeds, in the order taken
	Related  []Related `json:"related"`  // reached only through the graph, best first
	Concepts []Concept `json:"concepts"` // where the walk spent most time, most first
	// Missing lists the ids given or found that the graph does not hold
	// (written after it was built); Excluded those the filter kept out.
	Missing  []string  `json:"missing,omitempty"`
	Excluded []string  `json:"excluded,omitempty"`
	Stats    WalkStats `json:"stats"`
	// Hint is set by a caller that knows why nothing could be found (the
	// engine: no memory is stored yet).
	Hint string `json:"hint,omitempty"`
}

// Found is a seed: given by id or a search hit.
type Found struct {
	ID string `json:"id"`
	// Origin is "id", "concept" (it names the concept the topic is) or
	// "search"; SearchScore the hit's score, when the search found it.
	Origin      string  `json:"origin"`
	SearchScore float64 `json:"search_score,omitempty"`
	Score       float64 `json:"score"` // its PageRank in this walk
}

// Related is a memory the walk reached that was not a seed.
type Related struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	// Path is the most likely way a walker came to it from a seed: the
	// first step leaves a seed, the last arrives here.
	Path []Step `json:"path"`
}

// Step is one move of a path between two memories.
type Step struct {
	Via     string `json:"via"`               // ViaConcept, ViaRelated or ViaNeighbour
	Concept string `json:"concept,omitempty"` // the concept, for ViaConcept
	From    string `json:"from"`
	To      string `json:"to"`
}

// String says the step in words: "via concept X", "via related link from
// ID", "via nearest neighbour of ID".
func (s Step) String() string {
	switch s.Via {
	case ViaConcept:
		return "via concept " + s.Concept
	case ViaRelated:
		return "via related link from " + s.From
	}
	return "via nearest neighbour of " + s.From
}

// Concept is a concept the walk spent time on that some memory besides
// the seeds names (one only the seeds name leads nowhere new).
type Concept struct {
	Name     string  `json:"name"`
	Score    float64 `json:"score"`
	Memories int     `json:"memories"` // memories in the graph that name it
}

// WalkStats says what an exploration cost.
type WalkStats struct {
	Pushes         int `json:"pushes"`
	Touched        int `json:"touched"`         // nodes that received mass
	NeighbourCalls int `json:"neighbour_calls"` // Nearest calls
	NeighbourEdges int `json:"neighbour_edges"` // distinct edges they added
	FilterCalls    int `json:"filter_calls"`
}

// Explore walks the graph from the request's seeds. No model is called.
func (e *Explorer) Explore(ctx context.Context, req *Request) (*Result, error) {
	if req == nil {
		return nil, cairn.Invalidf("request is required")
	}
	r := *req
	r.SetDefaults()
	if err := r.validate(); err != nil {
		return nil, err
	}
	g := e.Graph
	if g == nil {
		g = Build(nil, nil)
	}
	w := g.getWalk()
	defer g.putWalk(w)
	if r.Mask != nil && r.Mask.g != g {
		return nil, cairn.Invalidf("mask was made from another graph")
	}
	w.filter, w.mask = r.Filter, r.Mask
	w.alpha, w.eps = cmp.Or(e.Restart, DefaultRestart), cmp.Or(e.Epsilon, DefaultEpsilon)

	res := &Result{Found: []Found{}, Related: []Related{}, Concepts: []Concept{}}
	seeds, err := e.seeds(ctx, w, &r, res)
	if err != nil {
		return nil, err
	}
	if len(seeds) == 0 {
		return res, nil
	}
	if e.Near != nil && r.Neighbours > 0 {
		if err := e.nearest(ctx, w, seeds, r.Neighbours, res); err != nil {
			return nil, err
		}
	}
	weights := make([]float64, len(seeds))
	for i := range weights {
		weights[i] = 1 / float64(len(seeds)) // every seed alike: a hit's score is not a probability
	}
	w.run(seeds, weights)
	e.collect(w, seeds, &r, res)
	res.Stats.Pushes, res.Stats.FilterCalls = w.pushes, w.filterCalls
	return res, nil
}

// seeds takes the given ids, then the topic's hits, once each, in that
// order; unknown and filtered ones are reported.
func (e *Explorer) seeds(ctx context.Context, w *walk, r *Request, res *Result) ([]int32, error) {
	var seeds []int32
	taken := map[int32]bool{}
	take := func(id, origin string, score float64) {
		u, ok := w.g.index[id]
		switch {
		case !ok:
			res.Missing = append(res.Missing, id)
		case taken[u]:
		case !w.allowed(u):
			res.Excluded = append(res.Excluded, id)
		default:
			taken[u] = true
			seeds = append(seeds, u)
			res.Found = append(res.Found, Found{ID: id, Origin: origin, SearchScore: score})
		}
	}
	for _, id := range r.IDs {
		take(id, "id", 0)
	}
	if r.Topic != "" && r.Seeds > 0 {
		if e.Search == nil {
			return nil, cairn.Invalidf("a topic needs a searcher; give ids instead")
		}
		hits, err := e.Search.SearchTopic(ctx, r.Topic, r.Seeds)
		if err != nil {
			return nil, fmt.Errorf("search seeds: %w", err)
		}
		hits = hits[:min(len(hits), r.Seeds)]
		budget := r.Seeds // the topic's seeds: the concept's memories, then the hits
		takeTopic := func(id, origin string, score float64) {
			if budget > 0 {
				before := len(seeds)
				take(id, origin, score)
				budget -= len(seeds) - before
			}
		}
		// A topic that is a concept's name starts from that concept: the
		// memories that name it come first (those the search found, in
		// its order, then the others by id), up to Seeds with the hits.
		// The search alone does not see concepts (they are not indexed),
		// so "measurement" missed the one memory filed under it (ux F14).
		if c, ok := w.g.conceptNode(ConceptKey(r.Topic)); ok {
			names := map[string]bool{}
			for i := w.g.off[c]; i < w.g.off[c+1]; i++ {
				if u := w.g.to[i]; w.allowed(u) { // one the filter keeps out is not a seed, nor "excluded"
					names[w.g.ids[u]] = true
				}
			}
			for _, h := range hits {
				if names[h.ID] {
					takeTopic(h.ID, "concept", h.Score)
				}
			}
			for i := w.g.off[c]; i < w.g.off[c+1]; i++ {
				if id := w.g.ids[w.g.to[i]]; names[id] {
					takeTopic(id, "concept", 0)
				}
			}
		}
		for _, h := range hits {
			takeTopic(h.ID, "search", h.Score)
		}
	}
	return seeds, nil
}

// collect fills the seeds' scores, the related memories with their paths
// and the concepts, best first; ties go to the smaller id or name. A
// concept only seeds name is left out of the concepts: the walk spends
// much time there (next to where it restarts), but it leads nowhere the
// seeds are not.
func (e *Explorer) collect(w *walk, seeds []int32, r *Request, res *Result) {
	for i, u := range seeds {
		res.Found[i].Score = w.score(u)
	}
	isSeed := map[int32]bool{}
	for _, u := range seeds {
		isSeed[u] = true
	}
	g := w.g
	memBefore := w.before(func(u int32) string { return g.ids[u] })
	conceptBefore := w.before(g.conceptName)
	mems, concepts := topK{k: r.Limit, before: memBefore}, topK{k: r.Concepts, before: conceptBefore}
	for _, u := range w.touched {
		if w.score(u) > 0 {
			res.Stats.Touched++
		}
		switch {
		case w.score(u) <= 0:
		case g.isConcept(u):
			if w.leadsOut(u, isSeed) {
				concepts.offer(u)
			}
		case !isSeed[u] && w.allowed(u):
			mems.offer(u)
		}
	}
	best := mems.sorted()
	paths := w.paths(seeds, best)
	for _, u := range best {
		res.Related = append(res.Related, Related{ID: g.ids[u], Score: w.score(u), Path: paths[u]})
	}
	for _, c := range concepts.sorted() {
		res.Concepts = append(res.Concepts, Concept{Name: g.conceptName(c), Score: w.score(c), Memories: int(g.shared[int(c)-len(g.ids)])})
	}
}

// leadsOut says whether a memory the walk may enter names concept c
// besides the seeds.
func (w *walk) leadsOut(c int32, isSeed map[int32]bool) bool {
	g := w.g
	for i := g.off[c]; i < g.off[c+1]; i++ {
		if v := g.to[i]; !isSeed[v] && w.allowed(v) {
			return true
		}
	}
	return false
}
