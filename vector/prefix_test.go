package vector

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestScanSlots compares scanSlots (assembly on amd64) with the Go
// reference on random codes of every width from 1 to 9 words, odd slot
// counts, repeated slots and slots in any order.
func TestScanSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for words := 1; words <= 9; words++ {
		for _, n := range []int{1, 2, 3, 7, 1001} {
			codes := make([]uint64, n*words)
			for i := range codes {
				codes[i] = rng.Uint64()
			}
			q := make([]uint64, words)
			for i := range q {
				q[i] = rng.Uint64()
			}
			copy(codes[words*(n/2):], q) // one item at distance 0
			for _, m := range []int{0, 1, 5, n, 2*n + 1} {
				slots := make([]int32, m)
				for i := range slots {
					slots[i] = int32(rng.IntN(n))
				}
				if m > 0 {
					slots[m-1] = int32(n - 1) // the last item
				}
				want, got := make([]uint16, m), make([]uint16, m)
				wantH, gotH := make([]int32, 64*words+1), make([]int32, 64*words+1)
				scanSlotsGo(codes, q, slots, want, wantH)
				scanSlots(codes, q, slots, got, gotH)
				if !slices.Equal(got, want) || !slices.Equal(gotH, wantH) {
					t.Fatalf("words %d, n %d, %d slots: scanSlots = %v, want %v", words, n, m, got, want)
				}
			}
		}
	}
}

// searchPrefix is Search without a filter through the prefix stage,
// keeping keep items by prefix distance (less than 0: prefixKeep's share),
// whatever the index's size.
func (ix *Index) searchPrefix(q []float32, k, keep int, opts *SearchOptions) []Result {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := len(ix.keys)
	var o SearchOptions
	if opts != nil {
		o = *opts
	}
	o.setDefaults(k, n)
	if keep < 0 {
		keep = prefixKeep(o.Pool, n)
	}
	s := ix.scratch(n, k)
	defer ix.pool.put(s)
	signCode(s.qcode, q)
	cand := ix.prefixCandidates(s, o.Pool, keep)
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

// TestPrefixKeepAll checks the prefix stage's bookkeeping: when it keeps
// every item, its pool is the full scan's, ties included, so the results
// are Search's exactly; and keeping fewer than the pool leaves them all.
func TestPrefixKeepAll(t *testing.T) {
	ix, qs := recallSet()
	for _, o := range []*SearchOptions{nil, {Candidates: 50, Pool: 200}, {Candidates: 20, Pool: 20}} {
		for i, q := range qs[:20] {
			want := ix.Search(q, 10, o)
			if got := ix.searchPrefix(q, 10, ix.Len(), o); !slices.Equal(got, want) {
				t.Fatalf("options %+v, query %d: prefix stage keeping all = %v, Search %v", o, i, got, want)
			}
		}
	}
	// A pool larger than what the prefix stage keeps takes all it kept.
	s := ix.scratch(ix.Len(), 10)
	defer ix.pool.put(s)
	signCode(s.qcode, qs[0])
	if got := ix.prefixCandidates(s, 500, 100); len(got) != 100 || !slices.IsSorted(got) {
		t.Fatalf("pool 500 of 100 kept: %d candidates (sorted %v), want the 100 in slot order", len(got), slices.IsSorted(got))
	}
}

// TestPrefixRecall logs the prefix stage's loss on both fixtures with a
// pool small enough that it keeps a twentieth of the items, about its
// share at 1M items. It asserts nothing: on shiftedSet (a shared mean
// direction, as real embeddings have) recall@10 fell from 0.836 to 0.726,
// one reason Search does not use the stage.
func TestPrefixRecall(t *testing.T) {
	for _, set := range []struct {
		name string
		get  func() (*Index, [][]float32)
	}{{"recallSet", recallSet}, {"shiftedSet", shiftedSet}} {
		ix, qs := set.get()
		o := &SearchOptions{Candidates: 20, Pool: 100}
		keep := prefixPerPool * o.Pool
		var full, pre float64
		for _, q := range qs {
			want := ix.Exact(q, 10, nil)
			full += recallAt(ix.Search(q, 10, o), want)
			pre += recallAt(ix.searchPrefix(q, 10, keep, o), want)
		}
		full /= float64(len(qs))
		pre /= float64(len(qs))
		t.Logf("%s (n=%d): recall@10 %.4f full scan, %.4f keeping %d by prefix", set.name, ix.Len(), full, pre, keep)
	}
}

// TestPrefixMaintained builds the prefix array, changes the index (adds,
// a replacement, removals of the last and of other slots, growth past the
// capacity) and checks that the array is still each code's prefix.
func TestPrefixMaintained(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	vec := func() []float32 {
		v := make([]float32, 300)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	ix := New(300)
	for i := range 100 {
		if err := ix.Add(int64(i), vec()); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string) {
		t.Helper()
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		n := len(ix.keys)
		if len(ix.prefix) != n*prefixWords {
			t.Fatalf("%s: prefix holds %d words for %d items", step, len(ix.prefix), n)
		}
		for slot := range n {
			if got, want := ix.prefix[slot*prefixWords:(slot+1)*prefixWords], ix.code(int32(slot))[:prefixWords]; !slices.Equal(got, want) {
				t.Fatalf("%s: slot %d prefix %x, code starts %x", step, slot, got, want)
			}
		}
	}
	ix.mu.RLock()
	ix.prefixCodes()
	ix.mu.RUnlock()
	check("built")
	if err := ix.Add(5, vec()); err != nil {
		t.Fatal(err)
	}
	check("replaced")
	ix.Remove(99)
	ix.Remove(3)
	check("removed")
	for i := 1000; i < 3000; i++ {
		if err := ix.Add(int64(i), vec()); err != nil {
			t.Fatal(err)
		}
	}
	check("grown")
	ix.Grow(50_000)
	check("reserved")
}
