package sqlite

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildWithoutTagFails builds this package as a plain `go build`,
// `go install` or `go test ./...` would, without the sqlite_fts5 tag, and
// wants the compile to fail with the message that names the fix
// (notag.go), not a binary that fails at its first sync.
func TestBuildWithoutTagFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(gobin, "vet", ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go vet without -tags sqlite_fts5 succeeded; want a compile error naming the tag:\n%s", out)
	}
	const want = `cairn needs -tags sqlite_fts5: go build -tags sqlite_fts5 ./cmd/cairn" (untyped string constant) as int value`
	if !strings.Contains(string(out), want) {
		t.Fatalf("go vet without the tag printed:\n%s\nwant it to contain %q", out, want)
	}
}
