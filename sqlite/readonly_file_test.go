package sqlite

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairnmemory/cairn"
)

// readOnlyFileEnv names the folder and the read-only file
// TestReadOnlyFileNamed's child process writes to, as "DIR:FILE".
const readOnlyFileEnv = "CAIRN_TEST_READONLY_FILE"

// TestReadOnlyFileNamed: a write refused because one file of the pair is
// read-only (memory.db, or index.db) names that file and says how to make
// it writable, whichever store the write went to: memories and
// maintenance tasks live in memory.db, documents in index.db. Before, a
// read-only memory.db was named as index.db (a maintenance task) or not
// at all (a told memory), the SQLite message alone (review finding F4). As
// root, who may write any file, the writes run in a child process as the
// user nobody.
func TestReadOnlyFileNamed(t *testing.T) {
	if env := os.Getenv(readOnlyFileEnv); env != "" {
		dir, file, _ := strings.Cut(env, ":")
		writeReadOnlyFile(t, dir, file) // the child
		return
	}
	for _, file := range []string{DurableFile, IndexFile} {
		t.Run(file, func(t *testing.T) {
			dir := readOnlyFixture(t, false)
			ro := filepath.Join(dir, file)
			if os.Geteuid() != 0 {
				if err := os.Chmod(ro, 0o444); err != nil {
					t.Fatal(err)
				}
				writeReadOnlyFile(t, dir, file)
				return
			}
			// The folder and the other file writable by nobody, this one not.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				os.Chown(filepath.Join(dir, e.Name()), 65534, 65534)
			}
			os.Chown(dir, 65534, 65534)
			os.Chmod(ro, 0o444)
			bin := filepath.Join(dir+"-bin", "sqlite.test")
			if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(filepath.Dir(bin)) })
			copyFile(t, os.Args[0], bin)
			cmd := exec.Command(bin, "-test.run=^TestReadOnlyFileNamed$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), readOnlyFileEnv+"="+dir+":"+file)
			cmd.Dir = filepath.Dir(bin)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestReadOnlyFileNamed") {
				t.Fatalf("the writes as nobody: %v\n%s", err, out)
			}
			t.Logf("as nobody:\n%s", out)
		})
	}
}

// writeReadOnlyFile writes a memory, a maintenance task and a document to
// the index in dir, whose file named file this process may not write, and
// checks that each write the file refuses names it and that the writes
// to the other file go through.
func writeReadOnlyFile(t *testing.T, dir, file string) {
	ro := filepath.Join(dir, file)
	if syscall.Access(ro, 2) == nil || syscall.Access(dir, 2) != nil {
		t.Fatalf("%s is writable or its folder is not, by this user: the test is wrong", ro)
	}
	ctx := context.Background()
	s := New(filepath.Join(dir, IndexFile), "f1")
	if err := s.Open(ctx); err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	_, memErr := s.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main", Records: []string{"a"}})
	_, taskErr := s.PutMaintenanceTask(ctx, cairn.MaintenanceTask{ID: "t-1", Type: cairn.TaskExactDuplicate, Corpus: "n", Path: "a.md",
		Reason: "exact_duplicate", Fingerprint: "fp", Detail: "{}"})
	docErr := s.Apply(ctx, &cairn.Batch{Corpus: "n", Upserts: []cairn.Document{doc("n", "b.md", "tusk\n")}})
	writes := map[string]error{"memory": memErr, "task": taskErr, "document": docErr}
	refused := map[string]bool{"memory": file == DurableFile, "task": file == DurableFile, "document": file == IndexFile}
	for what, err := range writes {
		t.Logf("%s write with %s read-only: %v", what, file, err)
		if !refused[what] {
			if err != nil {
				t.Errorf("%s write with %s read-only: %v, want it written", what, file, err)
			}
			continue
		}
		var ce *cairn.Error
		if !errors.As(err, &ce) || ce.Path != ro || !strings.Contains(ce.Hint, "chmod u+w "+ro) {
			t.Errorf("%s write with %s read-only: %v; want an error naming %s and chmod u+w %s", what, file, err, ro, ro)
		}
	}
}
