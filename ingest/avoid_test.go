package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/google/go-cmp/cmp"
)

// A corpus of the home folder with Cairn's data folder under it (ux F21):
// the folder excluded by absolute path is never walked, a link into it is a
// failure, and a corpus rooted inside it yields nothing.
func TestScanExcludedFolder(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, ".local/share/cairn")
	mkfiles(t, home,
		"notes/a.md",
		".local/share/cairn/agents/default/sessions/s.md",
		".local/share/cairn/agents/default/memories/m.md",
		".local/share/cairn-other/keep.md", // a sibling whose name starts alike
		".local/share/keep.md",
	)
	symlink(t, filepath.Join(data, "agents/default/sessions/s.md"), filepath.Join(home, "notes/link.md"))

	c := cairn.Corpus{Name: "home", Kind: cairn.KindFiles, Paths: []string{home}, Exclude: []string{data, "*.nope"}}
	files, failures, err := Scan(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".local/share/cairn-other/keep.md", ".local/share/keep.md", "notes/a.md"}
	if diff := cmp.Diff(want, rels(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantFail := []cairn.FileFailure{{Path: "notes/link.md", Reason: ReasonSymlinkAvoided}}
	if diff := cmp.Diff(wantFail, failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if !DropsDocument(failures[0]) {
		t.Errorf("a link into the excluded folder keeps what was indexed from it")
	}

	got, err := FoldersWithin(c)
	if err != nil || !cmp.Equal(got, []string{data}) {
		t.Errorf("FoldersWithin = %q, %v; want [%s]", got, err, data)
	}

	inside := cairn.Corpus{Name: "s", Kind: cairn.KindFiles, Paths: []string{filepath.Join(data, "agents")}, Exclude: []string{data}}
	files, failures, err = Scan(context.Background(), inside)
	if want := []cairn.FileFailure{{Path: filepath.Join(data, "agents"), Reason: ReasonRootExcluded}}; err != nil || len(files) != 0 || !cmp.Equal(failures, want) {
		t.Errorf("a root inside the excluded folder: %q, %v, %v; want no file and %v", rels(files), failures, err, want)
	}

	elsewhere := cairn.Corpus{Name: "n", Kind: cairn.KindFiles, Paths: []string{filepath.Join(home, "notes")}, Exclude: []string{data}}
	if got, err := FoldersWithin(elsewhere); err != nil || len(got) != 0 {
		t.Errorf("FoldersWithin of a corpus beside the folder = %q, %v; want none", got, err)
	}
}
