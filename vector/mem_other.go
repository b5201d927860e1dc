//go:build !linux || race

package vector

// blocksUsed reports whether large arrays get blocks of their own.
const blocksUsed = false

// block is unused off Linux, and in race-detector builds (the detector
// does not see memory outside the Go heap, so it could not check the index
// arrays): every array is a Go slice.
type block struct{ buf []byte }

func mapBlock(int) *block { return nil }

func (b *block) free() {}
