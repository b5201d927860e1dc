package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/cairnmemory/cairn"
)

// binarySniffLen is how many leading bytes Read inspects for a NUL byte.
const binarySniffLen = 8000

// ReadError is a file Read could not turn into text. Reason is short and
// stable enough to count and report ("too large: 12.3 MB, limit 10.0 MB",
// "not text: binary content", "unreadable: permission denied"); Err is the
// underlying I/O error, if any.
//
// Drop is set when the path no longer names a valid document of the corpus:
// it leads outside the source root, it is no longer a regular file, or it
// is gone. A caller then removes what it indexed from the path; after any
// other error (permission denied, too large, binary) it may keep it.
type ReadError struct {
	Path   string // File.Rel, or File.Abs when Rel is empty
	Reason string
	Err    error
	Drop   bool
}

func (e *ReadError) Error() string { return "read " + e.Path + ": " + e.Reason }

func (e *ReadError) Unwrap() error { return e.Err }

// Failure returns the error as a sync failure entry.
func (e *ReadError) Failure() cairn.FileFailure {
	return cairn.FileFailure{Path: e.Path, Reason: e.Reason}
}

// Read returns the text of f, or a *ReadError. The file is opened beneath
// its source root and read only if the opened file is a regular file (see
// open.go): a symlink swapped since the scan to point outside the root, a
// named pipe or a device is refused without being read. maxSize <= 0 means
// cairn.DefaultMaxFileSize; a file larger than maxSize (by Scan's size or by
// what is actually read) is refused unread. A NUL byte in the first 8,000
// bytes marks the file binary. A leading UTF-8 byte order mark is dropped.
//
// Text that is not valid UTF-8 is decoded as Windows-1252 as a whole (the
// usual encoding of legacy Markdown and plain text on Windows): bytes
// 0x80-0x9F map through the cp1252 table, its five undefined bytes (0x81,
// 0x8D, 0x8F, 0x90, 0x9D) become U+FFFD, and every other byte is the
// Latin-1 character of the same value. The returned text is always valid
// UTF-8, so chunk offsets and hashes are well defined.
func Read(f File, maxSize int64) (string, error) {
	if maxSize <= 0 {
		maxSize = cairn.DefaultMaxFileSize
	}
	path := f.Rel
	if path == "" {
		path = f.Abs
	}
	if f.Size > maxSize {
		return "", &ReadError{Path: path, Reason: tooLarge(f.Size, maxSize)}
	}
	data, size, err := readLimited(f, path, maxSize)
	var re *ReadError
	if errors.As(err, &re) {
		return "", re
	}
	if err != nil {
		return "", &ReadError{Path: path, Reason: "unreadable: " + errText(err), Err: err}
	}
	if int64(len(data)) > maxSize {
		return "", &ReadError{Path: path, Reason: tooLarge(max(size, int64(len(data))), maxSize)}
	}
	if bytes.IndexByte(data[:min(len(data), binarySniffLen)], 0) >= 0 {
		return "", &ReadError{Path: path, Reason: "not text: binary content"}
	}
	return decodeText(data), nil
}

// readLimited reads at most maxSize+1 bytes of f. It returns the file's
// current size too, for the "too large" message when the file grew since
// the scan.
func readLimited(f File, path string, maxSize int64) ([]byte, int64, error) {
	fh, err := openRegular(f, path)
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	buf := bytes.NewBuffer(make([]byte, 0, min(max(f.Size, 0), maxSize)+1))
	if _, err := buf.ReadFrom(io.LimitReader(fh, maxSize+1)); err != nil {
		return nil, 0, err
	}
	size := int64(buf.Len())
	if size > maxSize {
		if fi, err := fh.Stat(); err == nil {
			size = fi.Size()
		}
	}
	return buf.Bytes(), size, nil
}

func tooLarge(size, limit int64) string {
	return "too large: " + humanSize(size) + ", limit " + humanSize(limit)
}

// humanSize formats n bytes as "12.3 MB" (MB = 2^20 bytes, as in
// cairn.DefaultMaxFileSize), "4.0 KB" or "512 bytes".
func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeText returns data as valid UTF-8: without a leading BOM, and decoded
// from Windows-1252 when it is not UTF-8.
func decodeText(data []byte) string {
	data = bytes.TrimPrefix(data, utf8BOM)
	if utf8.Valid(data) {
		return string(data)
	}
	return decodeCP1252(data)
}

// cp1252High maps bytes 0x80-0x9F; 0xFFFD marks the undefined ones.
var cp1252High = [32]rune{
	0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, // 80-87
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD, // 88-8F
	0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, // 90-97
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178, // 98-9F
}

func decodeCP1252(data []byte) string {
	out := make([]byte, 0, len(data)+len(data)/4)
	for _, b := range data {
		switch {
		case b < 0x80:
			out = append(out, b)
		case b < 0xA0:
			out = utf8.AppendRune(out, cp1252High[b-0x80])
		default:
			out = utf8.AppendRune(out, rune(b))
		}
	}
	return string(out)
}
