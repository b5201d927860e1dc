package engine

import (
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/ingest/cursordb"
	"github.com/cairnmemory/cairn/ingest/openclawdb"
	"github.com/cairnmemory/cairn/sqlite"
)

// The tests of this package open engines over the SQLite backend with the
// SQLite store readers (OpenClaw, Cursor), as local.Fill does for
// cmd/cairn, without naming them in every Options.
func init() {
	testDefaults = func(o *Options) {
		if o.Backend == nil {
			o.Backend = sqlite.Backend{}
		}
		if o.SessionReaders == nil {
			o.SessionReaders = []ingest.SourceReader{openclawdb.Reader(), cursordb.Reader()}
		}
	}
}
