package vector

// The prefix stage: a first Hamming pass over a short code for large
// indexes. AN EXPERIMENT, not used by Search: measured at 1M x 384 it took
// more CPU than the full scan it replaces (the scan of the 16 MB prefix
// 1.9 ms, collecting the kept 6% 1.9 ms, their full distances at random
// offsets 3.0 ms, against 4.3 + 0.5 ms for the full scan and its collect;
// thread CPU minima, TestSearchStages), and on a fixture with a shared mean
// direction it lost a tenth of recall@10 (TestPrefixRecall). Kept in this
// commit so that bench/RESULTS.md's numbers can be reproduced; the next
// removes it.
//
// At 1M x 384 the full code scan reads 48 MB a query, about as much as the
// memory bus of this machine's two cores moves in the 5 ms goal, so the scan
// is bound by memory, not by POPCNT (bench/RESULTS.md). A large index
// therefore keeps, beside the codes, a dense copy of each code's first
// prefixWords words (the sign bits of the first 128 dimensions: 16 bytes an
// item, 16 MB at 1M). Search ranks every item by the Hamming distance of
// that prefix, keeps the nearest prefixKeep(pool, n) (a few percent), and
// computes the full distance only for those: it reads the whole code of
// one item in sixteen or so. The Pool nearest by full distance among them
// go on to the asymmetric stage as before.
//
// For unit vectors the prefix distance of a pair is a binomial estimate of
// its angle from 128 bits instead of 384: with random codes at distance
// 64 +- 5.7 and a near neighbour at about 38 +- 5, keeping the nearest 6%
// keeps such a neighbour with probability above 0.999; TestPrefixRecall
// measures it on the test fixtures, with and without a shared mean
// direction. The stage is approximate (an item can be near in full code and
// far in its prefix), so it runs only where the full scan is the cost:
// prefixMinItems items or more, codes of at least twice the prefix, and no
// filter (a filtered search scans each passing item's full code).

// prefixWords is the width of the short code, in 64-bit words.
const prefixWords = 2

// prefixMinItems is the smallest index searched with the prefix stage:
// below it the full scan takes well under a millisecond.
const prefixMinItems = 1 << 18

// The share of items the prefix stage keeps: at least prefixPerPool times
// the pool and at least one item in prefixShare.
const (
	prefixPerPool = 16
	prefixShare   = 16
)

// prefixKeep returns how many items, nearest by prefix distance, get their
// full distance computed when the pool is pool items of n.
func prefixKeep(pool, n int) int {
	return min(n, max(prefixPerPool*pool, n/prefixShare))
}

// usePrefix reports whether a search of n items without a filter takes the
// prefix stage.
func (ix *Index) usePrefix(n int) bool {
	return n >= prefixMinItems && ix.words >= 2*prefixWords
}

// prefixCodes returns the prefix array, building it on first use (an index
// that was loaded or grew past prefixMinItems has none yet). The caller
// holds the read lock; builders serialize on prefixMu, and Add and Remove,
// which keep a built array up to date, hold the write lock.
func (ix *Index) prefixCodes() []uint64 {
	ix.prefixMu.Lock()
	defer ix.prefixMu.Unlock()
	if ix.prefix == nil {
		n := len(ix.keys)
		p, b := alloc[uint64](prefixWords * (n + max(64, n/4)))
		p = p[:prefixWords*n]
		for slot := range n {
			copy(p[slot*prefixWords:slot*prefixWords+prefixWords], ix.codes[slot*ix.words:])
		}
		ix.prefix, ix.prefixMem = p, b
	}
	return ix.prefix
}

// setPrefix copies the prefix of slot's code into a built prefix array;
// slot is at most its length in items. The caller holds the write lock.
func (ix *Index) setPrefix(slot int32) {
	if ix.prefix == nil {
		return
	}
	off := int(slot) * prefixWords
	if off == len(ix.prefix) {
		if cap(ix.prefix) < off+prefixWords {
			ix.prefix = regrow(ix.prefix, &ix.prefixMem, 2*off+64*prefixWords)
		}
		ix.prefix = ix.prefix[:off+prefixWords]
	}
	copy(ix.prefix[off:off+prefixWords], ix.code(slot))
}

// prefixCandidates is candidates for a search without a filter through the
// prefix stage: the slots of about pool items nearest to s.qcode by full
// Hamming distance among the keep nearest by prefix distance, in slot
// order. Ties at each cut-off are taken in slot order.
func (ix *Index) prefixCandidates(s *scratch, pool, keep int) []int32 {
	p := ix.prefixCodes()
	n := len(s.dist)
	hist := s.phist[:64*prefixWords+1]
	clear(hist)
	ix.scanSplitCodes(p, s.qcode[:prefixWords], s.dist, hist, &s.pparts)
	kept := s.pcand[:0]
	if keep < n {
		cut, atCut := cutoff(hist, keep)
		kept = collect(s.dist, cut, atCut, kept)
	} else {
		kept = collect(s.dist, skip, 0, kept)
	}
	s.pcand = kept
	// The full distance of each kept item, counted in s.hist; s.dist2
	// holds them by position in kept.
	if cap(s.dist2) < len(kept) {
		s.dist2 = make([]uint16, len(kept), len(kept)+len(kept)/8)
	}
	d := s.dist2[:len(kept)]
	clear(s.hist)
	scanSlots(ix.codes, s.qcode, kept, d, s.hist)
	cut, atCut := skip, 0
	if len(kept) > pool {
		cut, atCut = cutoff(s.hist, pool)
	}
	s.cand = collect(d, cut, atCut, s.cand[:0])
	for i, j := range s.cand {
		s.cand[i] = kept[j]
	}
	return s.cand
}

// scanSlotsGo writes the full Hamming distance between q and the code of
// each slot into dist and counts it in hist: the reference for scanSlots.
func scanSlotsGo(codes, q []uint64, slots []int32, dist []uint16, hist []int32) {
	w := len(q)
	for i, slot := range slots {
		off := int(slot) * w
		d := hamming(codes[off:off+w:off+w], q)
		dist[i] = uint16(d)
		hist[d]++
	}
}
