package main

import (
	"context"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// openEngine opens the engine the way this tree does.
func openEngine(ctx context.Context, dir string, corpora []cairn.Corpus) (*engine.Engine, error) {
	return local.Open(ctx, engine.Options{Dir: dir, Corpora: corpora})
}
