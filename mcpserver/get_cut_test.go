package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestGetHardCutNote: memory_get of a line longer than cairn.MaxGetChars
// returns its first MaxGetChars characters and says the line was cut
// (the text used to stop mid-word with no note and no nextFrom); a window
// of whole lines gets the continuation note only.
func TestGetHardCutNote(t *testing.T) {
	f := newFixture(t, fixtureOpts{noSync: true})
	write(t, filepath.Join(f.notes, "wide.md"), strings.Repeat("gizmo ", 3000)+"\nnext line\n")
	ctx := context.Background()
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	out, err := f.agent.Get(ctx, GetIn{Path: "cairn://notes/wide.md"})
	if err != nil {
		t.Fatal(err)
	}
	const note = "\n[line 1 cut at 12000 characters: memory_get reads whole lines, and the rest of this one is past the limit]\n"
	if !out.Truncated || out.NextFrom != 0 || out.Text == nil || !strings.HasSuffix(*out.Text, note) ||
		len([]rune(strings.TrimSuffix(*out.Text, note))) != cairn.MaxGetChars {
		t.Errorf("wide line: truncated %v nextFrom %d, text ends %q; want %d characters and the cut note", out.Truncated, out.NextFrom, tail(*out.Text), cairn.MaxGetChars)
	}
	out, err = f.agent.Get(ctx, GetIn{Path: "cairn://notes/long.md", Lines: ptr(1000)})
	if err != nil || out.Text == nil || strings.Contains(*out.Text, "cut at") || !strings.Contains(*out.Text, "[continues at line") {
		t.Errorf("long.md: %v, text ends %q; want the continuation note and no cut note", err, tail(*out.Text))
	}
}
