package vector

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"os"
	"path/filepath"
	"slices"
)

// The lists file holds an index's coarse lists (lists.go) beside its index
// file, so a new process does not run k-means again. It belongs to one
// index file: it records that file's stamp, item count and body checksum,
// and LoadLists refuses it for any other (ErrStale), since the lists name
// slot ranges and only that file has its items in that order. Its own body
// has a CRC-32C; a damaged file is ErrCorrupt. The engine rebuilds the
// lists in both cases, so a bad lists file costs a rebuild, never results:
// and whatever lists an index holds, Search's scores stay exact, only
// which items compete depends on them.
//
// Layout, little-endian:
//
//	magic "CAIRNVL1" | version u32 | dim u32 | nlist u32 | zero u32
//	n u64 | trained u64 | stamp version i64 | tag [32]byte
//	index body crc u32 | lists body crc u32                      (88 bytes)
//	centroids nlist × dim × f32 | starts (nlist+1) × i32
const (
	listsMagic      = "CAIRNVL1"
	listsVersion    = 1
	listsHeaderSize = 88
)

// ListsFile returns the lists file of the index file at path.
func ListsFile(path string) string { return path + ".lists" }

// SaveLists writes the index's lists to path atomically, bound to the
// index file the index was last saved to or loaded from, with stamp st.
func (ix *Index) SaveLists(path string, st Stamp) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	l := ix.lists
	sum, ok := ix.savedSum()
	switch {
	case l == nil || l.broken:
		return fmt.Errorf("save vector lists: the index has no usable lists")
	case !ok:
		return fmt.Errorf("save vector lists: the index changed since its file was saved")
	}
	body := listsBody(l)
	h := make([]byte, listsHeaderSize)
	copy(h[0:8], listsMagic)
	binary.LittleEndian.PutUint32(h[8:], listsVersion)
	binary.LittleEndian.PutUint32(h[12:], uint32(ix.dim))
	binary.LittleEndian.PutUint32(h[16:], uint32(l.nlist))
	binary.LittleEndian.PutUint64(h[24:], uint64(len(ix.keys)))
	binary.LittleEndian.PutUint64(h[32:], uint64(l.trained))
	binary.LittleEndian.PutUint64(h[40:], uint64(st.Version))
	copy(h[48:80], st.Tag[:])
	binary.LittleEndian.PutUint32(h[80:], sum)
	binary.LittleEndian.PutUint32(h[84:], crc32.Checksum(body, castagnoli))
	return writeAtomic(path, append(h, body...))
}

// listsBody lays out the centroids and starts.
func listsBody(l *lists) []byte {
	b := make([]byte, 0, 4*len(l.centroids)+4*len(l.start))
	for _, x := range l.centroids {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	for _, x := range l.start {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

// writeAtomic writes data to path through a temporary file renamed over it.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save vector lists: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save vector lists: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save vector lists: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save vector lists: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save vector lists: %w", err)
	}
	return nil
}

// storedLists is a lists file read and checked against its own checksum.
type storedLists struct {
	dim, n  int
	indexCk uint32
	stamp   Stamp
	lists   lists
}

// readLists reads and checks the lists file at path.
func readLists(path string) (*storedLists, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < listsHeaderSize || string(data[0:8]) != listsMagic ||
		binary.LittleEndian.Uint32(data[8:]) != listsVersion {
		return nil, fmt.Errorf("load vector lists %s: %w", path, ErrStale)
	}
	h, body := data[:listsHeaderSize], data[listsHeaderSize:]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(h[84:]) {
		return nil, fmt.Errorf("load vector lists %s: %w", path, ErrCorrupt)
	}
	sl := &storedLists{
		dim:     int(binary.LittleEndian.Uint32(h[12:])),
		n:       int(binary.LittleEndian.Uint64(h[24:])),
		indexCk: binary.LittleEndian.Uint32(h[80:]),
	}
	nlist := int(binary.LittleEndian.Uint32(h[16:]))
	sl.stamp.Version = int64(binary.LittleEndian.Uint64(h[40:]))
	copy(sl.stamp.Tag[:], h[48:80])
	if sl.dim < 1 || sl.dim > MaxDim || nlist < 1 || len(body) != 4*nlist*sl.dim+4*(nlist+1) {
		return nil, fmt.Errorf("load vector lists %s: sizes do not match: %w", path, ErrCorrupt)
	}
	l := &sl.lists
	l.nlist, l.trained = nlist, int(binary.LittleEndian.Uint64(h[32:]))
	l.centroids = make([]float32, nlist*sl.dim)
	for i := range l.centroids {
		l.centroids[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
	}
	body = body[4*len(l.centroids):]
	l.start = make([]int32, nlist+1)
	for i := range l.start {
		l.start[i] = int32(binary.LittleEndian.Uint32(body[4*i:]))
	}
	// Starts run from 0 up to at most n: anything else is damage the
	// checksum could not see (a file written wrong), refused all the same.
	if l.start[0] != 0 || !slices.IsSorted(l.start) || int(l.start[nlist]) > sl.n || sl.n < 0 {
		return nil, fmt.Errorf("load vector lists %s: list bounds out of order: %w", path, ErrCorrupt)
	}
	return sl, nil
}

// LoadLists gives the index the lists saved at path for it. It returns
// ErrStale when the file belongs to another index file (stamp, count or
// the index file's checksum differ) and ErrCorrupt when it is damaged;
// the index is unchanged then. An index changed since its Load or Save
// has no file to match: ErrStale.
func (ix *Index) LoadLists(path string, st Stamp) error {
	sl, err := readLists(path)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	sum, ok := ix.savedSum()
	if !ok || sl.stamp != st || sl.dim != ix.dim || sl.n != len(ix.keys) || sl.indexCk != sum {
		return fmt.Errorf("load vector lists %s: %w", path, ErrStale)
	}
	l := sl.lists
	ix.lists = &l
	return nil
}

// ReadCentroids returns the centroids of the lists file at path and how
// many items they were trained on, when the file is intact and of the
// vector space tag of dimension dim, whatever index file it belonged to:
// a rebuild of a changed index assigns its items to them instead of
// training again (ListOptions.Centroids, NeedsRetrain).
func ReadCentroids(path string, tag [32]byte, dim int) ([]float32, int, error) {
	sl, err := readLists(path)
	if err != nil {
		return nil, 0, err
	}
	if sl.stamp.Tag != tag || sl.dim != dim {
		return nil, 0, fmt.Errorf("read vector centroids %s: %w", path, ErrStale)
	}
	return sl.lists.centroids, sl.lists.trained, nil
}
