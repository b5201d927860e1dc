package local_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// TestOpen syncs and searches a note through the SQLite backend, and shows
// that the engine alone, without a backend, refuses to open.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Walrus\n\nThe walrus sleeps on ice.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Dir: t.TempDir(), Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: "**/*.md"}}}
	if _, err := engine.Open(ctx, opts); err == nil || !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("engine.Open without a backend: %v, want an error matching ErrInvalid", err)
	}
	eng, err := local.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Search(ctx, "walrus", nil)
	if err != nil || len(hits) != 1 || hits[0].Path != "cairn://notes/a.md" {
		t.Fatalf("search walrus: %+v, %v", hits, err)
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, engine.DBFile)); err != nil {
		t.Fatalf("no SQLite index in the data dir: %v", err)
	}
}
