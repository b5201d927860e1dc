//go:build linux

package ingest

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// listDir opens dir and lists its entries with getdents64, parsed here:
// the names of one directory are substrings of one string copied from the
// kernel's records, and each entry's type comes from d_type, so a directory
// costs two allocations instead of two a file (os.ReadDir's DirEntry and
// name). At 480,000 files the DirEntry values were a tenth of a no-op
// sync's CPU. The directory stays open: the stat workers resolve its files
// on the returned descriptor (release closes it). An entry of unknown type
// (a file system without d_type) is typed by an lstat on the descriptor,
// and one that vanished meanwhile is left out, as os.ReadDir does. On a
// failure while listing it returns what it read along with the error.
// buf is the walk's buffer for the kernel's records.
func listDir(dir string, buf []byte) (*dirRef, []dirEntry, error) {
	fd, err := openDir(dir)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	d := newDirRef(dir, fd)
	var entries []dirEntry
	for {
		n, err := getdents(fd, buf)
		if err != nil {
			return d, entries, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return d, entries, nil
		}
		entries = appendDirents(fd, string(buf[:n]), entries)
	}
}

func getdents(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Getdents(fd, buf)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// direntName is the offset of d_name in a linux_dirent64 record (after
// d_ino, d_off, d_reclen and d_type).
const direntName = int(unsafe.Offsetof(unix.Dirent{}.Name))

// appendDirents parses the linux_dirent64 records in recs, skipping "."
// and "..". Names are substrings of recs.
func appendDirents(fd int, recs string, out []dirEntry) []dirEntry {
	n := 0 // records, so out grows once
	for r := recs; len(r) >= direntName; n++ {
		reclen := int(binary.NativeEndian.Uint16([]byte(r[16:18])))
		if reclen < direntName || reclen > len(r) {
			break
		}
		r = r[reclen:]
	}
	out = slices.Grow(out, n)
	for len(recs) >= direntName {
		reclen := int(binary.NativeEndian.Uint16([]byte(recs[16:18])))
		if reclen < direntName || reclen > len(recs) {
			break // a cut record: the kernel never returns one
		}
		typ, name := recs[18], recs[direntName:reclen]
		recs = recs[reclen:]
		for i := 0; i < len(name); i++ {
			if name[i] == 0 {
				name = name[:i]
				break
			}
		}
		if name == "" || name == "." || name == ".." {
			continue
		}
		mode, ok := direntMode(fd, name, typ)
		if ok {
			out = append(out, dirEntry{name: name, typ: mode})
		}
	}
	return out
}

// direntMode is the type bits of a d_type, or of an lstat when the file
// system left it unknown (false when the file vanished).
func direntMode(fd int, name string, typ byte) (fs.FileMode, bool) {
	switch typ {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	var st unix.Stat_t
	if err := fstatat(fd, name, &st); err != nil {
		return 0, false
	}
	return statMode(st.Mode), true
}

// statMode is the type bits of a stat's st_mode.
func statMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return 0
}
