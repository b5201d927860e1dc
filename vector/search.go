package vector

import "slices"

// Defaults for SearchOptions.Candidates: max(DefaultCandidates,
// DefaultCandidatesPerResult*k, n/DefaultItemsPerCandidate) for the top k
// of n items. The last term grows the rescoring with the index: on 1M
// clustered 384-d vectors (BenchmarkScale) 300 candidates found 0.952 of
// the exact top 10 and 600 found 0.998, for 4.5 against 5.2 ms.
const (
	DefaultCandidates          = 300
	DefaultCandidatesPerResult = 20
	DefaultItemsPerCandidate   = 1600
)

// DefaultPoolFactor sets SearchOptions.Pool's default: Candidates times
// this many items, nearest by Hamming distance, are ranked by the
// asymmetric estimate before the Candidates best of them are rescored.
const DefaultPoolFactor = 5

// SearchOptions tunes Search. A nil *SearchOptions means the defaults.
type SearchOptions struct {
	// Candidates is how many items, nearest by Hamming distance between
	// sign-bit codes, are rescored with exact dot products. Zero or less
	// means max(DefaultCandidates, DefaultCandidatesPerResult*k,
	// n/DefaultItemsPerCandidate) for n items; fewer than k means k.
	Candidates int
	// Filter, when set, is called with each item's key before ranking; only
	// items for which it returns true compete for the top k. It runs under
	// the index's read lock and must not call Add or Remove.
	Filter func(key int64) bool
	// Pool is how many items, nearest by Hamming distance, are ranked by
	// the asymmetric estimate (the float query against each item's sign
	// bits) to choose the Candidates. Zero or less means
	// DefaultPoolFactor*Candidates; at most Candidates skips the stage.
	Pool int
	// Exact scores every item with a full float32 dot product instead of
	// the two-stage search.
	Exact bool
	// Probe is how many items the nearest coarse lists must hold before
	// the scan stops adding lists (an index with lists: BuildLists). Zero
	// means DefaultProbeShare of the items (at least DefaultProbeMin lists
	// and 8 pools); negative scans every item, as an index without lists.
	Probe int
}

// SetDefaults fills zero fields for a search of the top k and raises
// Candidates to at least k. It does not know the index's size: Search
// also grows the default Candidates with it (setDefaults).
func (o *SearchOptions) SetDefaults(k int) { o.setDefaults(k, 0) }

func (o *SearchOptions) setDefaults(k, n int) {
	if o.Candidates <= 0 {
		o.Candidates = max(DefaultCandidates, DefaultCandidatesPerResult*k, n/DefaultItemsPerCandidate)
	}
	o.Candidates = max(o.Candidates, k)
	if o.Pool <= 0 {
		o.Pool = DefaultPoolFactor * o.Candidates
	}
	o.Pool = max(o.Pool, o.Candidates)
}

// Result is one hit: the item's key and its dot product with the query.
type Result struct {
	Key   int64
	Score float32
}

// Search returns up to k items with the largest dot product with q, sorted
// by score descending and then key ascending. It ranks every item (that
// passes opts.Filter) by Hamming distance between sign-bit codes, rescores
// the nearest opts.Candidates exactly, and keeps the best k; see the package
// doc for why. It returns nil when k < 1, the index is empty, or len(q) is
// not Dim().
func (ix *Index) Search(q []float32, k int, opts *SearchOptions) []Result {
	var o SearchOptions
	if opts != nil {
		o = *opts
	}
	if o.Exact {
		return ix.Exact(q, k, o.Filter)
	}
	if len(q) != ix.dim || k < 1 {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := len(ix.keys)
	if n == 0 {
		return nil
	}
	o.setDefaults(k, n)
	if o.Probe >= 0 && ix.lists.usable(n) {
		if res, ok := ix.searchLists(q, k, &o); ok {
			return res
		}
	}
	s := ix.scratch(n, k)
	defer ix.pool.put(s)
	signCode(s.qcode, q)
	cand := ix.candidates(s, o.Pool, o.Filter)
	return ix.rescore(s, q, k, cand, o.Candidates)
}

// rescore narrows the candidate slots to c by the asymmetric estimate when
// there are more, scores those exactly and returns the best k. The caller
// holds the read lock.
func (ix *Index) rescore(s *scratch, q []float32, k int, cand []int32, c int) []Result {
	top := topK{h: s.heap[:0], k: k}
	if len(cand) > c {
		cand = ix.narrow(s, q, cand, c)
	}
	for _, slot := range cand {
		if sc := dot(q, ix.vector(slot)); finite(sc) {
			top.push(Result{Key: ix.keys[slot], Score: sc})
		}
	}
	s.heap = top.h
	return top.sorted()
}

// Exact returns the same ranking as Search with a full float32 scan: every
// item that passes filter (nil passes all) is scored exactly. It is the
// reference for recall and a fallback for callers that need exactness.
func (ix *Index) Exact(q []float32, k int, filter func(int64) bool) []Result {
	if len(q) != ix.dim || k < 1 {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := len(ix.keys)
	if n == 0 {
		return nil
	}
	s := ix.scratch(0, k)
	defer ix.pool.put(s)
	top := topK{h: s.heap[:0], k: k}
	for slot, key := range ix.keys {
		if filter != nil && !filter(key) {
			continue
		}
		if sc := dot(q, ix.vector(int32(slot))); finite(sc) {
			top.push(Result{Key: key, Score: sc})
		}
	}
	s.heap = top.h
	return top.sorted()
}

// topK keeps the k best results seen in a heap whose root is the worst of
// them, so a new result costs one comparison unless it gets in.
type topK struct {
	h []Result
	k int
}

// worse reports whether a ranks below b: lower score, or equal score and
// larger key.
func worse(a, b Result) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.Key > b.Key)
}

func (t *topK) push(r Result) {
	if len(t.h) < t.k {
		t.h = append(t.h, r)
		t.up(len(t.h) - 1)
		return
	}
	if !worse(t.h[0], r) {
		return
	}
	t.h[0] = r
	t.down(0)
}

func (t *topK) up(i int) {
	h := t.h
	for i > 0 {
		p := (i - 1) / 2
		if !worse(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (t *topK) down(i int) {
	h := t.h
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && worse(h[c+1], h[c]) {
			c++
		}
		if !worse(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// sorted returns the kept results in a new slice, best first.
func (t *topK) sorted() []Result {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b Result) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return out
}
