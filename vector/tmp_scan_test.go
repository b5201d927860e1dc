package vector

import (
	"math/bits"
	"testing"
)

func scan6NoHist(codes, q []uint64, dist []uint16) {
	q0, q1, q2, q3, q4, q5 := q[0], q[1], q[2], q[3], q[4], q[5]
	codes = codes[:len(dist)*6]
	for i := range dist {
		c := codes[i*6 : i*6+6 : i*6+6]
		d := bits.OnesCount64(c[0]^q0) + bits.OnesCount64(c[1]^q1) +
			bits.OnesCount64(c[2]^q2) + bits.OnesCount64(c[3]^q3) +
			bits.OnesCount64(c[4]^q4) + bits.OnesCount64(c[5]^q5)
		dist[i] = uint16(d)
	}
}

const (
	m1  = 0x5555555555555555
	m2  = 0x3333333333333333
	m4  = 0x0f0f0f0f0f0f0f0f
	h01 = 0x0101010101010101
)

func nib(x uint64) uint64 {
	x -= (x >> 1) & m1
	x = (x & m2) + ((x >> 2) & m2)
	return (x + (x >> 4)) & m4
}

func scan6SWAR(codes, q []uint64, dist []uint16) {
	q0, q1, q2, q3, q4, q5 := q[0], q[1], q[2], q[3], q[4], q[5]
	codes = codes[:len(dist)*6]
	for i := range dist {
		c := codes[i*6 : i*6+6 : i*6+6]
		s := nib(c[0]^q0) + nib(c[1]^q1) + nib(c[2]^q2) + nib(c[3]^q3) + nib(c[4]^q4) + nib(c[5]^q5)
		dist[i] = uint16((s * h01) >> 56)
	}
}

func histOf(dist []uint16, hist []int32) {
	for _, d := range dist {
		hist[d]++
	}
}

func BenchmarkScanVariants(b *testing.B) {
	ix, qs := benchSet(100_000, 384)
	s := ix.scratch(ix.Len(), 10)
	signCode(s.qcode, qs[0])
	b.Run("hist", func(b *testing.B) {
		for b.Loop() {
			clear(s.hist)
			scan6(ix.codes, s.qcode, s.dist, s.hist)
		}
	})
	b.Run("nohist", func(b *testing.B) {
		for b.Loop() {
			scan6NoHist(ix.codes, s.qcode, s.dist)
		}
	})
	b.Run("swar", func(b *testing.B) {
		for b.Loop() {
			scan6SWAR(ix.codes, s.qcode, s.dist)
		}
	})
	b.Run("histpass", func(b *testing.B) {
		for b.Loop() {
			clear(s.hist)
			histOf(s.dist, s.hist)
		}
	})
	b.Run("candidates", func(b *testing.B) {
		for b.Loop() {
			ix.candidates(s, 400, nil)
		}
	})
}
