//go:build unix

package sqlite

import "golang.org/x/sys/unix"

// writableDir reports whether this process may create files in dir (its
// effective user; root may anywhere but on a read-only mount).
func writableDir(dir string) bool {
	return unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK, unix.AT_EACCESS) == nil
}

// writableFile reports whether this process may write the file at path.
func writableFile(path string) bool {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS) == nil
}
