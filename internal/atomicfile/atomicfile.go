// Package atomicfile writes a file whole or not at all: a temporary file
// beside it (mode 0600), synced, then renamed over it, its folder made 0700
// when missing. The engine's status file and session copies and the
// copies an import writes back use it, so that the same files are never
// written two ways.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes data to path atomically. The errors are the file system's,
// for the caller to name.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := errors.Join(tmp.Chmod(0o600), tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
