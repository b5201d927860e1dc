package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVisible: control characters (C0, DEL, C1) and bytes that are not
// UTF-8 come out as Go escapes; everything else, multi-byte letters
// included, as it was; visibleText keeps tabs.
func TestVisible(t *testing.T) {
	for _, tt := range []struct{ in, one, text string }{
		{"notes/a.md", "notes/a.md", "notes/a.md"},
		{"évité 漢字 😀", "évité 漢字 😀", "évité 漢字 😀"},
		{"evil\x1b]0;pwned\a\x1b[2J.md", `evil\x1b]0;pwned\a\x1b[2J.md`, `evil\x1b]0;pwned\a\x1b[2J.md`},
		{"new\nline.md", `new\nline.md`, `new\nline.md`},
		{"a\tb\r", `a\tb\r`, "a\tb\\r"},
		{"csi\u009b31m del\x7f", `csi\u009b31m del\x7f`, `csi\u009b31m del\x7f`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`, `bad\xffutf8\xc3`},
		{"nul\x00", `nul\x00`, `nul\x00`},
		{"invoice\u202edm.exe.md", `invoice\u202edm.exe.md`, `invoice\u202edm.exe.md`}, // ux U9 addendum: bidi overrides
		{"a\u2066b\u2069c\u200f", `a\u2066b\u2069c\u200f`, `a\u2066b\u2069c\u200f`},
	} {
		if got := visible(tt.in); got != tt.one {
			t.Errorf("visible(%q) = %q, want %q", tt.in, got, tt.one)
		}
		if got := visibleText(tt.in); got != tt.text {
			t.Errorf("visibleText(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// TestTextOutputShowsControls: a file name and a note's text with escape
// sequences (a window title, a clear screen, colours) and a newline in a
// name print them visibly in search's and sync's text output, where they
// reached the terminal raw (rev finding 14); JSON keeps the raw name; get
// prints the document's text raw and cuts a long line with a note; a
// missing root's failure line reads "notes: /root", not "notes//root".
func TestTextOutputShowsControls(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	evil := "evil\x1b]0;pwned\a\x1b[2J.md"
	os.WriteFile(filepath.Join(notes, evil), []byte("# x\n\nplatypus one\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "new\nline.md"), []byte("# y\n\nplatypus two\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "ansi.md"), []byte("# z\n\nplatypus three \x1b[31mred\x1b[0m text\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b\x1b[2Kad.md"), []byte("\x00\x00bin"), 0o644)
	os.WriteFile(filepath.Join(notes, "wide.md"), []byte(strings.Repeat("gizmo ", 3000)+"\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	gone := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(gone, 0o755)
	c.ok("corpus", "add", "gone", gone)
	os.Remove(gone)
	out := c.ok("sync")
	for _, want := range []string{`failed: notes/b\x1b[2Kad.md: not text`, "failed: gone: " + gone + ": "} {
		if !strings.Contains(out, want) {
			t.Errorf("sync output lacks %q:\n%s", want, out)
		}
	}
	search := c.ok("search", "platypus", "--min-score", "0")
	for _, want := range []string{`cairn://notes/evil\x1b]0;pwned\a\x1b[2J.md:1-3`, `cairn://notes/new\nline.md:1-3`, `platypus three \x1b[31mred\x1b[0m text`} {
		if !strings.Contains(search, want) {
			t.Errorf("search output lacks %q:\n%s", want, search)
		}
	}
	for what, s := range map[string]string{"sync": out, "search": search} {
		if strings.ContainsAny(s, "\x1b\a\x00") {
			t.Errorf("%s output holds raw control characters: %q", what, s)
		}
	}
	if raw := c.ok("search", "platypus", "--min-score", "0", "--json"); !strings.Contains(raw, `evil\u001b]0;pwned\u0007\u001b[2J.md`) {
		t.Errorf("search --json lost the name's escapes: %s", raw)
	}
	if got := c.ok("get", "cairn://notes/ansi.md", "--from", "3"); got != "platypus three \x1b[31mred\x1b[0m text\n" {
		t.Errorf("get = %q, want the document's text raw into a pipe", got)
	}
	// On a terminal the sequences would act (ux U9: OSC 52 sets the
	// clipboard, OSC 0 the title): shown as search shows them, lines and
	// tabs kept.
	orig := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { isTerminal = orig })
	if got := c.ok("get", "cairn://notes/ansi.md"); got != "# z\n\nplatypus three \\x1b[31mred\\x1b[0m text\n" {
		t.Errorf("get on a terminal = %q, want the escapes shown", got)
	}
	got, errs, code := c.run("get", "cairn://notes/wide.md")
	if code != 0 || len([]rune(got)) != 12001 || !strings.Contains(errs, "[line 1 cut at 12,000 characters") {
		t.Errorf("get of a wide line: exit %d, %d characters, stderr %q; want 12,000 and a newline, and the cut note", code, len([]rune(got)), errs)
	}
}
