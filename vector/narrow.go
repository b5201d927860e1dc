package vector

import (
	"math/bits"
	"slices"
)

// The middle stage of Search: asymmetric ranking of the Hamming pool.
//
// Hamming distance quantizes both sides. Real sentence embeddings share a
// strong mean direction (USE-lite's 105k chunk vectors: the mean has norm
// 0.81), so many sign bits agree for almost every pair and the distance is
// a coarse estimate: the 400 nearest codes held 94% of the exact top 10
// there. Keeping the query in float32 and scoring each item by the dot
// product of the query with the item's signs (+1 for a set bit, -1 for a
// clear one) is a much better estimate for the same stored bits: ranking
// the 2,000 nearest codes that way and rescoring the best 400 held 98.4%
// (measured with bench/cmd/hybridbench's corpus; see bench/RESULTS.md).
//
// The estimate is a sum of table lookups: for each byte of the code, a
// 256-entry table holds the signed sum of the 8 query components it
// covers, so an item costs dim/8 lookups instead of dim multiply-adds.

// lut fills s.lut with the per-byte tables of q.
func (ix *Index) lut(s *scratch, q []float32) []float32 {
	nb := ix.words * 8
	if cap(s.lut) < nb*256 {
		s.lut = make([]float32, nb*256)
	}
	t := s.lut[:nb*256]
	for b := range nb {
		var comp [8]float32
		base := float32(0)
		for i := range 8 {
			if d := b*8 + i; d < len(q) {
				comp[i] = q[d]
				base -= q[d]
			}
		}
		tb := t[b*256 : b*256+256 : b*256+256]
		tb[0] = base
		for x := 1; x < 256; x++ {
			low := x & -x
			tb[x] = tb[x^low] + 2*comp[bits.TrailingZeros8(uint8(x))]
		}
	}
	return t
}

// estimate returns the dot product of the query whose tables are t with
// the signs of code.
// The eight lookups of a word are added as a tree and words alternate
// between two sums, so the float adds do not wait on each other.
func estimate(t []float32, code []uint64) float32 {
	var even, odd float32
	for w, c := range code {
		tw := (*[2048]float32)(t[w*2048 : w*2048+2048])
		a := tw[c&0xff] + tw[256+(c>>8&0xff)]
		b := tw[512+(c>>16&0xff)] + tw[768+(c>>24&0xff)]
		d := tw[1024+(c>>32&0xff)] + tw[1280+(c>>40&0xff)]
		e := tw[1536+(c>>48&0xff)] + tw[1792+(c>>56)]
		if w&1 == 0 {
			even += (a + b) + (d + e)
		} else {
			odd += (a + b) + (d + e)
		}
	}
	return even + odd
}

// narrow returns the c slots of pool with the highest asymmetric estimate
// (ties: the lower slot), in slot order, so the exact rescoring reads the
// vectors in memory order.
func (ix *Index) narrow(s *scratch, q []float32, pool []int32, c int) []int32 {
	t := ix.lut(s, q)
	h := s.est[:0]
	for _, slot := range pool {
		e := estimated{slot, estimate(t, ix.code(slot))}
		if len(h) < c {
			h = append(h, e)
			estUp(h, len(h)-1)
		} else if e.better(h[0]) {
			h[0] = e
			estDown(h, 0)
		}
	}
	s.est = h
	slices.SortFunc(h, func(a, b estimated) int { return int(a.slot - b.slot) })
	out := pool[:0] // h no longer reads pool: reuse its storage
	for _, e := range h {
		out = append(out, e.slot)
	}
	return out
}

type estimated struct {
	slot  int32
	score float32
}

// better orders estimates: higher score, then lower slot.
func (a estimated) better(b estimated) bool {
	return a.score > b.score || a.score == b.score && a.slot < b.slot
}

// estUp and estDown keep h a min-heap on better: h[0] is the weakest kept.
func estUp(h []estimated, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[p].better(h[i]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func estDown(h []estimated, i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && h[m].better(h[l]) {
			m = l
		}
		if r := l + 1; r < len(h) && h[m].better(h[r]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
