package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/skills"
	"github.com/cairnmemory/cairn/skills/curator"
)

// TestCLISkillsInstall: the curator skill lands where Claude Code and
// OpenClaw read skills (home or --dir), a second install is up to date, an
// edited copy is kept unless --force, and the skills corpus reads its name
// and description from the file.
func TestCLISkillsInstall(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	c := newCLI(t)
	out := c.ok("skills", "install", "curator")
	claude := filepath.Join(home, ".claude", "skills", curator.Name, "SKILL.md")
	openclaw := filepath.Join(home, ".openclaw", "skills", curator.Name, "SKILL.md")
	if out != "claude-code: installed "+claude+"\nopenclaw: installed "+openclaw+"\n" {
		t.Fatalf("install: %q", out)
	}
	for _, p := range []string{claude, openclaw} {
		if b, err := os.ReadFile(p); err != nil || string(b) != curator.Skill {
			t.Errorf("%s: %v", p, err)
		}
	}
	if out := c.ok("skills", "install", "curator", "--target", "openclaw"); out != "openclaw: up to date "+openclaw+"\n" {
		t.Errorf("second install: %q", out)
	}
	os.WriteFile(claude, []byte("edited\n"), 0o644)
	if _, errs, code := c.run("skills", "install", "curator"); code == 0 || !strings.Contains(errs, "--force") {
		t.Errorf("install over an edited copy: %d %q", code, errs)
	}
	if b, _ := os.ReadFile(claude); string(b) != "edited\n" {
		t.Error("an edited copy was replaced without --force")
	}
	if out := c.ok("skills", "install", "curator", "--force", "--target", "claude-code"); !strings.HasPrefix(out, "claude-code: updated ") {
		t.Errorf("--force: %q", out)
	}
	proj := t.TempDir()
	out = c.ok("skills", "install", "curator", "--dir", proj)
	if !strings.Contains(out, filepath.Join(proj, ".claude", "skills", curator.Name, "SKILL.md")) ||
		!strings.Contains(out, filepath.Join(proj, "skills", curator.Name, "SKILL.md")) {
		t.Errorf("--dir: %q", out)
	}
	for _, bad := range [][]string{{"skills", "install", "gardener"}, {"skills", "install", "curator", "--target", "cursor"}, {"skills", "install"}} {
		if _, _, code := c.run(bad...); code != 2 {
			t.Errorf("cairn %v: exit %d, want 2", bad, code)
		}
	}
	found, _, err := skills.Discover(context.Background(), []string{filepath.Join(home, ".openclaw", "skills")})
	if err != nil || len(found) != 1 || found[0].Name != curator.Name || !strings.Contains(found[0].Description, "curate") {
		t.Errorf("the skills corpus reads the installed skill as %+v, %v", found, err)
	}
}
