package vector

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEstimate checks the table lookups against the signed sum they stand
// for, at dimensions that do and do not fill whole bytes and words.
func TestEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{1, 7, 8, 13, 64, 100, 384, 512} {
		ix := New(dim)
		for i := range 50 {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
			if err := ix.Add(int64(i), v); err != nil {
				t.Fatal(err)
			}
		}
		q := make([]float32, dim)
		for j := range q {
			q[j] = float32(r.NormFloat64())
		}
		s := ix.scratch(ix.Len(), 10)
		tables := ix.lut(s, q)
		for slot := range int32(ix.Len()) {
			var want float64
			code := ix.code(slot)
			for j, x := range q {
				if code[j/64]>>(j%64)&1 == 1 {
					want += float64(x)
				} else {
					want -= float64(x)
				}
			}
			if got := float64(estimate(tables, code)); math.Abs(got-want) > 1e-3*(1+math.Abs(want)) {
				t.Fatalf("dim %d slot %d: estimate %f, want %f", dim, slot, got, want)
			}
		}
		// narrow keeps the c best estimates, in slot order.
		pool := make([]int32, ix.Len())
		for i := range pool {
			pool[i] = int32(i)
		}
		all := slices.Clone(pool)
		slices.SortStableFunc(all, func(a, b int32) int {
			ea, eb := estimate(tables, ix.code(a)), estimate(tables, ix.code(b))
			switch {
			case ea > eb:
				return -1
			case ea < eb:
				return 1
			}
			return 0
		})
		want := slices.Clone(all[:10])
		slices.Sort(want)
		if got := ix.narrow(s, q, pool, 10); !slices.Equal(got, want) {
			t.Fatalf("dim %d: narrow = %v, want %v", dim, got, want)
		}
		ix.pool.put(s)
	}
}

// BenchmarkNarrow measures the middle stage alone: tables for one query
// and the estimates of a 1,500-item pool at dimension 512 (USE-lite's).
func BenchmarkNarrow(b *testing.B) {
	g := newClustered(9, 512, 100, 1.2)
	ix, _ := g.build(20_000)
	q := g.next()
	s := ix.scratch(ix.Len(), 10)
	pool := make([]int32, 1500)
	for b.Loop() {
		for i := range pool {
			pool[i] = int32(i * 13)
		}
		ix.narrow(s, q, pool, 300)
	}
}
