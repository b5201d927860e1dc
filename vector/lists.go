package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// Coarse lists (an inverted-file partition) for large indexes.
//
// At 1M x 384 the full code scan reads 48 MB per query and is bound by
// memory bandwidth (bench/RESULTS.md: 6.8 ms p50 at low load against a
// 5 ms goal). BuildLists trains k-means centroids on a sample of the
// vectors (spherical: unit centroids, nearest by dot product, as Search
// ranks), assigns every item to its nearest centroid and moves the items
// so that each list is a contiguous run of slots: a probe then reads its
// codes sequentially, which the prefix scan that was tried before did not
// (commit dcd2328: random reads cost more than they saved). Search ranks
// the centroids against the query, scans the codes of the nearest lists
// until they cover Probe items, and goes on as before (asymmetric stage,
// exact rescoring) over those. Scores stay exact; only which items
// compete changes, so recall is what the lists can cost, measured in
// TestListsRecall and bench/RESULTS.md.
//
// Items added after the build are appended after the last list (the
// tail) and every probe scans the tail, so they are always searched; once
// the tail holds more than a quarter of the items, or an item inside a
// list is replaced or removed, Search ignores the lists and scans
// everything (correct, as fast as before the lists) until the next
// BuildLists, which the owner of the index runs when it rebuilds it (the
// engine: when it reloads the vectors after a sync that changed chunks).

// ListsMin is the smallest index the engine gives lists. Below it the full
// scan costs about a millisecond or less (about 0.3 ms at 100k x 384,
// 1.1 ms at 256k, one core) and the stages after it (the asymmetric
// ranking of the pool and the exact rescoring, about 1 ms together) are
// most of a search, so lists would save little while costing recall and a
// k-means build; measured on 105k real vectors in bench/RESULTS.md.
const ListsMin = 1 << 18

// DefaultProbeShare sets the default probe: the nearest lists are scanned
// until they hold at least this share of the items (and at least
// DefaultProbeMin lists and 8 pools' worth of items).
const (
	DefaultProbeShare = 1.0 / 8
	DefaultProbeMin   = 8
)

// itemsPerList is the average list size BuildLists aims at: at 1M, 488
// lists, so ranking the centroids (488 dot products) costs a small
// fraction of scanning the probed lists, and assigning an item (488 code
// distances and preselect dot products) stays cheap.
const itemsPerList = 2048

// lists is an index's coarse partition: list l holds slots
// start[l]..start[l+1]-1; slots from start[nlist] on are the tail.
type lists struct {
	nlist     int
	centroids []float32 // nlist*dim, unit length
	start     []int32   // nlist+1
	trained   int       // items in the index when the centroids were trained
	broken    bool      // an item inside a list was replaced or removed
}

// tail returns the first slot after the lists.
func (l *lists) tail() int { return int(l.start[l.nlist]) }

// usable reports whether Search should use the lists for an index of n
// items.
func (l *lists) usable(n int) bool {
	return l != nil && !l.broken && 4*(n-l.tail()) <= n
}

// HasLists reports whether Search currently probes coarse lists (see
// BuildLists).
func (ix *Index) HasLists() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.lists.usable(len(ix.keys))
}

// ListOptions tunes BuildLists. A nil *ListOptions means the defaults.
type ListOptions struct {
	// Lists is how many lists to make; zero means Len()/2048, at least 16.
	Lists int
	// Centroids, when set, are centroids to keep (from an earlier build of
	// the same vector space: Centroids()): the items are assigned to them
	// and no k-means runs. It is ignored when its length is not a multiple
	// of Dim().
	Centroids []float32
	// Trained is how many items Centroids were trained on; with Centroids,
	// it is kept as the lists' trained size (see NeedsRetrain).
	Trained int
	// Iterations of k-means; zero means 8.
	Iterations int
	// Sample is how many items k-means trains on; zero means 48 per list.
	Sample int
	// Seed makes the sample and the initial centroids; the same seed and
	// items give the same lists.
	Seed uint64
}

