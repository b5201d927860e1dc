package vector

import (
	"math/bits"
	"runtime"
	"sync"
)

// skip marks an item the filter rejected; it is larger than any Hamming
// distance because dim <= MaxDim.
const skip = MaxDim + 1

// scratch holds one search's working memory; Index.pool recycles it so a
// search allocates only its result slice.
type scratch struct {
	qcode  []uint64
	dist   []uint16  // slot -> Hamming distance to the query, or skip
	hist   []int32   // distance -> number of items at it; 64*words+1 long, as scanCodes needs
	cand   []int32   // candidate slots
	parts  [][]int32 // the histograms of a split scan's other parts (collect.go)
	heap   []Result
	lut    []float32   // the query's per-byte tables (narrow.go)
	est    []estimated // the pool's best estimates; the lists ranked (probe.go)
	ranges []slotRange // the slot ranges a probe scans
}

// scratchPool keeps working memory between searches. It is not a
// sync.Pool: the garbage collector empties those at every cycle, and a
// scratch for 100k items is about 300 KB, so a search after each
// collection allocated it again. In hybridbench that was 8 KB a query on
// average, and the allocation itself brought the next collection sooner.
// It keeps as many scratches as searches can run at once (GOMAXPROCS, at
// least 4); more concurrent searches allocate and drop theirs.
type scratchPool struct {
	mu   sync.Mutex
	free []*scratch
}

func (p *scratchPool) get() *scratch {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		return nil
	}
	s := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return s
}

// put returns s for reuse.
func (p *scratchPool) put(s *scratch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < max(4, runtime.GOMAXPROCS(0)) {
		p.free = append(p.free, s)
	}
}

// scratch returns pooled working memory sized for n items and the top k.
func (ix *Index) scratch(n, k int) *scratch {
	s := ix.pool.get()
	if s == nil {
		s = &scratch{qcode: make([]uint64, ix.words), hist: make([]int32, ix.words*64+1)}
	}
	if cap(s.dist) < n {
		s.dist = make([]uint16, n, n+n/8)
	}
	s.dist = s.dist[:n]
	if cap(s.heap) < k {
		s.heap = make([]Result, 0, k)
	}
	return s
}

// candidates returns the slots of the c items passing filter whose codes
// are nearest to s.qcode, in slot order. Items at the cut-off distance are
// taken in slot order. A distance is at most dim, so instead of a heap it
// counts items per distance, finds the cut-off in the histogram and then
// collects in a second pass over the distances: O(n) with no comparisons.
func (ix *Index) candidates(s *scratch, c int, filter func(int64) bool) []int32 {
	clear(s.hist)
	passing := len(s.dist)
	if filter == nil {
		ix.scanSplit(s)
	} else {
		passing = ix.scanFiltered(s, filter)
	}
	cut, atCut := skip, 0 // take every passing item
	if passing > c {
		cut, atCut = cutoff(s.hist, c)
	}
	s.cand = collect(s.dist, cut, atCut, s.cand[:0])
	return s.cand
}

// cutoff returns the distance cut such that fewer than c items are nearer
// than cut, and how many items at cut are needed to make c.
func cutoff(hist []int32, c int) (cut, atCut int) {
	below := 0
	for d, m := range hist {
		if below+int(m) >= c {
			return d, c - below
		}
		below += int(m)
	}
	return len(hist), 0
}

// scanFiltered is scanCodes for the items passing filter; the rest get
// distance skip. It returns how many passed.
func (ix *Index) scanFiltered(s *scratch, filter func(int64) bool) int {
	passing := 0
	for slot, key := range ix.keys {
		if !filter(key) {
			s.dist[slot] = skip
			continue
		}
		d := hamming(ix.code(int32(slot)), s.qcode)
		s.dist[slot] = uint16(d)
		s.hist[d]++
		passing++
	}
	return passing
}

// scanCodesGo writes the Hamming distance between q and each code into
// dist and counts it in hist. The common code widths (256, 384, 512 and 768
// dimensions) get loops with the query held in registers. It is the
// reference for the assembly loops (scan_amd64.go) and what runs without
// them.
func scanCodesGo(codes, q []uint64, dist []uint16, hist []int32) {
	switch len(q) {
	case 4:
		scan4(codes, q, dist, hist)
	case 6:
		scan6(codes, q, dist, hist)
	case 8:
		scan8(codes, q, dist, hist)
	default:
		w := len(q)
		for i := range dist {
			d := hamming(codes[i*w:i*w+w:i*w+w], q)
			dist[i] = uint16(d)
			hist[d]++
		}
	}
}

func scan4(codes, q []uint64, dist []uint16, hist []int32) {
	q0, q1, q2, q3 := q[0], q[1], q[2], q[3]
	codes = codes[:len(dist)*4]
	for i := range dist {
		c := codes[i*4 : i*4+4 : i*4+4]
		d := bits.OnesCount64(c[0]^q0) + bits.OnesCount64(c[1]^q1) +
			bits.OnesCount64(c[2]^q2) + bits.OnesCount64(c[3]^q3)
		dist[i] = uint16(d)
		hist[d]++
	}
}

func scan6(codes, q []uint64, dist []uint16, hist []int32) {
	q0, q1, q2, q3, q4, q5 := q[0], q[1], q[2], q[3], q[4], q[5]
	codes = codes[:len(dist)*6]
	for i := range dist {
		c := codes[i*6 : i*6+6 : i*6+6]
		d := bits.OnesCount64(c[0]^q0) + bits.OnesCount64(c[1]^q1) +
			bits.OnesCount64(c[2]^q2) + bits.OnesCount64(c[3]^q3) +
			bits.OnesCount64(c[4]^q4) + bits.OnesCount64(c[5]^q5)
		dist[i] = uint16(d)
		hist[d]++
	}
}

func scan8(codes, q []uint64, dist []uint16, hist []int32) {
	q0, q1, q2, q3, q4, q5, q6, q7 := q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]
	codes = codes[:len(dist)*8]
	for i := range dist {
		c := codes[i*8 : i*8+8 : i*8+8]
		d := bits.OnesCount64(c[0]^q0) + bits.OnesCount64(c[1]^q1) +
			bits.OnesCount64(c[2]^q2) + bits.OnesCount64(c[3]^q3) +
			bits.OnesCount64(c[4]^q4) + bits.OnesCount64(c[5]^q5) +
			bits.OnesCount64(c[6]^q6) + bits.OnesCount64(c[7]^q7)
		dist[i] = uint16(d)
		hist[d]++
	}
}
