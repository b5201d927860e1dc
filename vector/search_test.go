package vector

import (
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecall(t *testing.T) {
	ix, qs := recallSet()
	if r := meanRecall(ix, qs, nil); r < 0.99 {
		t.Fatalf("recall@10 = %.4f over %d queries, want >= 0.99", r, len(qs))
	}
}

// TestRecallShifted is the harder fixture: every vector shares a strong
// mean direction, as real sentence embeddings do, so sign bits carry less.
// The asymmetric middle stage must hold recall there; Hamming distance
// alone (Pool = Candidates) does not.
func TestRecallShifted(t *testing.T) {
	ix, qs := shiftedSet()
	r := meanRecall(ix, qs, nil)
	if r < 0.99 {
		t.Fatalf("recall@10 = %.4f over %d queries, want >= 0.99", r, len(qs))
	}
	if plain := meanRecall(ix, qs, &SearchOptions{Pool: 1}); plain >= r {
		t.Fatalf("recall@10 without the middle stage %.4f, with it %.4f: the stage must help here", plain, r)
	}
}

func meanRecall(ix *Index, qs [][]float32, o *SearchOptions) float64 {
	var sum float64
	for _, q := range qs {
		sum += recallAt(ix.Search(q, 10, o), ix.Exact(q, 10, nil))
	}
	return sum / float64(len(qs))
}

func TestFilter(t *testing.T) {
	ix, qs := recallSet()
	tests := []struct {
		name    string
		filter  func(int64) bool
		passing int
	}{
		{"even keys", func(k int64) bool { return k%2 == 0 }, 10_000},
		{"one percent", func(k int64) bool { return k%100 == 7 }, 200},
		{"five items", func(k int64) bool { return k < 5 }, 5},
		{"none", func(int64) bool { return false }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []int{10, 50} {
				for i, q := range qs[:20] {
					got := ix.Search(q, k, &SearchOptions{Filter: tt.filter})
					if want := min(k, tt.passing); len(got) != want {
						t.Fatalf("k=%d query %d: %d results, want %d", k, i, len(got), want)
					}
					for _, r := range got {
						if !tt.filter(r.Key) {
							t.Fatalf("k=%d query %d: key %d does not pass the filter", k, i, r.Key)
						}
					}
					want := ix.Exact(q, k, tt.filter)
					if tt.passing <= DefaultCandidates {
						// Every passing item is rescored: the answer is exact.
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("k=%d query %d: Search differs from Exact (-want +got):\n%s", k, i, diff)
						}
					} else if r := recallAt(got, want); r < 0.9 {
						t.Fatalf("k=%d query %d: recall %.2f, want >= 0.9", k, i, r)
					}
				}
			}
		})
	}
}

func TestKLargerThanN(t *testing.T) {
	g := newClustered(3, 32, 4, 1)
	ix, vs := g.build(25)
	for _, opts := range []*SearchOptions{nil, {Exact: true}, {Candidates: 3}} {
		got := ix.Search(vs[0], 100, opts)
		if len(got) != 25 {
			t.Fatalf("Search(k=100, %+v) on 25 items: %d results, want 25", opts, len(got))
		}
	}
	got := ix.Search(vs[0], 100, nil)
	if diff := cmp.Diff(ix.Exact(vs[0], 100, nil), got); diff != "" {
		t.Fatalf("Search(k > n) differs from Exact (-want +got):\n%s", diff)
	}
	if got := ix.Search(vs[0], 0, nil); got != nil {
		t.Fatalf("Search(k=0) = %v, want nil", got)
	}
}

func TestExactOption(t *testing.T) {
	ix, qs := recallSet()
	even := func(k int64) bool { return k%2 == 0 }
	for _, q := range qs[:5] {
		got := ix.Search(q, 10, &SearchOptions{Exact: true, Filter: even})
		if diff := cmp.Diff(ix.Exact(q, 10, even), got); diff != "" {
			t.Fatalf("Search(Exact) differs from Exact (-want +got):\n%s", diff)
		}
	}
}

func TestOrder(t *testing.T) {
	ix := New(2)
	ix.Add(5, []float32{1, 0})
	ix.Add(3, []float32{1, 0})
	ix.Add(9, []float32{0.6, 0.8})
	ix.Add(1, []float32{0, 1})
	ix.Add(4, []float32{1, 0})
	want := []Result{{3, 1}, {4, 1}, {5, 1}, {9, 0.6}, {1, 0}}
	for _, opts := range []*SearchOptions{nil, {Exact: true}, {Candidates: 1}} {
		got := ix.Search([]float32{1, 0}, 5, opts)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Search(%+v) order (-want +got):\n%s", opts, diff)
		}
	}
	got := ix.Search([]float32{1, 0}, 2, nil)
	if diff := cmp.Diff(want[:2], got); diff != "" {
		t.Fatalf("Search(k=2) ties keep the smaller keys (-want +got):\n%s", diff)
	}
}

