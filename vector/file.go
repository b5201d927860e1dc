package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"unsafe"
)

// An index file holds an Index as it sits in memory, so that Load can map
// it instead of rebuilding it: a one-shot process (a CLI search) then
// touches only the codes it scans and the vectors it reranks, where
// reading 100k vectors out of SQLite took 3 to 4 s (measured, see
// bench/RESULTS.md). The file is a cache: whoever writes it also holds the
// vectors elsewhere, and a Stamp mismatch means "rebuild".
//
// Layout, little-endian, every section 8-byte aligned:
//
//	magic "CAIRNVX1" | version u32 | dim u32 | n u64 | stamp i64 | tag [32]byte
//	body crc u32 | zero u32                                                     (72 bytes)
//	keys  n × i64
//	codes n × words × u64
//	vecs  n × dim × f32 (padded to 8 bytes)
//
// The body checksum is CRC-32C (Castagnoli, hardware-assisted on amd64 and
// arm64) of everything after the header. Load verifies it (a one-shot
// load once per file, verified.go): a flipped bit in a vector otherwise
// reaches the rerank as a score like -9.2e14 that ranks first. Measured
// at 100k × 384 (158 MB, page cache warm): see BenchmarkLoadVerify and
// bench/RESULTS.md; the check reads every page, which a long-lived
// process's Settle does anyway, and costs a
// one-shot search tens of milliseconds beside the query embedding.
// Version 1 files had no checksum: Load reports them stale, so they are
// rebuilt.
const (
	fileMagic   = "CAIRNVX1"
	fileVersion = 2
	headerSize  = 72
)

// castagnoli is the CRC-32C table of the body checksum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Stamp identifies the vectors an index file was built from: Tag names the
// vector space (for example a hash of the embedder identity) and Version
// the state of the store that held them.
type Stamp struct {
	Tag     [32]byte
	Version int64
}

// ErrStale is returned by Load when the file was written for another
// stamp, or by another version of this package: rebuild it.
var ErrStale = errors.New("vector index file is stale")

// ErrCorrupt is returned by Load when the file's body does not match its
// checksum (a damaged disk, a stray write): rebuild it from the vectors'
// source. It matches ErrStale too, so callers that rebuild stale files
// rebuild corrupt ones.
var ErrCorrupt = fmt.Errorf("vector index file failed its checksum: %w", ErrStale)

// littleEndian reports whether the machine stores integers as the file
// does; only then can the file be used in place.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Save writes the index to path atomically (a temporary file renamed over
// it), with the stamp Load will check.
func (ix *Index) Save(path string, st Stamp) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save vector index: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	sum := ix.bodySum()
	if err := ix.write(tmp, st, sum); err != nil {
		tmp.Close()
		return fmt.Errorf("save vector index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save vector index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save vector index: %w", err)
	}
	ix.fileSum.Store(uint64(sum) | 1<<32)
	return nil
}

// bodySum is the CRC-32C of the body as write lays it out.
func (ix *Index) bodySum() uint32 {
	var pad []byte
	if len(ix.vecs)%2 == 1 {
		pad = make([]byte, 4)
	}
	if littleEndian {
		sum := crc32.Update(0, castagnoli, bytesOf(ix.keys))
		sum = crc32.Update(sum, castagnoli, bytesOf(ix.codes))
		sum = crc32.Update(sum, castagnoli, bytesOf(ix.vecs))
		return crc32.Update(sum, castagnoli, pad)
	}
	h := crc32.New(castagnoli)
	binary.Write(h, binary.LittleEndian, ix.keys)
	binary.Write(h, binary.LittleEndian, ix.codes)
	binary.Write(h, binary.LittleEndian, ix.vecs)
	h.Write(pad)
	return h.Sum32()
}

