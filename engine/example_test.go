package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/sqlite"
)

func Example() {
	ctx := context.Background()
	notes, _ := os.MkdirTemp("", "notes")
	data, _ := os.MkdirTemp("", "cairn")
	defer os.RemoveAll(notes)
	defer os.RemoveAll(data)
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n"), 0o644)

	eng, err := engine.Open(ctx, engine.Options{
		Dir:     data,
		Backend: sqlite.Backend{}, // the embedded index; local.Open fills it in
		Corpora: []cairn.Corpus{{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		log.Fatal(err)
	}
	hits, err := eng.Search(ctx, "busy timeout", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s:%d-%d\n", h.Path, h.StartLine, h.EndLine)
	}
	doc, err := eng.Get(ctx, hits[0].Path, &cairn.GetOptions{From: 3, Lines: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(doc.Text)
	// Output:
	// cairn://notes/db.md:1-3
	// Set busy_timeout to 5000 ms.
}
