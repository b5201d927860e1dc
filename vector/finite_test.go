package vector

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// damaged returns vectors holding NaN or an infinity, keyed from 1,000,000
// on: all NaN, one NaN component, one +Inf, one -Inf, and +Inf with -Inf
// (their sum is NaN).
func damaged(dim int) map[int64][]float32 {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	out := map[int64][]float32{}
	all := make([]float32, dim)
	for i := range all {
		all[i] = nan
	}
	out[1_000_000] = all
	for k, set := range []map[int]float32{{3: nan}, {0: inf}, {dim - 1: -inf}, {1: inf, 2: -inf}} {
		v := make([]float32, dim)
		v[0] = 1
		for i, x := range set {
			v[i] = x
		}
		out[int64(1_000_001+k)] = v
	}
	return out
}

// TestNonFiniteVectors: vectors holding NaN or an infinity are stored, but
// no search returns them or any non-finite score, and every search returns
// what it returns over the same index without them; the coarse lists build
// and probe around them (ux U13: one NaN vector of an import made every
// score of a vector search NaN; with lists, k-means took a NaN item as a
// centroid and an assignment of -1).
func TestNonFiniteVectors(t *testing.T) {
	const dim, n = 64, 3000
	g := newClustered(7, dim, 20, 1)
	clean, _ := g.build(n)
	dirty := New(dim)
	for k := range int64(n) {
		v, _ := clean.Vector(k)
		if err := dirty.Add(k, v); err != nil {
			t.Fatal(err)
		}
		if k%600 == 0 { // spread among the items, so k-means samples them
			for dk, dv := range damaged(dim) {
				if err := dirty.Add(dk+k, dv); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	qs := queries(g, 20)
	nan := make([]float32, dim)
	nan[0] = float32(math.NaN())
	check := func(name string, got, want []Result) {
		t.Helper()
		for _, r := range got {
			if !finite(r.Score) || r.Key >= 1_000_000 {
				t.Fatalf("%s: result %+v (a damaged item or a non-finite score)", name, r)
			}
		}
		if want != nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: differs from the index without damaged items (-want +got):\n%s", name, diff)
			}
		}
	}
	for i, q := range qs {
		check(fmt.Sprint("exact ", i), dirty.Exact(q, 10, nil), clean.Exact(q, 10, nil))
		check(fmt.Sprint("search ", i), dirty.Search(q, 10, nil), clean.Search(q, 10, nil))
	}
	check("NaN query", dirty.Search(nan, 10, nil), nil)
	check("NaN query exact", dirty.Exact(nan, 10, nil), nil)
	for _, ix := range []*Index{clean, dirty} {
		if err := ix.BuildLists(&ListOptions{Lists: 16, Seed: 3, Sample: 20 * 16}); err != nil {
			t.Fatal(err)
		}
		if !ix.HasLists() {
			t.Fatal("no lists after BuildLists")
		}
	}
	cents, _ := dirty.Centroids()
	if !finiteVector(cents) {
		t.Fatal("a centroid holds NaN or an infinity")
	}
	for i, q := range qs {
		check(fmt.Sprint("lists ", i), dirty.Search(q, 10, nil), nil)
	}
	check("NaN query lists", dirty.Search(nan, 10, nil), nil)
}
