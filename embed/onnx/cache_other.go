//go:build !unix

package onnx

import (
	"errors"
	"os"
)

// cacheSupported: the runtime reads cached weights in place, which needs
// memory outside Go's heap; without mmap the cache is not used (nor
// written).
const cacheSupported = false

// mapFile is never reached (cacheSupported).
func mapFile(path string) ([]byte, func() error, error) {
	return nil, nil, errors.New("optimized graph cache needs mmap")
}

func statOf(path string) (fileStat, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStat{}, err
	}
	return fileStat{Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano()}, nil
}
