package explore

// The walk: Personalized PageRank by forward push (Andersen, Chung and
// Lang, "Local graph partitioning using PageRank vectors", 2006). Each node
// holds an estimate p and a residual r; pushing u moves alpha*r(u) into
// p(u) and spreads the rest over u's neighbours in proportion to the edge
// weights. The invariant PPR(s) = p + PPR(r) holds after every push, so the
// walk is exact up to what is left in r: it stops when no node holds more
// than Epsilon times its weighted degree. The work is bounded by
// 1/(alpha*Epsilon) and does not grow with the graph, only with the part
// of it the walk reaches, which is what keeps an exploration of 100,000
// memories in milliseconds (bench/RESULTS.md).

// edge is one neighbour in a walk's own edges (nearest neighbours).
type edge struct {
	to int32
	w  float32
}

// setOwn gives u its own edges, ascending by neighbour.
func (w *walk) setOwn(u int32, es []edge) {
	s := w.at(u)
	w.own = append(w.own, es)
	s.own = int32(len(w.own))
	s.ownDeg = 0
	for _, e := range es {
		s.ownDeg += float64(e.w)
	}
}

// node flags.
const (
	flagAllowedKnown = 1 << iota
	flagAllowed
	flagQueued
	flagDegKnown
	flagPushed
	flagReached    // paths: dist and pred are set
	flagSettled    // paths: dist is final
	flagEnteredOwn // paths: pred's edge is the walk's own
	flagTarget     // paths: a node a path is asked for
)

// state is one node's part of a walk. A state whose stamp is not the
// walk's is zero: workspaces are reused without clearing them. The states
// never move (st has one per node from the start), so a *state stays
// valid through a walk.
type state struct {
	p, r   float64
	deg    float64 // weighted degree over allowed neighbours, once known
	ownDeg float64 // the weights of the walk's own edges
	dist   float64 // paths: -ln of the best path's probability
	stamp  uint32
	own    int32 // 1 + the index of its own edges in walk.own; 0: none
	pred   int32 // paths: the node the best path came from; -1: a seed
	flags  uint16
}

// walk is the workspace of one exploration.
type walk struct {
	g           *Graph
	cur         uint32
	st          []state
	touched     []int32
	queue       []int32
	own         [][]edge // nodes' own edges (nearest neighbours), see state.own
	filter      func(id string) bool
	mask        *Mask
	alpha       float64
	eps         float64
	pushes      int
	filterCalls int
}

func (g *Graph) getWalk() *walk {
	w, _ := g.pool.Get().(*walk)
	if w == nil {
		w = &walk{g: g, st: make([]state, len(g.off)-1)}
	}
	w.cur++
	if w.cur == 0 { // the stamp wrapped: clear once
		clear(w.st)
		w.cur = 1
	}
	w.touched, w.queue, w.own = w.touched[:0], w.queue[:0], w.own[:0]
	w.filter, w.mask, w.pushes, w.filterCalls = nil, nil, 0, 0
	return w
}

func (g *Graph) putWalk(w *walk) {
	w.filter, w.mask = nil, nil
	clear(w.own)
	g.pool.Put(w)
}

// at returns u's state, zeroing it on first touch in this walk.
func (w *walk) at(u int32) *state {
	s := &w.st[u]
	if s.stamp != w.cur {
		*s = state{stamp: w.cur}
		w.touched = append(w.touched, u)
	}
	return s
}

// allowed says whether the walk may enter u: every concept, and the
// memories the filter lets through (asked once per memory per walk).
func (w *walk) allowed(u int32) bool {
	if w.g.isConcept(u) || (w.filter == nil && w.mask == nil) {
		return true
	}
	if w.filter == nil {
		return w.mask.keep[u]
	}
	s := w.at(u)
	if s.flags&flagAllowedKnown == 0 {
		s.flags |= flagAllowedKnown
		w.filterCalls++
		if (w.mask == nil || w.mask.keep[u]) && w.filter(w.g.ids[u]) {
			s.flags |= flagAllowed
		}
	}
	return s.flags&flagAllowed != 0
}

// edges calls f for each of u's edges to a node the walk may enter: the
// graph's, ascending by neighbour, then the walk's own.
func (w *walk) edges(u int32, f func(v int32, weight float32, own bool)) {
	g := w.g
	for i := g.off[u]; i < g.off[u+1]; i++ {
		if v := g.to[i]; w.allowed(v) {
			f(v, g.w[i], false)
		}
	}
	if s := &w.st[u]; s.stamp == w.cur && s.own > 0 {
		for _, e := range w.own[s.own-1] {
			if w.allowed(e.to) {
				f(e.to, e.w, true)
			}
		}
	}
}

// degree is u's weighted degree over the nodes the walk may enter.
func (w *walk) degree(u int32) float64 {
	s := w.at(u)
	if s.flags&flagDegKnown == 0 {
		d := 0.0
		if w.filter == nil { // the graph's edges are counted already
			d = w.g.deg[u]
			if w.mask != nil {
				d = w.mask.deg[u]
			}
			if s.own > 0 {
				for _, e := range w.own[s.own-1] {
					if w.allowed(e.to) {
						d += float64(e.w)
					}
				}
			}
		} else {
			w.edges(u, func(_ int32, weight float32, _ bool) { d += float64(weight) })
		}
		s.deg, s.flags = d, s.flags|flagDegKnown
	}
	return s.deg
}

// threshold is the residual above which u is pushed: Epsilon times its
// degree in the whole graph (the walk's own edges included), at least
// Epsilon. It uses the unfiltered degree so that deciding whether to push
// u does not ask the filter about all of u's neighbours.
func (w *walk) threshold(u int32) float64 {
	d := w.g.deg[u]
	if s := &w.st[u]; s.stamp == w.cur {
		d += s.ownDeg
	}
	return w.eps * max(d, 1)
}

// add puts mass on u's residual and queues u when it crosses the
// threshold.
func (w *walk) add(u int32, mass float64) {
	s := w.at(u)
	s.r += mass
	if s.flags&flagQueued == 0 && s.r >= w.threshold(u) {
		s.flags |= flagQueued
		w.queue = append(w.queue, u)
	}
}

// run pushes until no residual is over its threshold. seeds must be
// allowed; their weights sum to 1.
func (w *walk) run(seeds []int32, weights []float64) {
	for i, u := range seeds {
		w.add(u, weights[i])
	}
	for head := 0; head < len(w.queue); head++ {
		u := w.queue[head]
		s := w.at(u)
		s.flags &^= flagQueued
		ru := s.r
		if ru < w.threshold(u) {
			continue
		}
		d := w.degree(u)
		s.r = 0
		s.flags |= flagPushed
		w.pushes++
		if d == 0 { // an isolated seed keeps its walkers
			s.p += ru
			continue
		}
		s.p += w.alpha * ru
		spread := (1 - w.alpha) * ru / d
		w.edges(u, func(v int32, weight float32, _ bool) { w.add(v, spread*float64(weight)) })
		if head > 1<<16 && head*2 > len(w.queue) { // keep the queue from growing without bound
			w.queue = append(w.queue[:0], w.queue[head+1:]...)
			head = -1
		}
	}
}

// score is u's PageRank estimate: p plus the share alpha of the residual
// that would stay at u if it were pushed (a lower bound of the exact
// value either way; the residual matters at a concept many memories share,
// whose threshold is high).
func (w *walk) score(u int32) float64 {
	s := &w.st[u]
	if s.stamp != w.cur {
		return 0
	}
	return s.p + w.alpha*s.r
}