// BuildLists partitions the index into coarse lists and moves its items
// list by list (in place: memory does not double). Keys keep their
// vectors; slots change. It costs a few seconds at 1M items (k-means on a
// sample, then one assignment of every item, split over the cores).
func (ix *Index) BuildLists(o *ListOptions) error {
	var opt ListOptions
	if o != nil {
		opt = *o
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.own()
	n := len(ix.keys)
	if n == 0 {
		return fmt.Errorf("build lists: index is empty")
	}
	var cents []float32
	trained := n
	if len(opt.Centroids) > 0 && len(opt.Centroids)%ix.dim == 0 {
		cents, trained = slices.Clone(opt.Centroids), max(opt.Trained, 1)
	} else {
		nlist := opt.Lists
		if nlist <= 0 {
			nlist = max(16, n/itemsPerList)
		}
		nlist = min(nlist, n)
		cents = ix.train(nlist, opt)
	}
	nlist := len(cents) / ix.dim
	assign := ix.assignAll(cents)
	start := ix.layOut(assign, nlist)
	ix.lists = &lists{nlist: nlist, centroids: cents, start: start, trained: trained}
	ix.fileSum.Store(0) // the slots moved: the index file no longer matches
	return nil
}

// Centroids returns a copy of the lists' centroids (nil without lists)
// and how many items they were trained on, for a later BuildLists of the
// same vector space that keeps them.
func (ix *Index) Centroids() ([]float32, int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.lists == nil {
		return nil, 0
	}
	return slices.Clone(ix.lists.centroids), ix.lists.trained
}

// NeedsRetrain reports whether centroids trained on trained items should
// be trained again for an index of n items: the index has doubled or
// halved since (a size step; the lists' sizes then drift from the
// design's 2,048 items a list).
func NeedsRetrain(trained, n int) bool { return trained <= 0 || n > 2*trained || 2*n < trained }

// train runs spherical k-means on a sample of the items and returns
// nlist unit centroids.
func (ix *Index) train(nlist int, o ListOptions) []float32 {
	n, dim := len(ix.keys), ix.dim
	m := o.Sample
	if m <= 0 {
		m = 48 * nlist
	}
	m = min(max(m, nlist), n)
	rng := rand.New(rand.NewPCG(o.Seed, uint64(n)))
	sample := rng.Perm(n)[:m]
	slices.Sort(sample) // read the sample in memory order
	// Items holding NaN or an infinity would poison every centroid sum they
	// join; they train nothing (assignAll still places them).
	sample = slices.DeleteFunc(sample, func(slot int) bool { return !finiteVector(ix.vector(int32(slot))) })
	m = len(sample)
	cents := make([]float32, nlist*dim)
	if m == 0 { // nothing finite to train on: zero centroids, every item by its code
		return cents
	}
	for c := range nlist { // the initial centroids: distinct sample items
		copy(cents[c*dim:(c+1)*dim], ix.vector(int32(sample[c*m/nlist])))
	}
	iters := o.Iterations
	if iters <= 0 {
		iters = 8
	}
	assign := make([]int32, m)
	sums := make([]float64, nlist*dim)
	counts := make([]int, nlist)
	for range iters {
		a := newAssigner(cents, dim)
		parallel(m, func(lo, hi int) {
			buf := make([]estimated, 0, a.pre)
			for i := lo; i < hi; i++ {
				slot := int32(sample[i])
				assign[i] = a.nearest(ix.vector(slot), ix.code(slot), buf)
			}
		})
		clear(sums)
		clear(counts)
		for i, c := range assign { // in sample order: the same sums every run
			v := ix.vector(int32(sample[i]))
			s := sums[int(c)*dim : int(c+1)*dim]
			for d, x := range v {
				s[d] += float64(x)
			}
			counts[c]++
		}
		for c := range nlist {
			dst := cents[c*dim : (c+1)*dim]
			if counts[c] == 0 { // an empty list takes a random sample item
				copy(dst, ix.vector(int32(sample[rng.IntN(m)])))
				continue
			}
			unit(dst, sums[c*dim:(c+1)*dim])
		}
	}
	return cents
}

// unit writes sum scaled to unit length into dst (sum itself when it is
// zero).
func unit(dst []float32, sum []float64) {
	var norm float64
	for _, x := range sum {
		norm += x * x
	}
	inv := 1.0
	if norm > 0 {
		inv = 1 / math.Sqrt(norm)
	}
	for d, x := range sum {
		dst[d] = float32(x * inv)
	}
}

// assigner finds an item's nearest centroid. Comparing an item with every
// centroid exactly costs nlist*dim multiply-adds (about 190k at 1M x 384
// with 488 lists, minutes for a million items on two cores), so it first
// ranks the centroids by the Hamming distance between sign codes (the
// item's is stored; six POPCNTs a centroid at dimension 384) and compares
// only the nearest pre of them exactly. A miss puts an item in a
// neighbouring list, which costs recall only where a probe stops between
// the two; TestListsRecall measures the whole.
type assigner struct {
	cents      []float32
	codes      []uint64
	dim, words int
	pre        int
}

// preselect is how many centroids, nearest by Hamming distance, the
// assignment compares exactly.
const preselect = 16

func newAssigner(cents []float32, dim int) *assigner {
	a := &assigner{cents: cents, dim: dim, words: (dim + 63) / 64}
	nlist := len(cents) / dim
	a.pre = min(preselect, nlist)
	a.codes = make([]uint64, nlist*a.words)
	for c := range nlist {
		signCode(a.codes[c*a.words:(c+1)*a.words], cents[c*dim:(c+1)*dim])
	}
	return a
}

// nearest returns the centroid with the largest dot product with v among
// the pre nearest by code (ties: the lower centroid). buf is the caller's
// scratch of at least pre entries.
func (a *assigner) nearest(v []float32, code []uint64, buf []estimated) int32 {
	nlist := len(a.cents) / a.dim
	h := buf[:0] // a max-heap on distance (score holds the distance): h[0] is the farthest kept
	for c := range nlist {
		d := float32(hamming(code, a.codes[c*a.words:(c+1)*a.words]))
		if len(h) < a.pre {
			h = append(h, estimated{int32(c), -d})
			estUp(h, len(h)-1)
		} else if d < -h[0].score {
			h[0] = estimated{int32(c), -d}
			estDown(h, 0)
		}
	}
	best, bestScore := int32(-1), float32(math.Inf(-1))
	for _, e := range h {
		s := dot(v, a.cents[int(e.slot)*a.dim:int(e.slot+1)*a.dim])
		if finite(s) && (best < 0 || s > bestScore || s == bestScore && e.slot < best) {
			best, bestScore = e.slot, s
		}
	}
	if best < 0 { // v holds NaN or an infinity: no score compares, the nearest code decides
		near := h[0]
		for _, e := range h[1:] {
			if e.score > near.score || e.score == near.score && e.slot < near.slot {
				near = e
			}
		}
		best = near.slot
	}
	return best
}

// assignAll returns every slot's nearest centroid.
func (ix *Index) assignAll(cents []float32) []int32 {
	a := newAssigner(cents, ix.dim)
	assign := make([]int32, len(ix.keys))
	parallel(len(assign), func(lo, hi int) {
		buf := make([]estimated, 0, a.pre)
		for i := lo; i < hi; i++ {
			assign[i] = a.nearest(ix.vector(int32(i)), ix.code(int32(i)), buf)
		}
	})
	return assign
}

// parallel runs f over [0, n) in up to GOMAXPROCS parts, one goroutine
// each, and waits for all of them.
func parallel(n int, f func(lo, hi int)) {
	parts := max(1, min(runtime.GOMAXPROCS(0), n/1024))
	per := (n + parts - 1) / parts
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		lo, hi := p*per, min((p+1)*per, n)
		wg.Go(func() { f(lo, hi) })
	}
	f(0, min(per, n))
	wg.Wait()
}

