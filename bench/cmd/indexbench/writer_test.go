package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/sqlite"
)

// TestWriterMode: -writer writes every chunk of the folder once (shared
// content once), full-text rows included, and reports the batches.
func TestWriterMode(t *testing.T) {
	dir, index := t.TempDir(), filepath.Join(t.TempDir(), "ix")
	texts := map[string]string{
		"a.md":     "# Alpha\n\nThe walrus sings of the sea.\n\n## More\n\n" + strings.Repeat("Shared words in a paragraph. ", 40) + "\n",
		"b/b.md":   "# Beta\n\nparseConfigFile reads cairn.toml.\n",
		"b/dup.md": "# Beta\n\nparseConfigFile reads cairn.toml.\n", // same content as b.md
		"skip.txt": "not markdown",
	}
	want := 0
	for p, text := range texts {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if p == "a.md" || p == "b/b.md" {
			want += len(chunk.New().Chunk(text))
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-writer", "-dir", dir, "-index", index}, &out); err != nil {
		t.Fatal(err)
	}
	var r WriterResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("decode %q: %v", out.String(), err)
	}
	if r.Chunks != want || r.Batches != 1 {
		t.Fatalf("chunks %d batches %d, want %d chunks in 1 batch", r.Chunks, r.Batches, want)
	}
	db, err := sql.Open("sqlite3", filepath.Join(index, sqlite.IndexFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var chunks, docs, walrus int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM documents),
		(SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'walrus')`).Scan(&chunks, &docs, &walrus); err != nil {
		t.Fatal(err)
	}
	if chunks != want || docs != 3 || walrus != 1 {
		t.Fatalf("index holds %d chunks, %d documents, %d walrus hits; want %d, 3, 1", chunks, docs, walrus, want)
	}
}

// TestLexMode: -lex searches the indexes it is given side by side, each
// query on each, and reports each index's segments and latencies.
func TestLexMode(t *testing.T) {
	dir, index := t.TempDir(), filepath.Join(t.TempDir(), "ix")
	text := "# Walrus\n\nThe walrus sings of the sea and the colony.\n\n## Colony\n\nThe colony of walrus rests on the ice.\n"
	for _, p := range []string{"a.md", "b.md"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(strings.ReplaceAll(text, "Walrus", "Walrus "+p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if err := run(ctx, []string{"-dir", dir, "-index", index, "-noop", "0"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"-lex", "2", "-lexdirs", index + "," + index}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2: %q", len(lines), out.String())
	}
	for _, l := range lines {
		var r LexResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("decode %q: %v", l, err)
		}
		if r.Index != index || r.Segments != 1 || r.Queries+r.Refused == 0 || r.Queries > 0 && r.P50Ms <= 0 {
			t.Fatalf("line %+v: want index %s, 1 segment, timed queries", r, index)
		}
	}
}