func (ix *Index) write(w io.Writer, st Stamp, sum uint32) error {
	var h [headerSize]byte
	copy(h[0:8], fileMagic)
	binary.LittleEndian.PutUint32(h[8:], fileVersion)
	binary.LittleEndian.PutUint32(h[12:], uint32(ix.dim))
	binary.LittleEndian.PutUint64(h[16:], uint64(len(ix.keys)))
	binary.LittleEndian.PutUint64(h[24:], uint64(st.Version))
	copy(h[32:64], st.Tag[:])
	binary.LittleEndian.PutUint32(h[64:], sum)
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, ix.keys); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, ix.codes); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, ix.vecs); err != nil {
		return err
	}
	if len(ix.vecs)%2 == 1 {
		_, err := w.Write(make([]byte, 4))
		return err
	}
	return nil
}

// FileStamp reads the stamp an index file was saved with, for tools that
// open a file whatever it belongs to (benchmarks); a process serving
// searches should pass the stamp it expects to Load instead.
func FileStamp(path string) (Stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stamp{}, err
	}
	defer f.Close()
	var h [headerSize]byte
	if _, err := io.ReadFull(f, h[:64]); err != nil || string(h[0:8]) != fileMagic {
		return Stamp{}, fmt.Errorf("read vector index stamp %s: %w", path, ErrStale)
	}
	st := Stamp{Version: int64(binary.LittleEndian.Uint64(h[24:]))}
	copy(st.Tag[:], h[32:64])
	return st, nil
}

// Load opens an index file written by Save. On Unix systems the file is
// mapped read-only and used in place until the first Add or Remove, or
// Settle, copies it into memory; elsewhere it is read. populate maps every
// page at once (for a long-lived process that will touch them all; a
// one-shot search touches few). It returns ErrStale when the file's stamp
// is not want, and ErrCorrupt when its body fails the checksum. A load
// that does not populate skips the body checksum when an earlier full
// check recorded this very file (verified.go); Verify always checks.
func Load(path string, want Stamp, populate bool) (*Index, error) {
	return load(path, want, populate, populate)
}

// Verify checks the file at path as Load does, the body checksum always
// included, and records a passing check for later one-shot loads.
func Verify(path string, want Stamp) error {
	_, err := load(path, want, false, true)
	return err
}

func load(path string, want Stamp, populate, full bool) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var h [headerSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil, fmt.Errorf("load vector index %s: %w", path, ErrStale)
	}
	dim := int(binary.LittleEndian.Uint32(h[12:]))
	n := binary.LittleEndian.Uint64(h[16:])
	got := Stamp{Version: int64(binary.LittleEndian.Uint64(h[24:]))}
	copy(got.Tag[:], h[32:64])
	if string(h[0:8]) != fileMagic || binary.LittleEndian.Uint32(h[8:]) != fileVersion || got != want ||
		dim < 1 || dim > MaxDim || !littleEndian {
		return nil, fmt.Errorf("load vector index %s: %w", path, ErrStale)
	}
	ix := New(dim)
	words := ix.words
	size := headerSize + 8*n + 8*n*uint64(words) + 4*n*uint64(dim)
	size += size % 8
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load vector index %s: %w", path, err)
	}
	if uint64(fi.Size()) != size || n > 1<<31-1 {
		return nil, fmt.Errorf("load vector index %s: size %d, want %d: %w", path, fi.Size(), size, ErrStale)
	}
	data, mapped, err := mapFile(f, int(size), populate)
	if err != nil {
		return nil, fmt.Errorf("load vector index %s: %w", path, err)
	}
	var m *mapping
	if mapped {
		m = newMapping(data) // a failed check below leaves it to the finalizer
	}
	if full || !wasVerified(path, h[:], fi) {
		if !bodyIntact(data[headerSize:], binary.LittleEndian.Uint32(h[64:])) {
			return nil, fmt.Errorf("load vector index %s: %w", path, ErrCorrupt)
		}
		recordVerified(path, h[:], fi)
	}
	body := data[headerSize:]
	keysLen, codesLen := int(n), int(n)*words
	ix.keys = unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(body))), keysLen)
	body = body[8*keysLen:]
	ix.codes = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(body))), codesLen)
	body = body[8*codesLen:]
	ix.vecs = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(body))), int(n)*dim)
	ix.slots = nil // built on the first Add or Remove
	ix.mapping = m
	ix.fileSum.Store(uint64(binary.LittleEndian.Uint32(h[64:])) | 1<<32)
	return ix, nil
}

