package vector

import "unsafe"

// Storage for the index's arrays.
//
// Search reads the codes of a whole scan, then a few thousand codes and a
// few hundred vectors at random offsets. With 4 KB pages every one of those
// random reads is a TLB miss, and on a virtual machine (nested paging) a
// miss whose page-table entries were pushed out of the caches, as the
// query embedding's 20 MB of model weights does before every search, costs
// a walk of up to two dozen memory reads. Arrays of 2 MB or more are
// therefore allocated outside the Go heap, in mappings the kernel is asked
// to back with 2 MB pages (transparent huge pages, mem_linux.go): the 200 MB
// of a 100k x 512 index is then about a hundred TLB entries. Measured in
// hybridbench on alternating queries at 105k chunks: hybrid p50 3.43 -> 3.27
// and 3.62 -> 3.25 ms, p99 11.8 -> 8.4 and 12.4 -> 8.1 ms (bench/RESULTS.md).
// Elsewhere, and for smaller arrays, they are ordinary slices.

// hugePage is the page size asked for, and the smallest array given a
// mapping of its own.
const hugePage = 2 << 20

// number is what the index stores.
type number interface{ int64 | uint64 | float32 }

// alloc returns a zeroed slice of length 0 and capacity n, and the block
// that holds it (nil for a Go slice). The block is released with free or,
// failing that, when it becomes unreachable.
func alloc[T number](n int) ([]T, *block) {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size >= hugePage {
		if b := mapBlock(size); b != nil {
			return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b.buf))), n)[:0], b
		}
	}
	return make([]T, 0, n), nil
}

// regrow returns s copied into storage for at least n values (length
// len(s)), releasing the block s was in.
func regrow[T number](s []T, b **block, n int) []T {
	out, nb := alloc[T](n)
	out = append(out, s...)
	(*b).free()
	*b = nb
	return out
}
