//go:build unix

package ingest

import (
	"errors"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// statGroup stats files of one directory with fstatat on the directory's
// descriptor: the kernel resolves one name per file instead of the whole
// path, which is most of a stat's cost in a deep tree (a no-op re-index of
// 480,000 files is mostly these stats). When the directory cannot be opened
// (it vanished, or lost its permissions since ReadDir) each file falls back
// to the path stat, which reports the error as before.
func statGroup(dir string, ps []pendingFile) {
	fd, err := openDir(dir)
	if err != nil {
		for i := range ps {
			ps[i].info, ps[i].err = ps[i].e.Info()
		}
		return
	}
	defer unix.Close(fd)
	for i := range ps {
		p := &ps[i]
		var st unix.Stat_t
		name := p.e.Name()
		err := fstatat(fd, name, &st)
		if err != nil {
			p.err = &fs.PathError{Op: "lstat", Path: joinPath(dir, name), Err: err}
			continue
		}
		p.info = statInfo{name: name, st: &st}
	}
}

func openDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// fstatat is lstat of name beneath the directory fd (no final symlink
// followed, as DirEntry.Info), retried on EINTR.
func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// statInfo is the fs.FileInfo of one fstatat. Mode tells a regular file
// from the rest (ModeIrregular, also for directories and links: the walk
// only asks IsRegular, having taken those kinds from ReadDir already).
type statInfo struct {
	name string
	st   *unix.Stat_t
}

func (s statInfo) Name() string { return s.name }
func (s statInfo) Size() int64  { return s.st.Size }
func (s statInfo) Mode() fs.FileMode {
	if s.st.Mode&unix.S_IFMT == unix.S_IFREG {
		return fs.FileMode(s.st.Mode & 0o777)
	}
	return fs.ModeIrregular | fs.FileMode(s.st.Mode&0o777)
}
func (s statInfo) ModTime() time.Time {
	sec, nsec := s.st.Mtim.Unix()
	return time.Unix(sec, nsec)
}
func (s statInfo) IsDir() bool { return false }
func (s statInfo) Sys() any    { return s.st }
