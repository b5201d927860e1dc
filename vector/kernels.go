package vector

import "math/bits"

// signCode writes the sign-bit code of v into code: bit i of the code is set
// when v[i] >= 0. code must hold (len(v)+63)/64 words.
func signCode(code []uint64, v []float32) {
	clear(code)
	for i, x := range v {
		if x >= 0 {
			code[i>>6] |= 1 << (uint(i) & 63)
		}
	}
}

// finite reports whether x is neither NaN nor infinite: x-x is 0 for every
// finite x and NaN otherwise. A stored vector holding NaN or an infinity
// (a damaged import, another writer's bug) scores NaN or ±Inf against every
// query; Search and Exact leave such an item out, so no result ever carries
// a non-finite score whatever the index holds (ux U13: one NaN vector made
// every score of a search NaN downstream).
func finite(x float32) bool { return x-x == 0 }

// finiteVector reports whether every component of v is finite.
func finiteVector(v []float32) bool {
	var s float32
	for _, x := range v {
		s += x - x // NaN as soon as one x is NaN or infinite
	}
	return s == 0
}

// dot returns the dot product of a and b, which must have the same length.
// Eight accumulators keep the floating-point adds independent so the CPU can
// overlap them; the order of additions is fixed, so the same pair always
// gives the same score.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// hamming returns the number of differing bits between a and b, which must
// have the same length.
func hamming(a, b []uint64) int {
	b = b[:len(a)]
	d := 0
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x := a[i : i+4 : i+4]
		y := b[i : i+4 : i+4]
		d += bits.OnesCount64(x[0]^y[0]) + bits.OnesCount64(x[1]^y[1]) +
			bits.OnesCount64(x[2]^y[2]) + bits.OnesCount64(x[3]^y[3])
	}
	for ; i < len(a); i++ {
		d += bits.OnesCount64(a[i] ^ b[i])
	}
	return d
}
