//go:build !linux

package vector

// block is unused off Linux: every array is a Go slice.
type block struct{ buf []byte }

func mapBlock(int) *block { return nil }

func (b *block) free() {}
