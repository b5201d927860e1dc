package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn/ingest"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/cairnmemory/cairn/transcript"
	"github.com/google/go-cmp/cmp"
)

var updateProjections = goldenfile.Update // -update

// TestFixtureProjections projects every transcript fixture (the file-based
// ones; the OpenClaw SQLite seed is covered by the engine tests) and
// compares with golden Markdown in testdata/projections/<source>/.
func TestFixtureProjections(t *testing.T) {
	const fixtures = "../ingest/testdata/transcripts"
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data")
	}
	for _, id := range ingest.ReaderIDs() {
		r, _ := ingest.Reader(id)
		files, err := r.Find(filepath.Join(fixtures, id))
		if err != nil {
			t.Fatalf("%s: find: %v", id, err)
		}
		if len(files) == 0 {
			t.Errorf("%s: no fixture found", id)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sessions, err := r.Parse(data, ingest.ParseOptions{Path: file, Location: berlin})
			if err != nil {
				t.Errorf("%s: parse %s: %v", id, file, err)
				continue
			}
			for _, s := range sessions {
				p, ok := transcript.Project(&s, transcript.Options{Location: berlin})
				if !ok {
					continue
				}
				name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(p.Path), ".md"), ":", "-") + ".md"
				golden := filepath.Join("testdata", "projections", id, name)
				if *updateProjections {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					os.WriteFile(golden, []byte(p.Path+"\n\n"+p.Text), 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Errorf("%s: %v (run with -update)", id, err)
					continue
				}
				if diff := cmp.Diff(string(want), p.Path+"\n\n"+p.Text); diff != "" {
					t.Errorf("%s %s (-want +got):\n%s", id, name, diff)
				}
				if got := transcript.Messages(p.Text); !cmp.Equal(got, p.Spans) {
					t.Errorf("%s %s: spans do not round-trip", id, name)
				}
			}
		}
	}
}
