// Package golden compares test output with files under testdata and
// rewrites them when the test binary runs with -update, the one flag name
// every golden test in Cairn uses:
//
//	go test ./chunk/ -run Golden -update
//
// Review the diff of testdata/ after an update: a golden file is a promise
// about output, and -update only records what the code does now.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// Check compares got with the file at path, or writes it there under
// -update (creating folders). A difference fails t with a diff and the flag
// that rewrites the file.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run the test with -update to create it)", path, err)
		return
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; run with -update to accept):\n%s", path, d)
	}
}
