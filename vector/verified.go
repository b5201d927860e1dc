package vector

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"time"
)

// A one-shot process (a CLI search) used to pay the body checksum on every
// Load: reading and summing 221 MB at 105k × 512 took 170 to 560 ms of a
// search that otherwise touches a few megabytes (bench/RESULTS.md,
// "Checksum once per file"). So a full check that passes leaves a record
// beside the file, PATH.verified, naming what it checked: the header (stamp
// and body checksum included) and the file's device, inode, size and
// modification time. A later Load that is not populating (a one-shot
// process) and finds the record matching the file as it is now skips the
// body check; any other Load, and Verify (cairn doctor), checks in full.
//
// Why that is still safe: every write to the file through the file system
// moves its modification time, and Save replaces the file (a new inode),
// so a record can only vouch for the bytes it saw. A file modified less
// than recordAfter before the check is not recorded, since a coarse clock
// could give a write right after the check the same time. What a record
// does not cover is the medium changing bytes under an unchanged inode;
// SQLite's own pages (which hold the same vectors) have no checksum
// against that either, and the long-lived processes that serve most
// searches (serve, mcp, sync) still check every Load in full.
const (
	verifiedSuffix = ".verified"
	verifiedMagic  = "CAIRNVOK"
	recordAfter    = 2 * time.Second
)

// verifiedRecord is what PATH.verified holds for a file with header h and
// info fi; ok is false where the system gives no file identity.
func verifiedRecord(h []byte, fi os.FileInfo) ([]byte, bool) {
	dev, ino, ok := fileID(fi)
	if !ok {
		return nil, false
	}
	rec := append([]byte(verifiedMagic), h...)
	rec = binary.LittleEndian.AppendUint64(rec, dev)
	rec = binary.LittleEndian.AppendUint64(rec, ino)
	rec = binary.LittleEndian.AppendUint64(rec, uint64(fi.Size()))
	return binary.LittleEndian.AppendUint64(rec, uint64(fi.ModTime().UnixNano())), true
}

// wasVerified reports whether path's record vouches for the file as it is.
func wasVerified(path string, h []byte, fi os.FileInfo) bool {
	want, ok := verifiedRecord(h, fi)
	if !ok {
		return false
	}
	got, err := os.ReadFile(path + verifiedSuffix)
	return err == nil && bytes.Equal(got, want)
}

// recordVerified writes path's record after a full check passed, unless
// the file changed too recently to be told apart by its time. It is a
// cache: a failure to write it (a read-only directory) costs the next
// one-shot load a full check, nothing else, so it is not reported.
func recordVerified(path string, h []byte, fi os.FileInfo) {
	rec, ok := verifiedRecord(h, fi)
	if !ok || time.Since(fi.ModTime()) < recordAfter {
		return
	}
	// The temporary name is Save's, so a crashed write is swept with its
	// stale temporary files.
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name()) // after the rename this finds nothing
	_, err = tmp.Write(rec)
	if cerr := tmp.Close(); err != nil || cerr != nil {
		return
	}
	os.Rename(tmp.Name(), path+verifiedSuffix)
}
