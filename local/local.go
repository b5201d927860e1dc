// Package local opens Cairn's engine as it runs on one machine: over the
// embedded SQLite storage (sqlite.Backend) with every session reader, the
// OpenClaw store reader (cgo) included. cmd/cairn, eval, the benchmarks and
// the tests of other packages open engines through it; package engine
// itself names no storage package and links no SQLite driver.
//
//	eng, err := local.Open(ctx, engine.Options{Dir: dir, Corpora: corpora})
package local

import (
	"context"

	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/ingest"
	"github.com/cairnmemory/cairn/ingest/cursordb"
	"github.com/cairnmemory/cairn/ingest/openclawdb"
	"github.com/cairnmemory/cairn/sqlite"
)

// Fill sets what o leaves out: the SQLite backend, and the OpenClaw store
// reader as the session readers. Values already set stay.
func Fill(o engine.Options) engine.Options {
	if o.Backend == nil {
		o.Backend = sqlite.Backend{}
	}
	if o.SessionReaders == nil {
		o.SessionReaders = []ingest.SourceReader{openclawdb.Reader(), cursordb.Reader()}
	}
	return o
}

// Open opens an engine with Fill(o).
func Open(ctx context.Context, o engine.Options) (*engine.Engine, error) {
	return engine.Open(ctx, Fill(o))
}
