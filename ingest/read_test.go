package ingest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fileFor writes data to a temp file and returns it as Scan would.
func fileFor(t *testing.T, data []byte) File {
	t.Helper()
	abs := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(abs, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return File{Rel: "doc.md", Abs: abs, Size: int64(len(data))}
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"utf-8", "# Café ✓\n", "# Café ✓\n"},
		{"empty", "", ""},
		{"bom", "\xEF\xBB\xBF# Title\n", "# Title\n"},
		{"bom only once", "\xEF\xBB\xBF\xEF\xBB\xBFx", "\uFEFFx"},
		{"cp1252 punctuation", "\x93quoted\x94 \x96 \x80 5\x85", "\u201Cquoted\u201D \u2013 \u20AC 5\u2026"},
		{"cp1252 latin-1 range", "caf\xE9 \xA0\xFF", "café \u00A0ÿ"},
		{"cp1252 undefined bytes", "a\x81b\x8D\x8F\x90\x9D", "a\uFFFDb\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"cp1252 whole file", "\xE2\x9C\x93 \xE9", "âœ“ é"}, // valid UTF-8 bytes decode as cp1252 too
		{"bom then cp1252", "\xEF\xBB\xBFcaf\xE9", "café"},
		{"nul after the sniff window", strings.Repeat("a", 8000) + "\x00", strings.Repeat("a", 8000) + "\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(fileFor(t, []byte(tt.data)), 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Read = %q, want %q", got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Read = %q: not valid UTF-8", got)
			}
		})
	}
}

func TestDecodeCP1252Table(t *testing.T) {
	for b := 0; b < 256; b++ {
		got := decodeCP1252([]byte{byte(b)})
		r, _ := utf8.DecodeRuneInString(got)
		switch {
		case b < 0x80 || b >= 0xA0:
			if r != rune(b) {
				t.Errorf("byte %#x = %U, want %U", b, r, rune(b))
			}
		case b == 0x81 || b == 0x8D || b == 0x8F || b == 0x90 || b == 0x9D:
			if r != utf8.RuneError {
				t.Errorf("byte %#x = %U, want U+FFFD", b, r)
			}
		case r < 0x100 && r != 0x80:
			t.Errorf("byte %#x = %U, want a cp1252 character", b, r)
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	mkfiles(t, dir, "adir.md/")
	symlink(t, filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling.md"))
	big := fileFor(t, []byte("0123456789"))
	tests := []struct {
		name    string
		f       File
		max     int64
		reason  string
		wantErr error
	}{
		{"oversized by scan size", File{Rel: "big.md", Abs: "/unused", Size: 12_900_000}, 0,
			"too large: 12.3 MB, limit 10.0 MB", nil},
		{"grew since the scan", File{Rel: big.Rel, Abs: big.Abs, Size: 3}, 5,
			"too large: 10 bytes, limit 5 bytes", nil},
		{"kilobytes", File{Rel: "k.md", Abs: "/unused", Size: 3000}, 2048,
			"too large: 2.9 KB, limit 2.0 KB", nil},
		{"binary", fileFor(t, []byte("PK\x03\x04\x00\x00data")), 0, "not text: binary content", nil},
		{"utf-16", fileFor(t, []byte("\xFF\xFEh\x00i\x00")), 0, "not text: binary content", nil},
		{"directory", File{Rel: "adir.md", Abs: filepath.Join(dir, "adir.md")}, 0,
			"not a regular file: directory", nil},
		{"dangling symlink", File{Abs: filepath.Join(dir, "dangling.md")}, 0,
			"unreadable: no such file or directory", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := Read(tt.f, tt.max)
			var rerr *ReadError
			if !errors.As(err, &rerr) {
				t.Fatalf("Read = %q, %v; want a *ReadError", text, err)
			}
			if rerr.Reason != tt.reason {
				t.Errorf("Reason = %q, want %q", rerr.Reason, tt.reason)
			}
			wantPath := tt.f.Rel
			if wantPath == "" {
				wantPath = tt.f.Abs
			}
			if rerr.Path != wantPath || rerr.Failure().Path != wantPath {
				t.Errorf("Path = %q, want %q", rerr.Path, wantPath)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantErr)
			}
		})
	}
}

func TestReadAtLimit(t *testing.T) {
	f := fileFor(t, []byte("12345"))
	if got, err := Read(f, 5); err != nil || got != "12345" {
		t.Fatalf("Read at the limit = %q, %v; want the text", got, err)
	}
}

func TestValidRel(t *testing.T) {
	tests := []struct {
		rel  string
		want bool
	}{
		{"a.md", true},
		{"notes/2024/a.md", true},
		{".hidden/.a.md", true},
		{"notes/a b (1).md", true},
		{"", false},
		{"/etc/a.md", false},
		{"a.txt", false},
		{"a.md/", false},
		{"a.MD", false},
		{"a\x00.md", false},
		{`notes\a.md`, false},
		{"../a.md", false},
		{"notes/../../a.md", false},
		{"notes/..", false},
		{"./a.md", false},
		{"notes//a.md", false},
		{"notes/./a.md", false},
		{"..md", true}, // a name, not a ".." segment
	}
	for _, tt := range tests {
		if got := ValidRel(tt.rel); got != tt.want {
			t.Errorf("ValidRel(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}