// layOut moves the items so that list l's items (in their old slot order)
// are contiguous, and returns the lists' starts. The move follows the
// permutation's cycles, holding one item aside, so it needs no second copy
// of the arrays. The caller holds the write lock on an owned index.
func (ix *Index) layOut(assign []int32, nlist int) []int32 {
	n := len(assign)
	start := make([]int32, nlist+1)
	for _, c := range assign {
		start[c+1]++
	}
	for c := range nlist {
		start[c+1] += start[c]
	}
	// from[new] = old: a counting sort of the slots by list.
	next := slices.Clone(start[:nlist])
	from := make([]int32, n)
	for old, c := range assign {
		from[next[c]] = int32(old)
		next[c]++
	}
	done := make([]bool, n)
	key := int64(0)
	code := make([]uint64, ix.words)
	vec := make([]float32, ix.dim)
	for i := range n {
		if done[i] || from[i] == int32(i) {
			continue
		}
		// Hold item i aside; fill i from from[i], that slot from its
		// source, and so on until the cycle comes back to i.
		key = ix.keys[i]
		copy(code, ix.code(int32(i)))
		copy(vec, ix.vector(int32(i)))
		j := i
		for {
			k := int(from[j])
			done[j] = true
			if k == i {
				ix.keys[j] = key
				copy(ix.code(int32(j)), code)
				copy(ix.vector(int32(j)), vec)
				break
			}
			ix.keys[j] = ix.keys[k]
			copy(ix.code(int32(j)), ix.code(int32(k)))
			copy(ix.vector(int32(j)), ix.vector(int32(k)))
			j = k
		}
	}
	for i, k := range ix.keys {
		ix.slots[k] = int32(i)
	}
	return start
}
