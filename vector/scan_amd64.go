//go:build !purego

package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The code scan in assembly (scan_amd64.s). Built for the default GOAMD64=v1
// the compiler guards every bits.OnesCount64 with a run-time check for the
// POPCNT instruction and keeps the query in memory; these loops check once,
// hold the query in registers and do one POPCNT per code word. The Go loops
// in scan.go stay the reference (TestScanKernels compares them on random
// codes) and run where POPCNT is missing or under the purego tag.

//go:noescape
func scanPopcnt4(codes *uint64, q *uint64, dist *uint16, n int, hist *int32)

//go:noescape
func scanPopcnt6(codes *uint64, q *uint64, dist *uint16, n int, hist *int32)

//go:noescape
func scanPopcnt8(codes *uint64, q *uint64, dist *uint16, n int, hist *int32)

// scanPopcnt6Plain is scanPopcnt6 without the prefetch hint, the baseline
// of TestScanVariants.
//
//go:noescape
func scanPopcnt6Plain(codes *uint64, q *uint64, dist *uint16, n int, hist *int32)

//go:noescape
func scanPopcntN(codes *uint64, q *uint64, words int, dist *uint16, n int, hist *int32)

// hasPopcnt reports whether this CPU runs the assembly loops.
var hasPopcnt = cpu.X86.HasPOPCNT

// scanCodes writes the Hamming distance between q and each code into dist
// and counts it in hist, which must hold 64*len(q)+1 counts (the most a
// distance can be, whatever the padding bits of a code hold).
func scanCodes(codes, q []uint64, dist []uint16, hist []int32) {
	n, w := len(dist), len(q)
	if !hasPopcnt || n == 0 || w == 0 {
		scanCodesGo(codes, q, dist, hist)
		return
	}
	// The loops read n*w words of codes and write n distances, and index
	// hist by a distance of at most 64*w: check once here what Go checks
	// per access.
	_ = codes[n*w-1]
	_ = hist[64*w]
	c, qp, d, h := unsafe.SliceData(codes), unsafe.SliceData(q), unsafe.SliceData(dist), unsafe.SliceData(hist)
	switch w {
	case 4:
		scanPopcnt4(c, qp, d, n, h)
	case 6:
		scanPopcnt6(c, qp, d, n, h)
	case 8:
		scanPopcnt8(c, qp, d, n, h)
	default:
		scanPopcntN(c, qp, w, d, n, h)
	}
}
