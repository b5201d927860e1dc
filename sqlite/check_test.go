package sqlite

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairnmemory/cairn"
)

// readOnlyDirEnv names the folder TestReadOnlyFolderMessage's child
// process opens, as a user who may not write it.
const readOnlyDirEnv = "CAIRN_TEST_READONLY_DIR"

// TestReadOnlyFolderMessage: an index in a folder this user may not write
// (its files readable) fails to open with an error that says the folder
// is not writable and how to fix it, naming the file, whether it was
// closed cleanly or left a -wal file without its -shm (a copy of a data
// directory, a backup restored): then SQLite's message was "unable to
// open database file: no such file or directory", for a file that is
// there (the errno of its try at the missing -shm). A chmod does not stop
// root, who runs some test machines: as root the open runs in a child
// process as the user nobody.
func TestReadOnlyFolderMessage(t *testing.T) {
	if dir := os.Getenv(readOnlyDirEnv); dir != "" {
		openReadOnlyFolder(t, dir) // the child
		return
	}
	for _, walLeft := range []bool{false, true} {
		t.Run(map[bool]string{false: "closed", true: "wal without shm"}[walLeft], func(t *testing.T) {
			dir := readOnlyFixture(t, walLeft)
			if os.Geteuid() != 0 {
				if err := os.Chmod(dir, 0o555); err != nil {
					t.Fatal(err)
				}
				openReadOnlyFolder(t, dir)
				return
			}
			asNobody(t, dir)
		})
	}
}

// readOnlyFixture is a folder holding an index of one document, closed,
// or (walLeft) copied while open, without its -shm file.
func readOnlyFixture(t *testing.T, walLeft bool) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cairn-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	ctx := context.Background()
	at := dir
	if walLeft {
		at = t.TempDir()
	}
	s := New(filepath.Join(at, "index.db"), "f1")
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", "a.md", "walrus\n")}}); err != nil {
		t.Fatal(err)
	}
	if walLeft {
		for _, name := range []string{"index.db", "index.db-wal", DurableFile} {
			copyFile(t, filepath.Join(at, name), filepath.Join(dir, name))
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// asNobody runs openReadOnlyFolder on dir in a child process as nobody:
// the files readable by all, the folder writable by root alone, and a
// copy of the test binary (the build folder is root's alone).
func asNobody(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.Chmod(filepath.Join(dir, e.Name()), 0o644)
	}
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir+"-bin", "sqlite.test")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(bin)) })
	copyFile(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run=^TestReadOnlyFolderMessage$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), readOnlyDirEnv+"="+dir)
	cmd.Dir = filepath.Dir(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestReadOnlyFolderMessage") {
		t.Fatalf("the open as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
}

// openReadOnlyFolder opens the index in dir, which this process may not
// write, and checks the error.
func openReadOnlyFolder(t *testing.T, dir string) {
	path := filepath.Join(dir, "index.db")
	if err := syscall.Access(dir, 2); err == nil {
		t.Fatalf("%s is writable by this user: the test is wrong", dir)
	}
	s := New(path, "f1")
	err := s.Open(context.Background())
	if err == nil {
		_, err = s.Lexical(context.Background(), cairn.LexicalQuery{Match: cairn.Term("walrus"), Limit: 5})
		s.Close()
	}
	var ce *cairn.Error
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	t.Logf("open in a read-only folder: %v", err)
	if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(msg, "its folder "+dir+" is not writable") ||
		strings.Contains(msg, "no such file") || !strings.Contains(ce.Hint, "chmod u+w "+dir) {
		t.Fatalf("open in a read-only folder: %v; want the file, its folder not writable and chmod u+w, not \"no such file\"", err)
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
