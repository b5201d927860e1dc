package vector

import (
	"math"
	"slices"
)

// searchLists is Search over the coarse lists (lists.go): it ranks the
// centroids by dot product with q, takes the nearest lists until they hold
// the probe's items, scans their codes and the tail's in slot order, and
// goes on as Search does over those. ok is false when a filter passes
// fewer than half the probed items: the items it keeps are then a small
// or lopsided set whose nearest may lie in lists the probe left out, so
// the caller scans every item (TestListsFilter measures both sides). The
// caller holds the read lock.
func (ix *Index) searchLists(q []float32, k int, o *SearchOptions) (res []Result, ok bool) {
	n, w := len(ix.keys), ix.words
	s := ix.scratch(0, k)
	defer ix.pool.put(s)
	want := o.Probe
	if want == 0 {
		want = max(int(float64(n)*DefaultProbeShare), 8*o.Pool)
	}
	s.ranges = ix.probe(s, q, want)
	total := 0
	for _, r := range s.ranges {
		total += int(r.hi - r.lo)
	}
	if cap(s.dist) < total {
		s.dist = make([]uint16, total, total+total/8)
	}
	s.dist = s.dist[:total]
	signCode(s.qcode, q)
	clear(s.hist)
	passing, off := total, 0
	for _, r := range s.ranges {
		lo, hi := int(r.lo), int(r.hi)
		d := s.dist[off : off+hi-lo]
		if o.Filter == nil {
			scanCodes(ix.codes[lo*w:hi*w], s.qcode, d, s.hist)
		} else {
			passing -= ix.scanRange(s, lo, d, o.Filter)
		}
		off += hi - lo
	}
	if o.Filter != nil && 2*passing < total {
		return nil, false
	}
	cut, atCut := skip, 0
	if passing > o.Pool {
		cut, atCut = cutoff(s.hist, o.Pool)
	}
	cand := collect(s.dist, cut, atCut, s.cand[:0])
	// Positions in dist to slots: the ranges are in slot order, and so
	// are the candidates.
	ri, base := 0, 0
	for i, c := range cand {
		for int(c) >= base+int(s.ranges[ri].hi-s.ranges[ri].lo) {
			base += int(s.ranges[ri].hi - s.ranges[ri].lo)
			ri++
		}
		cand[i] = s.ranges[ri].lo + c - int32(base)
	}
	s.cand = cand
	return ix.rescore(s, q, k, cand, o.Candidates), true
}

// slotRange is the slots lo..hi-1.
type slotRange struct{ lo, hi int32 }

// probe returns the slot ranges to scan for q, in slot order: the lists
// whose centroids have the largest dot products with q, nearest first,
// until they hold at least want items and number at least DefaultProbeMin
// (or all of them), and the tail.
func (ix *Index) probe(s *scratch, q []float32, want int) []slotRange {
	l, dim := ix.lists, ix.dim
	if cap(s.est) < l.nlist {
		s.est = make([]estimated, 0, l.nlist)
	}
	order := s.est[:0]
	for c := range l.nlist {
		sc := dot(q, l.centroids[c*dim:(c+1)*dim])
		if !finite(sc) { // a query (or centroid) holding NaN: probe that list last
			sc = float32(math.Inf(-1))
		}
		order = append(order, estimated{int32(c), sc})
	}
	slices.SortFunc(order, func(a, b estimated) int {
		if a.better(b) {
			return -1
		}
		if b.better(a) {
			return 1
		}
		return 0
	})
	out := s.ranges[:0]
	covered := 0
	for i, e := range order {
		if covered >= want && i >= DefaultProbeMin {
			break
		}
		lo, hi := l.start[e.slot], l.start[e.slot+1]
		if hi > lo {
			out = append(out, slotRange{lo, hi})
			covered += int(hi - lo)
		}
	}
	s.est = order[:0]
	if t := int32(l.tail()); int(t) < len(ix.keys) {
		out = append(out, slotRange{t, int32(len(ix.keys))})
	}
	slices.SortFunc(out, func(a, b slotRange) int { return int(a.lo - b.lo) })
	return out
}

// scanRange is scanFiltered for the slots from lo on, writing into dist
// (one distance a slot); it returns how many items the filter rejected.
func (ix *Index) scanRange(s *scratch, lo int, dist []uint16, filter func(int64) bool) int {
	rejected := 0
	for i := range dist {
		slot := int32(lo + i)
		if !filter(ix.keys[slot]) {
			dist[i] = skip
			rejected++
			continue
		}
		d := hamming(ix.code(slot), s.qcode)
		dist[i] = uint16(d)
		s.hist[d]++
	}
	return rejected
}
