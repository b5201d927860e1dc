//go:build unix

package onnx

import (
	"fmt"
	"os"
	"syscall"
)

// cacheSupported: Options.CacheDir is used (mapFile can map).
const cacheSupported = true

// mapFile maps the file read-only; unmap releases the mapping.
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() < cacheAlign || fi.Size() != int64(int(fi.Size())) {
		return nil, nil, fmt.Errorf("%w: %s: %d bytes", errCacheDamaged, path, fi.Size())
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}

func statOf(path string) (fileStat, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStat{}, err
	}
	st := fileStat{Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.Dev, st.Ino = int64(sys.Dev), int64(sys.Ino)
	}
	return st, nil
}