func TestCandidates(t *testing.T) {
	ix, qs := recallSet()
	s := ix.scratch(ix.Len(), 10)
	defer ix.pool.put(s)
	tests := []struct{ c, want int }{{1, 1}, {400, 400}, {5000, 5000}, {ix.Len(), ix.Len()}, {1 << 30, ix.Len()}}
	for _, tt := range tests {
		signCode(s.qcode, qs[0])
		got := ix.candidates(s, tt.c, nil)
		if len(got) != tt.want {
			t.Fatalf("candidates(%d) = %d slots, want %d", tt.c, len(got), tt.want)
		}
		// Every candidate is at least as near as every item left out.
		in := make([]bool, ix.Len())
		worst := 0
		for _, slot := range got {
			in[slot] = true
			worst = max(worst, int(s.dist[slot]))
		}
		for slot, d := range s.dist {
			if !in[slot] && int(d) < worst {
				t.Fatalf("candidates(%d): slot %d at distance %d left out, candidate at %d", tt.c, slot, d, worst)
			}
			if want := hamming(ix.code(int32(slot)), s.qcode); int(d) != want {
				t.Fatalf("slot %d: scanned distance %d, want %d", slot, d, want)
			}
		}
		if !slices.IsSorted(got) {
			t.Fatalf("candidates(%d) not in slot order", tt.c)
		}
	}
}

func TestKernels(t *testing.T) {
	g := newClustered(4, 1024, 1, 1)
	for _, dim := range []int{1, 7, 8, 63, 64, 65, 256, 384, 512, 768, 1000, 1024} {
		a, b := g.next()[:dim], g.next()[:dim]
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		if got := float64(dot(a, b)); got-want > 1e-5 || want-got > 1e-5 {
			t.Fatalf("dim %d: dot = %v, want %v", dim, got, want)
		}
		words := (dim + 63) / 64
		ca, cb := make([]uint64, words), make([]uint64, words)
		signCode(ca, a)
		signCode(cb, b)
		wantH := 0
		for i := range a {
			if (a[i] >= 0) != (b[i] >= 0) {
				wantH++
			}
		}
		if got := hamming(ca, cb); got != wantH {
			t.Fatalf("dim %d: hamming = %d, want %d", dim, got, wantH)
		}
		dist, hist := make([]uint16, 2), make([]int32, words*64+1)
		scanCodes(append(ca, cb...), cb, dist, hist)
		if dist[0] != uint16(wantH) || dist[1] != 0 || hist[wantH] < 1 || hist[0] < 1 {
			t.Fatalf("dim %d: scanCodes = %v, want [%d 0]", dim, dist, wantH)
		}
	}
}

// TestScratchSurvivesGC checks that a search after garbage collections
// reuses its working memory: only the result slice is allocated. (A
// sync.Pool is emptied by two collections, and the scratch, mostly the
// per-item distances, was then allocated again.)
func TestScratchSurvivesGC(t *testing.T) {
	g := newClustered(5, 64, 8, 1)
	ix, vs := g.build(5000)
	ix.Search(vs[0], 10, nil)
	var bytes uint64
	allocs := testing.AllocsPerRun(5, func() {
		runtime.GC()
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		ix.Search(vs[1], 10, nil)
		runtime.ReadMemStats(&m1)
		bytes = m1.TotalAlloc - m0.TotalAlloc
	})
	if allocs > 1 || bytes > 1024 {
		t.Fatalf("Search after two collections: %v allocations, %d bytes; want the result slice alone", allocs, bytes)
	}
}

func TestSearchDefaults(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          SearchOptions
		k, n        int
		cands, pool int
	}{
		{"small index", SearchOptions{}, 10, 20_000, 300, 1500},
		{"many results", SearchOptions{}, 50, 20_000, 1000, 5000},
		{"1M items", SearchOptions{}, 10, 1_000_000, 625, 3125},
		{"size unknown", SearchOptions{}, 10, 0, 300, 1500},
		{"set by caller", SearchOptions{Candidates: 100, Pool: 50}, 10, 1_000_000, 100, 100},
		{"fewer than k", SearchOptions{Candidates: 5}, 10, 1000, 10, 50},
	} {
		o := tc.in
		o.setDefaults(tc.k, tc.n)
		if o.Candidates != tc.cands || o.Pool != tc.pool {
			t.Errorf("%s: Candidates %d, Pool %d; want %d, %d", tc.name, o.Candidates, o.Pool, tc.cands, tc.pool)
		}
	}
}
