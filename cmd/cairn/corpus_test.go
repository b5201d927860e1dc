package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCorpusManagement: corpus add expands "~", takes --exclude, refuses a
// missing path (exit 2 naming it), adds a source to an existing sessions
// corpus, and corpus remove takes a corpus out (issue 14 item 14).
func TestCorpusManagement(t *testing.T) {
	c := newCLI(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "notes", "drafts"), 0o755)
	os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
	os.WriteFile(filepath.Join(home, "notes", "a.md"), []byte("# A\n\nalpha\n"), 0o644)
	os.WriteFile(filepath.Join(home, "notes", "drafts", "d.md"), []byte("# D\n\nalpha draft\n"), 0o644)

	c.ok("corpus", "add", "notes", "~/notes", "--exclude", "drafts", "--exclude", "*.tmp")
	type corpus struct {
		Name    string
		Paths   []string
		Exclude []string
		Sources []struct{ ID string }
	}
	list := func() []corpus {
		var out struct{ Corpora []corpus }
		json.Unmarshal([]byte(c.ok("corpus", "list", "--json")), &out)
		return out.Corpora
	}
	got := list()
	if len(got) != 1 || !slices.Equal(got[0].Paths, []string{filepath.Join(home, "notes")}) || !slices.Equal(got[0].Exclude, []string{"drafts", "*.tmp"}) {
		t.Fatalf("corpus list = %+v", got)
	}
	c.ok("sync")
	if out := c.ok("search", "alpha"); strings.Contains(out, "drafts") || !strings.Contains(out, "a.md") {
		t.Errorf("search with drafts excluded = %q", out)
	}

	missing := filepath.Join(home, "nope")
	if _, errs, code := c.run("corpus", "add", "gone", "~/nope"); code != 2 || !strings.Contains(errs, missing+" does not exist") {
		t.Errorf("add of a missing path: exit %d, stderr %q; want 2 naming %s", code, errs, missing)
	}

	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "codex", "--root", "codex=~/.codex")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "aider", "--root", "aider=~/notes")
	got = list()
	if len(got) != 2 || len(got[1].Sources) != 2 || got[1].Sources[0].ID != "codex" || got[1].Sources[1].ID != "aider" {
		t.Fatalf("corpus list after adding a source = %+v", got)
	}
	if _, errs, code := c.run("corpus", "add", "sessions", "--kind", "sessions", "--source", "codex"); code != 2 || !strings.Contains(errs, `source "codex" is already in the sessions corpus`) {
		t.Errorf("adding a source twice: exit %d, stderr %q", code, errs)
	}

	if out := c.ok("corpus", "remove", "notes"); !strings.Contains(out, "removed corpus notes") {
		t.Errorf("corpus remove = %q", out)
	}
	if got = list(); len(got) != 1 || got[0].Name != "sessions" {
		t.Errorf("corpus list after remove = %+v", got)
	}
	if _, errs, code := c.run("corpus", "remove", "notes"); code == 0 || !strings.Contains(errs, `corpus "notes" is not configured`) {
		t.Errorf("removing it again: exit %d, stderr %q", code, errs)
	}
}

// TestCorpusAddSkills: corpus add --kind skills adds the skills corpus
// (named "skills", folders of skill folders; "~" expanded), which corpus
// list and skills list then show; another name, no path or a files flag is
// a usage error saying how to add it.
func TestCorpusAddSkills(t *testing.T) {
	c := newCLI(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "skills", "deploy"), 0o755)
	os.WriteFile(filepath.Join(home, "skills", "deploy", "SKILL.md"), []byte("---\nname: deploy\ndescription: Ship the site.\n---\n\nRun make deploy.\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"corpus", "add", "tools", "~/skills", "--kind", "skills"}, `takes the name "skills" and one or more PATHs`},
		{[]string{"corpus", "add", "skills", "--kind", "skills"}, `takes the name "skills" and one or more PATHs`},
		{[]string{"corpus", "add", "skills", "~/skills", "--kind", "skills", "--glob", "*.md"}, "do not apply to the skills corpus"},
		{[]string{"corpus", "add", "skills", "~/nope", "--kind", "skills"}, "does not exist"},
		{[]string{"corpus", "add", "x", "~/skills", "--kind", "bogus"}, `allowed "files", "sessions" or "skills"`},
	} {
		if _, errs, code := c.run(tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("cairn %v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if out := c.ok("corpus", "add", "skills", "~/skills", "--kind", "skills"); !strings.Contains(out, "added corpus skills") {
		t.Fatalf("corpus add skills: %q", out)
	}
	var list struct {
		Corpora []struct {
			Name, Kind string
			Paths      []string
		}
	}
	json.Unmarshal([]byte(c.ok("corpus", "list", "--json")), &list)
	if len(list.Corpora) != 1 || list.Corpora[0].Kind != "skills" || !slices.Equal(list.Corpora[0].Paths, []string{filepath.Join(home, "skills")}) {
		t.Fatalf("corpus list = %+v", list.Corpora)
	}
	if _, errs, code := c.run("corpus", "add", "skills", "~/skills", "--kind", "skills"); code != 2 || !strings.Contains(errs, "already configured") {
		t.Errorf("second add: exit %d, stderr %q", code, errs)
	}
}
