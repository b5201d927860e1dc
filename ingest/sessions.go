package ingest

import (
	"bytes"
	"encoding/json"
	"sort"
	"time"

	"github.com/cairnmemory/cairn"
)

// ParseOptions tell a transcript parser about the file it reads.
type ParseOptions struct {
	Path     string         // the file's path: ids, names and sibling files (sub-agent meta)
	Location *time.Location // zone of sources that write local times without one (aider); nil means UTC
	// There is no fallback time: a session or message whose records carry
	// no time has none (the file's mtime is the time of its last copy).
}

func (o ParseOptions) location() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
}

// SourceReader finds and parses the transcripts of one source. Find lists
// the transcript files under root (the tool's own home folder, laid out as
// the tool lays it out), sorted. Parse reads one file's bytes; ParseFile,
// when set, reads a file itself (SQLite stores) and is used instead.
// Parsers are lenient: malformed and unknown records are counted in
// Session.Stats and skipped; an error means the whole file is unusable.
type SourceReader struct {
	ID        string
	Find      func(root string) ([]string, error)
	Parse     func(data []byte, o ParseOptions) ([]cairn.Session, error)
	ParseFile func(path string, o ParseOptions) ([]cairn.Session, error)
}

var readers = map[string]SourceReader{}

// register adds a source reader; each source file calls it from init.
func register(r SourceReader) { readers[r.ID] = r }

// Reader returns the reader of a source id.
func Reader(id string) (SourceReader, bool) {
	r, ok := readers[id]
	return r, ok
}

// ReaderIDs lists the registered source ids, sorted.
func ReaderIDs() []string {
	ids := make([]string, 0, len(readers))
	for id := range readers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// forEachJSONLine calls fn with each complete, non-blank line of data and its
// 1-based number. A last line without a newline that does not parse as JSON
// is a half-written record: it is left for the next read (stats.PartialTail)
// and not counted as an error. stats.ConsumedBytes ends after the last line
// handed to fn. fn errors stop the walk and are returned.
func forEachJSONLine(data []byte, stats *cairn.ParseStats, fn func(n int, line []byte) error) error {
	n := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		last := end < 0
		if last {
			end = len(data)
		} else {
			end += off
		}
		line := bytes.TrimSpace(data[off:end])
		n++
		if last && len(line) > 0 && !json.Valid(line) {
			stats.PartialTail = true
			return nil
		}
		if len(line) > 0 {
			stats.Lines++
			if err := fn(n, line); err != nil {
				return err
			}
		}
		if last {
			off = len(data)
		} else {
			off = end + 1
		}
		stats.ConsumedBytes = int64(off)
	}
	return nil
}
