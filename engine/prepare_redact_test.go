package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/redact/redacttest"
)

// TestRedactVersionDropsSecretPath: a note whose file name holds a token,
// indexed by a build of redactVersion 6 (before the scan refused such
// names, 04ea4ec), leaves the index at the next sync: the changed
// redaction state reads every file again, and the scan refuses that one.
// Under 6 the unchanged note was skipped and its raw path stayed.
func TestRedactVersionDropsSecretPath(t *testing.T) {
	var secret string
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			secret = s.Secret
		}
	}
	ctx := context.Background()
	notes, dir := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{secret + ".md": "deploy checklist\n", "plain.md": "saffron harvest notes\n"} {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	corpus := cairn.Corpus{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}
	// The index as a redacting build of version 6 left it: the name stored
	// as written, the state "v6". (redact = false stores it so today.)
	indexedBy(t, dir, corpus, "v6")
	eng, err := Open(ctx, Options{Dir: dir, Corpora: []cairn.Corpus{corpus}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	states, err := eng.store.DocStates(ctx, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 {
		t.Errorf("%d documents after the sync, want plain.md alone", len(states))
	}
	for p := range states {
		if strings.Contains(p, secret) {
			t.Errorf("the index still holds %s", p)
		}
	}
}

// indexedBy syncs corpus into dir as a redacting build whose redaction
// state was state left it: what the current rules would redact is stored
// as written (redact = false stores it so today) and the corpus's state is
// set to state.
func indexedBy(t *testing.T, dir string, corpus cairn.Corpus, state string) {
	t.Helper()
	ctx := context.Background()
	raw := corpus
	raw.NoRedact = true
	old, err := Open(ctx, Options{Dir: dir, Corpora: []cairn.Corpus{raw}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := old.store.SetRedactState(ctx, corpus.Name, state); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
