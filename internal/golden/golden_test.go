package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Errorf(format string, args ...any) { r.failed = append(r.failed, format) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = append(r.failed, format) }
func (r *recorder) Helper()                           {}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	r := &recorder{TB: t}
	Check(r, path, []byte("x\n"))
	if len(r.failed) != 1 {
		t.Fatalf("a missing golden file must fail once: %v", r.failed)
	}
	*Update = true
	Check(r, path, []byte("x\n"))
	*Update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "x\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	r.failed = nil
	Check(r, path, []byte("x\n"))
	Check(r, path, []byte("y\n"))
	if len(r.failed) != 1 {
		t.Errorf("same output must pass and different output fail once: %v", r.failed)
	}
}
