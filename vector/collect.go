package vector

import (
	"encoding/binary"
	"runtime"
	"sync"
	"unsafe"
)

// collect appends to cand the slots whose distance is below cut, and the
// first atCut of those at cut, in slot order: the second pass of
// candidates. Nearly every distance is above the cut (a pool of a few
// thousand of a million items), so it tests four distances at a time with
// one subtraction (a lane below cut+1 borrows into its high bit, and the
// lowest such lane always shows) and looks at single lanes only in a word
// that has one. Without a cut (every passing item taken) or for codes of
// more than 32767 bits (the trick needs lanes below 2^15) it reads the
// distances one by one.
func collect(dist []uint16, cut, atCut int, cand []int32) []int32 {
	if cut >= 1<<15 {
		return collectFrom(dist, 0, cut, atCut, cand)
	}
	const lanes, high = 0x0001_0001_0001_0001, 0x8000_8000_8000_8000
	sub := uint64(cut+1) * lanes
	words := len(dist) / 4
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dist))), 8*words)
	for i := range words {
		x := binary.NativeEndian.Uint64(b[8*i:]) // any byte order keeps each distance a whole lane
		if (x-sub)&^x&high == 0 {
			continue
		}
		for j := 4 * i; j < 4*i+4; j++ {
			if d := int(dist[j]); d < cut {
				cand = append(cand, int32(j))
			} else if d == cut && atCut > 0 {
				cand = append(cand, int32(j))
				atCut--
			}
		}
	}
	return collectFrom(dist, 4*words, cut, atCut, cand)
}

// collectFrom is collect's plain loop over dist[from:].
func collectFrom(dist []uint16, from, cut, atCut int, cand []int32) []int32 {
	for j := from; j < len(dist); j++ {
		if d := int(dist[j]); d < cut {
			cand = append(cand, int32(j))
		} else if d == cut && atCut > 0 {
			cand = append(cand, int32(j))
			atCut--
		}
	}
	return cand
}

// splitMin is the fewest items a part of a split scan gets: below it one
// goroutine scans everything. Waking another thread costs tens of
// microseconds, and at 100k items the whole scan takes about 0.3 ms, so
// only indexes of several hundred thousand items split (bench/RESULTS.md:
// at 1M x 384 the scan reads 48 MB of codes, more than one core's memory
// bandwidth moves in the 5 ms goal).
const splitMin = 1 << 18

// scanSplit is scanCodes over the whole index, in up to GOMAXPROCS parts
// of at least splitMin items each, one goroutine a part (the caller's
// goroutine scans the first); every goroutine is awaited before it
// returns. Each part counts into a histogram of its own, added to s.hist
// at the end, so the result is the same as one scan's.
func (ix *Index) scanSplit(s *scratch) { ix.scanSplitWith(s, scanCodes) }

// scanSplitWith is scanSplit with scan as each part's loop (the tests
// compare loops this way).
func (ix *Index) scanSplitWith(s *scratch, scan func(codes, q []uint64, dist []uint16, hist []int32)) {
	n := len(s.dist)
	parts := min(runtime.GOMAXPROCS(0), n/splitMin, maxParts)
	if parts < 2 {
		scan(ix.codes, s.qcode, s.dist, s.hist)
		return
	}
	for len(s.parts) < parts-1 {
		s.parts = append(s.parts, make([]int32, len(s.hist)))
	}
	w := ix.words
	per := (n + parts - 1) / parts
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		lo, hi := p*per, min((p+1)*per, n)
		h := s.parts[p-1]
		clear(h)
		wg.Go(func() { scan(ix.codes[lo*w:hi*w], s.qcode, s.dist[lo:hi], h) })
	}
	scan(ix.codes[:per*w], s.qcode, s.dist[:per], s.hist)
	wg.Wait()
	for _, h := range s.parts[:parts-1] {
		for d, m := range h {
			s.hist[d] += m
		}
	}
}

// maxParts bounds the goroutines of one scan: beyond a few the memory bus,
// not the cores, sets the pace.
const maxParts = 4
