package engine

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// asNobody is set in the child process that TestSyncUnreadableFolderKeeps
// starts as an unprivileged user when the tests run as root (root reads a
// mode 000 folder, so the case cannot happen to it).
const asNobody = "CAIRN_TEST_AS_NOBODY"

// A folder the scan cannot read (a changed permission, a flaky network
// mount) keeps what was indexed below it, as a missing root does; a
// subfolder and the corpus root alike. Before, everything below it was
// removed as gone.
func TestSyncUnreadableFolderKeeps(t *testing.T) {
	if os.Geteuid() == 0 && os.Getenv(asNobody) == "" {
		rerunAsNobody(t)
		return
	}
	f := newFixture(t, map[string]string{
		"a.md":     "# A\n\nquokka top note\n",
		"sub/s.md": "# S\n\nquokka deep note\n",
	}, Options{})
	if got := f.sync(); got.Added != 2 {
		t.Fatalf("first sync: %+v, want 2 added", got)
	}
	sub := filepath.Join(f.notes, "sub")
	for _, dir := range []string{sub, f.notes} {
		if err := os.Chmod(dir, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadDir(dir); err == nil {
			os.Chmod(dir, 0o755)
			t.Fatalf("a mode 000 folder reads as uid %d; the case cannot be made here", os.Geteuid())
		}
		res, err := f.eng.Sync(context.Background(), nil)
		os.Chmod(dir, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		r := res.Corpora[0]
		if r.Removed != 0 || r.Failed != 1 || !strings.HasPrefix(r.Failures[0].Reason, "unreadable directory") {
			t.Fatalf("%s unreadable: %+v; want nothing removed and one unreadable-directory failure", dir, r)
		}
		if got := f.paths("quokka"); len(got) != 2 {
			t.Fatalf("%s unreadable: search = %v, want both kept documents", dir, got)
		}
		if got := f.sync(); got.Unchanged != 2 || got.Removed != 0 || got.Failed != 0 {
			t.Fatalf("%s readable again: %+v, want 2 unchanged", dir, got)
		}
	}
	// A folder that is really gone still takes its documents with it.
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if got := f.sync(); got.Removed != 1 {
		t.Fatalf("sub removed: %+v, want 1 removed", got)
	}
}

// rerunAsNobody runs the calling test again in a copy of the test binary
// as uid and gid 65534 and fails with its output when it fails.
func rerunAsNobody(t *testing.T) {
	// t.TempDir's parent is mode 0700: the other user could not reach it.
	dir, err := os.MkdirTemp("", "cairn-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "engine.test")
	copyFile(t, os.Args[0], bin)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o777)
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), asNobody+"=1", "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("as uid 65534 the test did not pass:\n%s", out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
