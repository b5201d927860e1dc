package vector

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The scan variants, for TestScanVariants: the Go loops and plain
// candidate pass (as before the assembly), the assembly scan split over the
// cores without the prefetch hint (scanCodesPlain: as before it), and
// Search's scan as it is (split on large indexes, prefetching).
const (
	variantGo = iota
	variantPlain
	variantSplit
	variantLists
	variants
)

var variantNames = [variants]string{"Go scan", "assembly, split, no prefetch", "assembly, split, prefetch", "coarse lists"}

// searchVariant is Search without a filter, with the scan and candidate
// pass of variant v.
func (ix *Index) searchVariant(q []float32, k, v int) []Result {
	if v == variantLists {
		return ix.Search(q, k, nil) // with lists when the index has them
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := len(ix.keys)
	var o SearchOptions
	o.setDefaults(k, n)
	s := ix.scratch(n, k)
	defer ix.pool.put(s)
	signCode(s.qcode, q)
	clear(s.hist)
	switch v {
	case variantGo:
		scanCodesGo(ix.codes, s.qcode, s.dist, s.hist)
	case variantPlain:
		ix.scanSplitWith(s, scanCodesPlain)
	default:
		ix.scanSplit(s)
	}
	cut, atCut := skip, 0
	if n > o.Pool {
		cut, atCut = cutoff(s.hist, o.Pool)
	}
	if v == variantGo {
		s.cand = collectFrom(s.dist, 0, cut, atCut, s.cand[:0])
	} else {
		s.cand = collect(s.dist, cut, atCut, s.cand[:0])
	}
	cand := s.cand
	if len(cand) > o.Candidates {
		cand = ix.narrow(s, q, cand, o.Candidates)
	}
	top := topK{h: s.heap[:0], k: k}
	for _, slot := range cand {
		top.push(Result{Key: ix.keys[slot], Score: dot(q, ix.vector(slot))})
	}
	s.heap = top.h
	return top.sorted()
}

// TestScanVariants compares the scan variants on BenchmarkScale's data,
// alternating in random order query by query so the machine's load falls
// on all of them alike, and logs p50/p90/p99 and recall@10 against Exact.
// It runs only with CAIRN_VECTOR_AB set to the index size;
// CAIRN_VECTOR_AB_QUERIES is the timed queries (default 2,000; 100 more
// warm up first):
//
//	CAIRN_VECTOR_AB=1000000 go test -run TestScanVariants -v -timeout 0 ./vector/
func TestScanVariants(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CAIRN_VECTOR_AB"))
	if n <= 0 {
		t.Skip("set CAIRN_VECTOR_AB to the index size to compare the scan variants")
	}
	nq := 2000
	if s := os.Getenv("CAIRN_VECTOR_AB_QUERIES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("CAIRN_VECTOR_AB_QUERIES %q: want a positive count of queries", s)
		}
		nq = v
	}
	g := newClustered(uint64(n)+7, 384, 1000, 1)
	ix := New(384)
	ix.Grow(n)
	for i := range n {
		if err := ix.Add(int64(i), g.next()); err != nil {
			t.Fatal(err)
		}
	}
	if n >= ListsMin {
		start := time.Now()
		if err := ix.BuildLists(nil); err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d: %d lists built in %.1f s, resident %.0f MB", n, ix.lists.nlist, time.Since(start).Seconds(), residentMB())
	}
	qs := queries(g, 100+nq)
	rng := rand.New(rand.NewPCG(1, 1))
	var lat [variants][]time.Duration
	for i, q := range qs {
		for _, v := range rng.Perm(variants) {
			start := time.Now()
			ix.searchVariant(q, 10, v)
			if i >= 100 { // the first 100 warm up
				lat[v] = append(lat[v], time.Since(start))
			}
		}
	}
	var recall [variants]float64
	for _, q := range qs[:100] {
		want := ix.Exact(q, 10, nil)
		for v := range variants {
			recall[v] += recallAt(ix.searchVariant(q, 10, v), want)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for v := range variants {
		l := lat[v]
		slices.Sort(l)
		t.Logf("n=%d %s: p50 %.2f ms, p90 %.2f, p99 %.2f, recall@10 %.4f", n, variantNames[v],
			ms(l[len(l)/2]), ms(l[len(l)*9/10]), ms(l[len(l)*99/100]), recall[v]/100)
	}
}

// TestSearchVariantsAgree checks that the three scans find the same
// results as Search on a small index.
func TestSearchVariantsAgree(t *testing.T) {
	ix, qs := recallSet()
	for _, q := range qs[:20] {
		want := ix.Search(q, 10, nil)
		for v := range variants {
			if got := ix.searchVariant(q, 10, v); !slices.Equal(got, want) {
				t.Fatalf("%s: %v, Search %v", variantNames[v], got, want)
			}
		}
	}
}
