//go:build !amd64 || purego

package vector

// scanCodesPlain is scanCodes: the prefetch hint is in the amd64 assembly
// only.
func scanCodesPlain(codes, q []uint64, dist []uint16, hist []int32) {
	scanCodes(codes, q, dist, hist)
}
