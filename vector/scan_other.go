//go:build !amd64 || purego

package vector

// scanCodes writes the Hamming distance between q and each code into dist
// and counts it in hist: the Go loops of scan.go (scan_amd64.go has the
// assembly ones).
func scanCodes(codes, q []uint64, dist []uint16, hist []int32) {
	scanCodesGo(codes, q, dist, hist)
}
