package ingest

import (
	"errors"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		// Literals and anchoring.
		{"a.md", "a.md", true},
		{"a.md", "b/a.md", false},
		{"a.md", "a.mdx", false},
		{"b/a.md", "b/a.md", true},
		{"b/a.md", "b/a.md/c", false},
		{"*.md", "a.md", true},
		{"*.md", "a.md.txt", false},
		{"*.md", "d/a.md", false},
		{"d/*.md", "d/a.md", true},
		{"d/*.md", "d/e/a.md", false},
		// Globstar.
		{"**/*.md", "a.md", true},
		{"**/*.md", "a/b/c/d.md", true},
		{"**/*.md", "a/b/c/d.txt", false},
		{"**", "", true},
		{"**", "a/b", true},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"a/**", "ab/c", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/bb", false},
		{"**/x/**/*.md", "p/x/q/r.md", true},
		{"**/x/**/*.md", "x/r.md", true},
		{"**/x/**/*.md", "p/y/q/r.md", false},
		{"**/**/a.md", "a.md", true},
		{"a**b.md", "axxb.md", true}, // "**" inside a segment is "*"
		{"a**b.md", "ax/xb.md", false},
		// Dotfiles.
		{"*.md", ".hidden.md", true},
		{"**/*.md", ".notes/a.md", true},
		{"**/*.md", "a/.b/.c.md", true},
		{"?x.md", ".x.md", true},
		{"*", ".", true},
		// ? and *.
		{"?.md", "a.md", true},
		{"?.md", "ab.md", false},
		{"?.md", "é.md", true}, // one character, two bytes
		{"a*b*c.md", "a-b-b-c.md", true},
		{"a*b*c.md", "a-c-b.md", false},
		{"*a*", "banana", true},
		{"*x*", "banana", false},
		{"a*", "a", true},
		// Classes.
		{"[abc].md", "b.md", true},
		{"[abc].md", "d.md", false},
		{"[a-c].md", "c.md", true},
		{"[!a-c].md", "c.md", false},
		{"[!a-c].md", "d.md", true},
		{"[^a-c].md", "d.md", true},
		{"[]x].md", "].md", true},
		{"[!]x].md", "y.md", true},
		{"[!]x].md", "].md", false},
		{"[a-]x", "-x", true},
		{`[\]]x`, "]x", true},
		{"[α-ω].md", "λ.md", true},
		{"[{]x", "{x", true},
		// Alternation.
		{"{a,b}.md", "a.md", true},
		{"{a,b}.md", "c.md", false},
		{"*.{md,txt}", "x.txt", true},
		{"{docs,notes/**}/*.md", "notes/x/y.md", true},
		{"{docs,notes/**}/*.md", "docs/y.md", true},
		{"{docs,notes/**}/*.md", "docs/x/y.md", false},
		{"{a,{b,c}d}.md", "cd.md", true},
		{"{a,{b,c}d}.md", "c.md", false},
		{"{,x}a.md", "a.md", true},
		{"x{a}y", "xay", true},
		// Escapes and literal specials.
		{`\*.md`, "*.md", true},
		{`\*.md`, "a.md", false},
		{`a\{b,c\}.md`, "a{b,c}.md", true},
		{"a}b,c.md", "a}b,c.md", true},
		{"(draft).md", "(draft).md", true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestCompileGlobErrors(t *testing.T) {
	for _, p := range []string{
		"", "/abs/*.md", "[abc", "[!]", "{a,b", "a/{b", `a\`, "[z-a]", "a//b",
		"a/../b", "./a", "a/[/]", "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}",
	} {
		g, err := CompileGlob(p)
		if !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("CompileGlob(%q) = %v, %v; want an ErrInvalid error", p, g, err)
		}
		if Match(p, "a") {
			t.Errorf("Match(%q, \"a\") = true for a malformed pattern", p)
		}
	}
}

func TestCanDescend(t *testing.T) {
	tests := []struct {
		pattern, dir string
		want         bool
	}{
		{"MEMORY.md", "", true},
		{"MEMORY.md", "memory", false},
		{"*.md", "x", false},
		{"memory/*.md", "memory", true},
		{"memory/*.md", "other", false},
		{"memory/*.md", "memory/sub", false},
		{"a/b/*.md", "a/b", true},
		{"**/*.md", "deep/er", true},
		{"a/**/x.md", "a/b/c", true},
		{"a/**/x.md", "b", false},
		{"{a,b}/*.md", "b", true},
		{"{a,b}/*.md", "c", false},
	}
	for _, tt := range tests {
		if got := MustCompileGlob(tt.pattern).CanDescend(tt.dir); got != tt.want {
			t.Errorf("CanDescend(%q, %q) = %v, want %v", tt.pattern, tt.dir, got, tt.want)
		}
	}
}

func TestEscapeGlob(t *testing.T) {
	for _, name := range []string{"plain.md", "a*b?.md", "[x]{y,z}.md", `back\slash.md`, "(p).md"} {
		if !Match(EscapeGlob(name), name) {
			t.Errorf("Match(EscapeGlob(%q) = %q, %q) = false", name, EscapeGlob(name), name)
		}
	}
	if Match(EscapeGlob("*.md"), "a.md") {
		t.Errorf("escaped * matched another name")
	}
}

func BenchmarkGlobMatch(b *testing.B) {
	g := MustCompileGlob("**/*.md")
	ex := MustCompileGlob("{node_modules,**/drafts}/**")
	for b.Loop() {
		g.Match("notes/2024/projects/cairn/design.md")
		ex.Match("notes/2024/projects/cairn/design.md")
	}
}
