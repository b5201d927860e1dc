//go:build unix

package vector

import (
	"os"
	"runtime"
	"syscall"
)

// mapping is a read-only file mapping, released when it is no longer
// referenced (an Index refers to it while it uses the mapped memory).
type mapping struct{ data []byte }

func newMapping(data []byte) *mapping {
	m := &mapping{data: data}
	runtime.SetFinalizer(m, func(m *mapping) { syscall.Munmap(m.data) })
	return m
}

// mapFile maps size bytes of f read-only; populate asks the kernel to map
// every page now (Linux), where touching them one by one costs a page
// fault each.
func mapFile(f *os.File, size int, populate bool) ([]byte, bool, error) {
	flags := syscall.MAP_SHARED
	if populate {
		flags |= populateFlag
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, flags)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}
