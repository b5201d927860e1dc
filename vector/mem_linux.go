//go:build linux && !race

package vector

import (
	"runtime"
	"syscall"
	"unsafe"
)

// blocksUsed reports whether large arrays get blocks of their own.
const blocksUsed = true

// block is an anonymous mapping holding one array.
type block struct {
	mapped []byte // the whole mapping
	buf    []byte // the 2 MB-aligned part handed out
}

// mapBlock maps size bytes (rounded up to whole 2 MB pages, aligned to
// one) and asks for huge pages; it returns nil when the mapping fails, and
// the caller uses the Go heap. A refused madvise (transparent huge pages
// off) leaves ordinary pages, which still work.
func mapBlock(size int) *block {
	rounded := (size + hugePage - 1) &^ (hugePage - 1)
	m, err := syscall.Mmap(-1, 0, rounded+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (hugePage - 1))
	b := &block{mapped: m, buf: m[off : off+rounded : off+rounded]}
	_ = syscall.Madvise(b.buf, syscall.MADV_HUGEPAGE)
	runtime.SetFinalizer(b, (*block).free)
	return b
}

// free unmaps the block; nil and freed blocks are no-ops. No slice into it
// may be used afterwards: the index frees a block only under its write
// lock, after moving the array out.
func (b *block) free() {
	if b == nil || b.mapped == nil {
		return
	}
	syscall.Munmap(b.mapped)
	b.mapped, b.buf = nil, nil
	runtime.SetFinalizer(b, nil)
}
