//go:build !purego

package vector

import "unsafe"

// scanCodesPlain is scanCodes as it was before the prefetch hint, for
// codes of six words (dimension 384, TestScanVariants's); other widths
// take scanCodes.
func scanCodesPlain(codes, q []uint64, dist []uint16, hist []int32) {
	n := len(dist)
	if !hasPopcnt || n == 0 || len(q) != 6 {
		scanCodes(codes, q, dist, hist)
		return
	}
	_ = codes[n*6-1]
	_ = hist[64*6]
	scanPopcnt6Plain(unsafe.SliceData(codes), unsafe.SliceData(q), unsafe.SliceData(dist), n, unsafe.SliceData(hist))
}
