package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/vector"
)

// TestVectorListsFile: an index at the lists' size (lowered here) is
// written with its lists file; a new engine uses it as it is; a damaged
// lists file is noticed, searches still answer right, and a long-lived
// engine writes it again, while a one-shot one leaves it.
func TestVectorListsFile(t *testing.T) {
	old := listsMin
	listsMin = 1
	t.Cleanup(func() { listsMin = old })
	ctx := context.Background()
	emb := &conceptEmbedder{model: "v1"}
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}, Options{Embedder: emb})
	f.sync()
	top := func(eng *Engine, q string) string {
		t.Helper()
		hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeVector})
		if err != nil || len(hits) == 0 {
			t.Fatalf("search %q: %v, %v", q, hits, err)
		}
		return hits[0].Path
	}
	top(f.eng, "compost soil") // loads the lane
	path := filepath.Join(f.eng.opts.Dir, VectorFile)
	lp := vector.ListsFile(path)
	first, err := os.Stat(lp)
	if err != nil {
		t.Fatalf("no lists file beside %s: %v", VectorFile, err)
	}
	st, err := vector.FileStamp(path)
	if err != nil {
		t.Fatal(err)
	}
	check := func() error {
		t.Helper()
		ix, err := vector.Load(path, st, false)
		if err != nil {
			return err
		}
		return ix.LoadLists(lp, st)
	}
	if err := check(); err != nil {
		t.Fatalf("the lists file does not match %s: %v", VectorFile, err)
	}
	var notes []string
	open := func(oneShot bool) *Engine {
		t.Helper()
		eng, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora, Embedder: emb, OneShot: oneShot,
			Logf: func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close(ctx) })
		return eng
	}
	if got := top(open(false), "LGBTQ meetup"); got != "cairn://notes/a.md" {
		t.Errorf("with the lists file: top hit %s, want a.md", got)
	}
	if now, _ := os.Stat(lp); !now.ModTime().Equal(first.ModTime()) {
		t.Error("a matching lists file was written again")
	}
	b, err := os.ReadFile(lp)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-10] ^= 0x40
	if err := os.WriteFile(lp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := top(open(true), "spending"); got != "cairn://notes/c.md" {
		t.Errorf("one-shot, damaged lists: top hit %s, want c.md", got)
	}
	if again, _ := os.ReadFile(lp); string(again) != string(b) {
		t.Error("a one-shot engine rewrote the lists file")
	}
	notes = nil
	if got := top(open(false), "compost soil"); got != "cairn://notes/b.md" {
		t.Errorf("damaged lists: top hit %s, want b.md", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "rebuilding the vector lists") {
		t.Errorf("notes %q, want one saying the lists are rebuilt", notes)
	}
	if st, err = vector.FileStamp(path); err != nil {
		t.Fatal(err)
	}
	if err := check(); err != nil {
		t.Fatalf("after the rebuild: %v", err)
	}
}