// bodyIntact checks the body against its checksum. A file cut short
// under the mapping faults where it is read: that is a damaged file too.
func bodyIntact(body []byte, want uint32) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			ok = false
		}
	}()
	return crc32.Checksum(body, castagnoli) == want
}

// Settle moves an index Load mapped from its file into memory of its own,
// backed by huge pages where the system has them (mem.go), while searches
// go on from the mapping; it does nothing for an index that is not mapped.
// A long-lived process calls it after Load, in the background (the engine
// does): copying 220 MB took 60 to 500 ms here, most of it the kernel
// finding free 2 MB pages, where mapping the file takes 30 to 50 ms.
//
// It copies in pieces of settlePiece bytes, each under the read lock: a
// writer waiting for the lock (which stops new searches until it has had
// it) waits for one piece, not the whole copy. The mapping never changes,
// so the pieces add up to a consistent copy unless a change in between
// copied the mapping first (own); Settle then drops its copy.
func (ix *Index) Settle() {
	ix.mu.RLock()
	m := ix.mapping
	n := len(ix.keys)
	ix.mu.RUnlock()
	if m == nil {
		return
	}
	c := n + max(64, n/4) // room to grow: address space only, until used
	keys, kb := alloc[int64](c)
	codes, cb := alloc[uint64](c * ix.words)
	vecs, vb := alloc[float32](c * ix.dim)
	drop := func() {
		kb.free()
		cb.free()
		vb.free()
	}
	// A file cut short under the mapping (by someone else: Save renames a
	// new file into place, and the engine's tests damage one in place)
	// faults where it is read. Settle reads every page, so it turns the
	// fault into a panic, gives up the copy, and leaves the index mapped.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			drop()
		}
	}()
	// piece copies the next piece of src into dst at done; false when the
	// mapping was replaced meanwhile.
	piece := func(dst []byte, src func() []byte, done int) (int, bool) {
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		if ix.mapping != m {
			return 0, false
		}
		return copy(dst[done:min(len(dst), done+settlePiece)], src()[done:]), true
	}
	copyIn := func(dst []byte, src func() []byte) bool {
		for done := 0; done < len(dst); {
			n, ok := piece(dst, src, done)
			if !ok {
				return false
			}
			done += n
		}
		return true
	}
	keys, codes, vecs = keys[:n], codes[:n*ix.words], vecs[:n*ix.dim]
	if !copyIn(bytesOf(keys), func() []byte { return bytesOf(ix.keys) }) ||
		!copyIn(bytesOf(codes), func() []byte { return bytesOf(ix.codes) }) ||
		!copyIn(bytesOf(vecs), func() []byte { return bytesOf(ix.vecs) }) {
		drop()
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.mapping != m {
		drop()
		return
	}
	ix.keys, ix.codes, ix.vecs = keys, codes, vecs
	ix.keysMem, ix.codesMem, ix.vecsMem = kb, cb, vb
	ix.mapping = nil
}

// settlePiece is how many bytes Settle copies under one read lock: about a
// millisecond of copying.
const settlePiece = 4 << 20

// bytesOf returns the memory of s as bytes.
func bytesOf[T number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// own makes the index's storage its own before a change: a mapped file is
// copied into memory (the mapping is released when nothing refers to it
// any more), and the key-to-slot map is built. The caller holds the write
// lock.
func (ix *Index) own() {
	if ix.mapping != nil {
		n := len(ix.keys)
		ix.reserve(n + max(64, n/4))
		ix.mapping = nil
	}
	if ix.slots == nil {
		ix.slots = make(map[int64]int32, len(ix.keys))
		for i, k := range ix.keys {
			ix.slots[k] = int32(i)
		}
	}
}
