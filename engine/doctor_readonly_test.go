package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/sqlite"
)

// readOnlyBackend is the SQLite backend with files this user may not
// write (as root every file may be written, so a chmod proves nothing
// here; sqlite's TestReadOnlyFileNamed runs as another user).
type readOnlyBackend struct {
	sqlite.Backend
	files []string
}

func (b readOnlyBackend) UnwritableFiles(string) []string { return b.files }

// TestDoctorReadOnlyFiles: a file of the data directory this user may not
// write is reported as such, with the chmod that fixes it, and nothing is
// rebuilt or moved aside, with --repair or without (a new user's try:
// doctor called a read-only index.db a full-text problem to rebuild, its
// --repair failed, and a read-only memory.db passed as ok). A writable
// directory gets the usual checks.
func TestDoctorReadOnlyFiles(t *testing.T) {
	_, opts := doctorFixture(t)
	ro := filepath.Join(opts.Dir, sqlite.DurableFile)
	opts.Backend = readOnlyBackend{files: []string{ro}}
	for _, repair := range []bool{false, true} {
		rep := doctor(t, opts, repair)
		st := statuses(rep)
		if st["files"] != CheckProblem || st["fulltext"] != CheckSkipped || st["index"] != CheckSkipped || st["memories"] != CheckSkipped || rep.Problems != 1 {
			t.Fatalf("repair %v: %v (%d problems), want files a problem and the rest skipped", repair, st, rep.Problems)
		}
		for _, c := range rep.Checks {
			if c.Name == "files" && (!strings.Contains(c.Detail, ro) || !strings.Contains(c.Fix, "chmod u+w "+ro)) {
				t.Errorf("files check %+v: want %s named and its chmod", c, ro)
			}
		}
		if rep.MovedAside != "" || rep.Sync != nil {
			t.Fatalf("repair %v moved aside %q or rebuilt (%v) over a read-only file", repair, rep.MovedAside, rep.Sync)
		}
	}
	opts.Backend = readOnlyBackend{}
	if st := statuses(doctor(t, opts, false)); st["files"] != "" || st["fulltext"] != CheckOK || st["memories"] != CheckOK {
		t.Fatalf("every file writable: %v, want the usual checks and no files line", st)
	}
}
