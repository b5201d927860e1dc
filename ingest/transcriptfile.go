package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Opening transcript files (issue 13 item 4). A transcript is read only
// when it is a regular file reached inside its source root:
//
//   - The root itself may be a symbolic link (a tool home kept in a dotfiles
//     checkout); it is resolved once when opened.
//   - Inside the root, symbolic links are followed only while they stay
//     inside the root (os.Root): a link to /dev/zero, /etc/shadow or another
//     user's folder is refused.
//   - The file is opened non-blocking, so a FIFO cannot hang the sync, and
//     the opened descriptor (not the path) is checked: a FIFO, socket or
//     device is refused even if it replaced a regular file after the scan.
//
// A refused file is reported as a failure of that transcript with the
// reason, and the sync goes on with the others.

// ErrNotRegular is the error of a transcript that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// OpenTranscript opens path, a file under root, for reading under the rules
// above. It returns the open file and its descriptor's info.
func OpenTranscript(root, path string) (*os.File, fs.FileInfo, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, nil, fmt.Errorf("open transcript: %s is outside its source root %s", path, root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, fmt.Errorf("open source root: %w", err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|transcriptOpenFlags, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open transcript: %w", explainOpen(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("open transcript: %w (%s)", ErrNotRegular, kindOf(fi.Mode()))
	}
	return f, fi, nil
}

// explainOpen names the common refusals of os.Root in words.
func explainOpen(err error) error {
	// os.Root reports an escape with an unexported error ("path escapes
	// from parent"); the kernel's own refusals are EXDEV and ELOOP.
	if errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "path escapes") {
		return fmt.Errorf("symbolic link leads outside the source root: %w", err)
	}
	return err
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// maxSiblingBytes bounds the small metadata files read beside transcripts
// (a sub-agent's meta.json, OpenClaw's sessions.json, Gemini's project
// files).
const maxSiblingBytes = 16 << 20

// readSibling reads a small metadata file next to a transcript: a regular
// file opened without following a final symbolic link and without blocking,
// at most maxSiblingBytes. Anything else is an error, which the callers
// treat as a missing file.
func readSibling(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|siblingOpenFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w", path, ErrNotRegular)
	}
	if fi.Size() > maxSiblingBytes {
		return nil, fmt.Errorf("read %s: over %d bytes", path, maxSiblingBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSiblingBytes+1))
	if err == nil && len(data) > maxSiblingBytes {
		err = fmt.Errorf("read %s: over %d bytes", path, maxSiblingBytes)
	}
	return data, err
}
