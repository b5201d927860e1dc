//go:build unix

package ingest

import (
	"errors"
	"io/fs"

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
		statByPath(dir, ps)
		return
	}
	defer unix.Close(fd)
	statAt(fd, dir, ps)
}

// statRun stats a run of files of d: on the descriptor the listing kept
// open (Linux), else as statGroup.
func statRun(d *dirRef, ps []pendingFile) {
	if d.fd < 0 {
		statGroup(d.path, ps)
		return
	}
	statAt(d.fd, d.path, ps)
}

func closeDir(fd int) { unix.Close(fd) }

// statAt stats files of dir with fstatat on its descriptor fd.
func statAt(fd int, dir string, ps []pendingFile) {
	for i := range ps {
		p := &ps[i]
		if p.symlink {
			continue
		}
		var st unix.Stat_t
		name := p.name
		if err := fstatat(fd, name, &st); err != nil {
			p.err = &fs.PathError{Op: "lstat", Path: joinPath(dir, name), Err: err}
			continue
		}
		sec, nsec := st.Mtim.Unix()
		p.size, p.mtime = st.Size, sec*1e9+nsec
		p.regular = st.Mode&unix.S_IFMT == unix.S_IFREG
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
