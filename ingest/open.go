package ingest

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Why Read opens files this way: Scan checks a symlink's target, but a link
// can be swapped between the scan and the read. Read therefore opens the
// file through an os.Root on the source root, which refuses, without a race,
// any path or link that leaves the root, and then checks the opened
// descriptor: only a regular file is read. Opening is non-blocking, so a
// named pipe swapped in after the scan returns at once (and is refused by
// the descriptor check) instead of waiting for a writer.
//
// Hard links are a different matter: a hard link is a directory entry like
// any other, indistinguishable from the file's original name, so a hard link
// placed in a corpus to a file elsewhere is read like the corpus's own files.
// Cairn accepts it: making one takes write access to the corpus folder and
// (with Linux's default fs.protected_hardlinks) read access to the file,
// and such a user could as well copy the file into the folder.

// ReasonNotRegular starts the reason of a path that is no longer a regular
// file ("not a regular file: named pipe").
const ReasonNotRegular = "not a regular file"

// maxLinkHops bounds how many absolute symlinks openBeneath follows.
const maxLinkHops = 8

// errOutside is an open refused because the path leads out of the root.
var errOutside = errors.New(ReasonSymlinkOutside)

// openRegular opens the file f names and returns it only when it is a
// regular file beneath f's source root. Errors that mean the document is
// no longer valid (outside the root, not a regular file, gone) come back
// as a *ReadError with Drop set; others are returned as they are.
func openRegular(f File, path string) (*os.File, error) {
	dir, name := f.Source.Root, f.InRoot
	if dir == "" || name == "" {
		dir, name = filepath.Dir(f.Abs), filepath.Base(f.Abs)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err // the root itself: transient (an unmounted disk)
	}
	defer root.Close() // the opened file outlives the root's descriptor
	fh, err := openBeneath(root, dir, name)
	switch {
	case errors.Is(err, errOutside):
		return nil, &ReadError{Path: path, Reason: ReasonSymlinkOutside, Drop: true}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ELOOP):
		// Gone, or a path that no longer leads to a file.
		return nil, &ReadError{Path: path, Reason: "unreadable: " + errText(err), Err: err, Drop: true}
	case err != nil:
		return nil, err
	}
	info, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		fh.Close()
		return nil, &ReadError{Path: path, Reason: ReasonNotRegular + ": " + fileKind(info.Mode()), Drop: true}
	}
	return fh, nil
}

// openBeneath opens name inside root. os.Root follows relative symlinks
// that stay inside and refuses absolute ones and relative ones that climb
// above the root on the way; such a symlink whose target lies inside the
// root (as Scan accepts) is followed here by turning
// its target into a root-relative name and opening that through the root
// again, so whatever is opened is still beneath the root, however the
// links change meanwhile.
func openBeneath(root *os.Root, rootPath, name string) (*os.File, error) {
	var rootReal string
	for hop := 0; ; hop++ {
		fh, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err == nil || !escaped(err) {
			return fh, err
		}
		target, lerr := root.Readlink(name)
		if lerr != nil || hop == maxLinkHops {
			return nil, errOutside
		}
		if !filepath.IsAbs(target) {
			// A relative link that climbs above the root before coming
			// back into it ("../notes/a.md" in notes/): os.Root refuses
			// the climb, Scan accepts the target. Name it from the root.
			target = filepath.Join(rootPath, filepath.Dir(filepath.FromSlash(name)), target)
		}
		if rootReal == "" {
			if rootReal, lerr = filepath.EvalSymlinks(rootPath); lerr != nil {
				rootReal = rootPath
			}
		}
		next, ok := relBeneath(filepath.Clean(target), rootPath, rootReal)
		if !ok {
			// A target reached through another symlinked path, as Scan's
			// EvalSymlinks accepts it. Resolving it races, but only to
			// find a name: that name is opened beneath the root again.
			if resolved, rerr := filepath.EvalSymlinks(target); rerr == nil {
				next, ok = relBeneath(resolved, rootReal)
			}
		}
		if !ok {
			return nil, errOutside
		}
		name = next
	}
}

// escaped reports whether an os.Root error is a refusal to leave the root
// rather than a system call's error (os.Root reports an escape with an
// error of its own, not an errno).
func escaped(err error) bool {
	var errno syscall.Errno
	return !errors.As(err, &errno)
}

// relBeneath returns target (absolute, clean) relative to the first of
// roots it lies under, slash-separated.
func relBeneath(target string, roots ...string) (string, bool) {
	for _, r := range roots {
		if target != r && within(r, target) {
			rel := strings.TrimPrefix(target[len(r):], string(filepath.Separator))
			return path.Clean(filepath.ToSlash(rel)), true
		}
	}
	return "", false
}

// fileKind names a non-regular file type for a failure reason.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}
