package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A data root, agents folder and agent folder of ours that others may
// write are made 0700 by the next command, which says so once each; one
// owned by another user is refused, naming it and the commands that fix
// it, and changed in nothing (ux F15).
func TestDataFoldersPrivate(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "n.md"), []byte("# Plants\n\nThe ficus needs light.\n"), 0o644)
	c.ok("corpus", "add", "s", notes)
	c.ok("sync")
	_, dataDir := newEnv(io.Discard, io.Discard).paths()
	agents := filepath.Join(dataDir, "agents")
	dir := filepath.Join(agents, "default")
	modes := map[string]os.FileMode{dataDir: 0o777, agents: 0o775, dir: 0o757}
	for d, m := range modes {
		if err := os.Chmod(d, m); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := c.run("search", "ficus", "--mode", "lexical")
	if code != 0 || !strings.Contains(out, "n.md") {
		t.Fatalf("search: exit %d, %q, stderr %q", code, out, errs)
	}
	for d, m := range modes {
		fi, _ := os.Stat(d)
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %04o after a search, want 0700", d, fi.Mode().Perm())
		}
		if strings.Count(errs, fmt.Sprintf("cairn: data folder %s was writable by group or others (mode %04o)", d, m)) != 1 {
			t.Errorf("stderr %q; want one note on %s", errs, d)
		}
	}
	if _, errs, _ := c.run("search", "ficus", "--mode", "lexical"); strings.Contains(errs, "data folder") {
		t.Errorf("second search: stderr %q; want no note", errs)
	}
	os.Chmod(dir, 0o777)
	var stderr strings.Builder
	err := (&env{stderr: &stderr}).privateDirs(os.Getuid()+1, dataDir, dir)
	if err == nil || !strings.Contains(err.Error(), "data folder "+dataDir+" belongs to uid") || !strings.Contains(err.Error(), "chown -R") {
		t.Errorf("a folder of another user: %v; want a refusal naming %s and chown", err, dataDir)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o777 || stderr.Len() != 0 {
		t.Errorf("after the refusal: %s is %04o, stderr %q; want it unchanged", dir, fi.Mode().Perm(), stderr.String())
	}
}

// A flag within a typo of a defined one is named (ux F16); one far from
// every flag gets the message as before.
func TestFlagTypo(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "x", "--limt", "3"}, "cairn: search: flag provided but not defined: -limt (did you mean --limit?); run cairn search --help\n"},
		{[]string{"search", "x", "--jsno"}, "cairn: search: flag provided but not defined: -jsno (did you mean --json?); run cairn search --help\n"},
		{[]string{"search", "x", "--bogus"}, "cairn: search: flag provided but not defined: -bogus; run cairn search --help\n"},
	} {
		if _, errs, code := c.run(tt.args...); code != 2 || errs != tt.want {
			t.Errorf("cairn %v: exit %d, stderr %q; want 2, %q", tt.args, code, errs, tt.want)
		}
	}
	for _, tt := range []struct {
		word string
		want string
	}{{"serach", "[search]"}, {"sycn", "[sync]"}, {"stat", "[]"}, {"search", "[]"}, {"recal", "[recall]"}} {
		if got := fmt.Sprint(nearWords(tt.word, []string{"search", "sync", "recall", "get"})); got != tt.want {
			t.Errorf("nearWords(%q) = %s, want %s", tt.word, got, tt.want)
		}
	}
}
