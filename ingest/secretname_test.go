package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// TestScanSecretName: a file whose name or folder holds a secret is not
// listed in a corpus that redacts; its failure names the kind under the
// redacted path and never the value (ux F23). With redact = false it is
// listed as written.
func TestScanSecretName(t *testing.T) {
	dir := t.TempDir()
	token := "ghp_" + strings.Repeat("A1b2", 9)
	mkfiles(t, dir, "notes/plain.md", "notes/"+token+".md", "notes/AKIAQWERTYUIOPASDFGH/keys.md", "notes/password-policy.md")
	c := cairn.Corpus{Name: "notes", Kind: cairn.KindFiles, Paths: []string{filepath.Join(dir, "notes")}}
	files, failures, err := Scan(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"password-policy.md", "plain.md"}, rels(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := []cairn.FileFailure{
		{Path: "[REDACTED:aws-access-key-id]/keys.md", Reason: ReasonSecretName + " (aws-access-key-id): not indexed; rename the file"},
		{Path: "[REDACTED:github-token].md", Reason: ReasonSecretName + " (github-token): not indexed; rename the file"},
	}
	if diff := cmp.Diff(want, failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	for _, f := range failures {
		if !DropsDocument(f) {
			t.Errorf("%s keeps what was indexed from the path", f.Path)
		}
	}
	c.NoRedact = true
	files, failures, err = Scan(context.Background(), c)
	if err != nil || len(files) != 4 || len(failures) != 0 {
		t.Errorf("redact = false: %q, %v, %v; want all 4 files listed", rels(files), failures, err)
	}
}

// TestScanNameNotUTF8: a file whose name is not valid UTF-8 is not listed;
// its failure shows the bytes as \xNN (ux U10: search found it, but its
// path in JSON was U+FFFD and get could not read it by either form).
func TestScanNameNotUTF8(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "notes/ok.md", "notes/bad\xff\xfe.md", "notes/évité.md")
	files, failures, err := Scan(context.Background(), cairn.Corpus{Name: "notes", Kind: cairn.KindFiles, Paths: []string{filepath.Join(dir, "notes")}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ok.md", "évité.md"}, rels(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if want := []cairn.FileFailure{{Path: `bad\xff\xfe.md`, Reason: ReasonNameNotUTF8}}; !cmp.Equal(want, failures) || !DropsDocument(failures[0]) {
		t.Errorf("failures %v, want %v (dropping what was indexed)", failures, want)
	}
}
