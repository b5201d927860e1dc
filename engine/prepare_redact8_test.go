package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestRedactVersion8Rereads: a note holding a token split by a zero-width
// space (ux U1), indexed as a build of redactVersion 7 stored it (the rule
// did not take it; redact = false stores it so today), is read again and
// redacted by the next sync, though the file did not change: the
// redaction state "v7" is not the current one.
func TestRedactVersion8Rereads(t *testing.T) {
	ctx := context.Background()
	token := "ghp_bSQIbOHb\u200bdslGMlddeS2rOpf8wM0rlWtzkg1J"
	notes, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "deploy.md"), []byte("# Deploy\n\nthe deploy token "+token+" rotates monthly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	corpus := cairn.Corpus{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}
	indexedBy(t, dir, corpus, "v7")
	eng, err := Open(ctx, Options{Dir: dir, Corpora: []cairn.Corpus{corpus}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hits, err := eng.Search(ctx, "deploy token rotates", &cairn.SearchOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("no hit for the note")
	}
	for _, h := range hits {
		if strings.Contains(h.Snippet, "bSQIbOHb") || !strings.Contains(h.Snippet, "[REDACTED:") {
			t.Errorf("hit %s: %q; want the token redacted after the version change", h.Path, h.Snippet)
		}
	}
}
