package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOfUnknownAgent: a command that only reads, given an agent that
// has no data (never synced, never told anything), says so and names the
// known agents instead of creating an empty agents/<name>/ folder; a
// command that writes (sync, remember) makes the agent as before.
func TestReadOfUnknownAgent(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# A\n\nalpha beta\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("--agent", "alice", "sync")
	for _, args := range [][]string{
		{"search", "alpha", "--agent", "other"},
		{"--agent", "other", "get", "cairn://notes/a.md"},
		{"--agent", "other", "recall", "alpha"},
		{"--agent", "other", "memories", "list"},
		{"--agent", "other", "memories", "show", "m-1"},
		{"--agent", "other", "gather", "alpha?"},
		{"--agent", "other", "explore", "alpha"},
		{"--agent", "other", "clusters", "list"},
		{"--agent", "other", "tasks", "list"},
	} {
		_, errs, code := c.run(args...)
		if code != 2 || !strings.Contains(errs, "no agent named other; known: alice") {
			t.Errorf("cairn %v: exit %d, stderr %q; want exit 2 and no agent named other; known: alice", args, code, errs)
		}
		if _, err := os.Stat(filepath.Join(c.home, "agents", "other")); !os.IsNotExist(err) {
			t.Fatalf("cairn %v made agents/other (%v)", args, err)
		}
	}
	c.ok("--agent", "bob", "remember", "bob prefers tea", "--kind", "preference", "--title", "tea")
	if _, err := os.Stat(filepath.Join(c.home, "agents", "bob")); err != nil {
		t.Errorf("remember did not make agent bob: %v", err)
	}
	if _, errs, _ := c.run("--agent", "nobody", "search", "alpha"); !strings.Contains(errs, "known: alice, bob") {
		t.Errorf("the known agents after bob's first memory: %q", errs)
	}
	// The default agent keeps its first-run answer, an empty index, and
	// says why it is empty (ux U31: "no results" alone read as an answer).
	out, errs, code := c.run("search", "alpha")
	if code != 0 || !strings.Contains(out, "no results") || errs != "cairn: the index is empty: nothing is synced yet for agent default (run cairn sync)\n" {
		t.Errorf("the default agent before its first sync: exit %d, %q, stderr %q", code, out, errs)
	}
}

// TestAgentCaseTwin: with agent alice there, --agent Alice is refused
// naming alice, for a read and for a write, and makes no folder (ux F16:
// the two spellings were two agents on Linux, one folder on macOS, while
// HTTP matched ids exactly). alice itself works.
func TestAgentCaseTwin(t *testing.T) {
	c := newCLI(t)
	c.ok("--agent", "alice", "remember", "alice prefers tea", "--kind", "preference", "--title", "tea")
	for _, args := range [][]string{{"--agent", "Alice", "search", "tea"}, {"--agent", "ALICE", "remember", "x", "--kind", "fact", "--title", "x"}, {"--agent", "Alice", "sync"}} {
		_, errs, code := c.run(args...)
		if code != 2 || !strings.Contains(errs, "agent alice exists, and ids that differ only in case are refused: use --agent alice") {
			t.Errorf("cairn %v: exit %d, stderr %q", args, code, errs)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(c.home, "agents"))
	if len(entries) != 1 {
		t.Errorf("agents folders %v, want alice alone", entries)
	}
	if out := c.ok("--agent", "alice", "search", "tea", "--corpus", "memories"); !strings.Contains(out, "tea") {
		t.Errorf("alice's search: %s", out)
	}
}
