package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skill(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# " + name + "\n\nSteps.\n"
}

// names returns name -> path relative to root.
func names(t *testing.T, root string, got []Skill) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range got {
		rel, err := filepath.Rel(root, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		out[s.Name] = filepath.ToSlash(rel)
	}
	return out
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	write(t, filepath.Join(a, "deploy", "SKILL.md"), skill("deploy", "Ship the site to staging"))
	write(t, filepath.Join(a, "review", "skill.md"), skill(`"code-review"`, `'Review a pull request'`))
	write(t, filepath.Join(a, "nofront", "Skill.md"), "# just text\n")
	write(t, filepath.Join(a, "deploy", "README.md"), skill("not-a-skill", "ignored"))
	write(t, filepath.Join(a, ".git", "x", "SKILL.md"), skill("in-git", "ignored"))
	// A symlinked folder is followed; a link loop ends.
	ext := filepath.Join(root, "external")
	write(t, filepath.Join(ext, "lint", "SKILL.md"), skill("lint", "Run the linters"))
	if err := os.Symlink(ext, filepath.Join(a, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, filepath.Join(a, "deploy", "loop")); err != nil {
		t.Fatal(err)
	}
	// A second source repeats a name in another case: the first source wins.
	b := filepath.Join(root, "b")
	write(t, filepath.Join(b, "dup", "SKILL.md"), skill("DEPLOY", "another deploy"))
	write(t, filepath.Join(b, "extra", "SKILL.md"), skill("extra", "Extra work"))

	got, rep, err := Discover(context.Background(), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"deploy": "a/deploy/SKILL.md", "code-review": "a/review/skill.md", "nofront": "a/nofront/Skill.md",
		"lint": "a/linked/lint/SKILL.md", "extra": "b/extra/SKILL.md",
	}
	if d := cmp.Diff(want, names(t, root, got)); d != "" {
		t.Fatalf("skills (-want +got):\n%s", d)
	}
	for _, s := range got {
		switch s.Name {
		case "code-review":
			if s.Description != "Review a pull request" {
				t.Errorf("quoted description = %q", s.Description)
			}
		case "nofront":
			if s.Description != "" {
				t.Errorf("description without frontmatter = %q", s.Description)
			}
		case "lint":
			if s.Real != filepath.Join(ext, "lint", "SKILL.md") {
				t.Errorf("lint real path = %s", s.Real)
			}
		case "extra":
			if s.Source != 1 {
				t.Errorf("extra source = %d, want 1", s.Source)
			}
		}
	}
	if len(rep.Duplicates) != 1 || rep.Duplicates[0].Path != filepath.Join(b, "dup", "SKILL.md") {
		t.Fatalf("duplicates = %+v", rep.Duplicates)
	}
}

func TestDiscoverGlobs(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "p1", "skills", "one", "SKILL.md"), skill("one", "first"))
	write(t, filepath.Join(root, "p2", "skills", "deep", "two", "SKILL.md"), skill("two", "second"))
	write(t, filepath.Join(root, "p2", "other", "three", "SKILL.md"), skill("three", "not under skills"))
	write(t, filepath.Join(root, "single", "SKILL.md"), skill("single", "a file path"))
	// A glob naming folders takes every SKILL.md beneath each match; a
	// file path names one skill; a missing path finds nothing.
	got, _, err := Discover(context.Background(), []string{
		filepath.Join(root, "*", "skills"), filepath.Join(root, "single", "SKILL.md"), filepath.Join(root, "missing"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"one": "p1/skills/one/SKILL.md", "two": "p2/skills/deep/two/SKILL.md", "single": "single/SKILL.md"}
	if d := cmp.Diff(want, names(t, root, got)); d != "" {
		t.Fatalf("skills (-want +got):\n%s", d)
	}
	// A glob naming the files themselves.
	got, _, err = Discover(context.Background(), []string{filepath.Join(root, "p*", "*", "*", "SKILL.md")})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"one": "p1/skills/one/SKILL.md", "three": "p2/other/three/SKILL.md"}
	if d := cmp.Diff(want, names(t, root, got)); d != "" {
		t.Fatalf("file glob (-want +got):\n%s", d)
	}
}

func TestDiscoverBadPath(t *testing.T) {
	_, _, err := Discover(context.Background(), []string{"relative/skills"})
	if !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("relative path: %v, want ErrInvalid", err)
	}
}

func TestFrontmatter(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]string
	}{
		{"plain", "---\nname: x\ndescription: does y\n---\nbody", map[string]string{"name": "x", "description": "does y"}},
		{"bom and crlf", "\ufeff---\r\nname: 'x'\r\n---\r\n", map[string]string{"name": "x"}},
		{"folded", "---\nname: x\ndescription: >\n  one\n  two\n\n  three\nother: z\n---\n", map[string]string{"name": "x", "description": "one two three", "other": "z"}},
		{"literal", "---\ndescription: |\n  one\n  two\n---\n", map[string]string{"description": "one\ntwo"}},
		{"colon in value", "---\ndescription: use it: always\n---\n", map[string]string{"description": "use it: always"}},
		{"first wins", "---\nname: a\nname: b\n---\n", map[string]string{"name": "a"}},
		{"unclosed", "---\nname: x\n", nil},
		{"not at top", "# title\n---\nname: x\n---\n", nil},
		{"second block ignored", "---\nname: a\n---\n---\nname: b\n---\n", map[string]string{"name": "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, parseFrontmatter(tc.text)); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}

// A secret written into a skill's description never leaves discovery: it is
// what skills list prints, what the index embeds (a remote embedder would
// receive it) and what the whisperer's judge is shown.
func TestDiscoverRedactsDescription(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "deploy", "SKILL.md"),
		skill("deploy", "Ship it. The deploy password is Summer2024!x for the bot, key ghp_0123456789abcdefghijABCDEFGHIJ012345"))
	write(t, filepath.Join(root, "vault", "SKILL.md"), skill("vault", "The password is in the vault"))
	got, _, err := Discover(context.Background(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	desc := map[string]string{}
	for _, s := range got {
		desc[s.Name] = s.Description
	}
	for _, secret := range []string{"Summer2024!x", "ghp_0123456789abcdefghijABCDEFGHIJ012345"} {
		if strings.Contains(desc["deploy"], secret) || strings.Contains(DocumentText(Skill{Name: "deploy", Description: desc["deploy"]}), secret) {
			t.Errorf("description keeps %q: %q", secret, desc["deploy"])
		}
	}
	if !strings.Contains(desc["deploy"], "Ship it.") || !strings.Contains(desc["deploy"], "[REDACTED:") {
		t.Errorf("deploy description = %q, want its prose with the secrets replaced", desc["deploy"])
	}
	if desc["vault"] != "The password is in the vault" {
		t.Errorf("ordinary prose changed: %q", desc["vault"])
	}
}
