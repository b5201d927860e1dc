//go:build !unix

package vector

import (
	"io"
	"os"
	"unsafe"
)

type mapping struct{}

func newMapping([]byte) *mapping { return nil }

// mapFile reads size bytes of f into 8-byte-aligned memory.
func mapFile(f *os.File, size int, _ bool) ([]byte, bool, error) {
	words := make([]uint64, (size+7)/8)
	data := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), size)
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, false, err
	}
	return data, false, nil
}
