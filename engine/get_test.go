package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestGet(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&long, "line %d %s\n", i, strings.Repeat("x", 95))
	}
	f := newFixture(t, map[string]string{
		"short.md":     "one\ntwo\nthree",
		"crlf.md":      "a\r\nb\r\nc\r\n",
		"long.md":      long.String(),
		"huge-line.md": strings.Repeat("é", 20000) + "\nnext\n",
		"sub/deep.md":  "deep\n",
	}, Options{})
	f.sync()
	ctx := context.Background()
	tests := []struct {
		path        string
		from, lines int
		want        cairn.GetResult
	}{
		{"cairn://notes/short.md", 0, 0, cairn.GetResult{Status: "ok", Text: "one\ntwo\nthree", From: 1, Lines: 3}},
		{"cairn://notes/short.md", 2, 1, cairn.GetResult{Status: "ok", Text: "two\n", From: 2, Lines: 1, NextFrom: 3}},
		{"cairn://notes/short.md", 3, 5, cairn.GetResult{Status: "ok", Text: "three", From: 3, Lines: 1}},
		{"  cairn://notes/crlf.md ", 2, 1, cairn.GetResult{Status: "ok", Text: "b\r\n", From: 2, Lines: 1, NextFrom: 3}},
		{"cairn://notes/sub/deep.md", 1, 1, cairn.GetResult{Status: "ok", Text: "deep\n", From: 1, Lines: 1}},
	}
	for _, tt := range tests {
		got, err := f.eng.Get(ctx, tt.path, &cairn.GetOptions{From: tt.from, Lines: tt.lines})
		if err != nil {
			t.Fatalf("Get(%q): %v", tt.path, err)
		}
		tt.want.Path = strings.TrimSpace(tt.path)
		if *got != tt.want {
			t.Errorf("Get(%q, %d, %d) = %+v, want %+v", tt.path, tt.from, tt.lines, *got, tt.want)
		}
	}

	// 300 lines of about 105 chars: 120 lines exceed 12,000 chars, so lines drop.
	got, _ := f.eng.Get(ctx, "cairn://notes/long.md", nil)
	if !got.Truncated || got.Lines >= 120 || got.Lines < 100 || got.NextFrom != got.Lines+1 || len(got.Text) > cairn.MaxGetChars {
		t.Errorf("default window: truncated=%v lines=%d next=%d chars=%d", got.Truncated, got.Lines, got.NextFrom, len(got.Text))
	}
	got, _ = f.eng.Get(ctx, "cairn://notes/long.md", &cairn.GetOptions{From: 1, Lines: 1000})
	if !got.Truncated || got.Lines >= 1000 || got.NextFrom != got.Lines+1 || len(got.Text) > cairn.MaxGetChars {
		t.Errorf("capped window: truncated=%v lines=%d next=%d chars=%d", got.Truncated, got.Lines, got.NextFrom, len(got.Text))
	}
	got, _ = f.eng.Get(ctx, "cairn://notes/huge-line.md", nil)
	if !got.Truncated || got.NextFrom != 0 || len([]rune(got.Text)) != cairn.MaxGetChars {
		t.Errorf("hard cut: truncated=%v next=%d runes=%d", got.Truncated, got.NextFrom, len([]rune(got.Text)))
	}
}

// TestGetPastEnd: a from past the document's last line is an ErrInvalid
// *cairn.PastEndError naming the from, the path and the lines there are
// (before, Get said ok with no text); from at the last line, and a window
// that runs past the end from a line in range, stay ok and return the
// lines there are. An empty document reads as empty text from line 1.
func TestGetPastEnd(t *testing.T) {
	f := newFixture(t, map[string]string{
		"short.md": "one\ntwo\nthree",
		"nl.md":    "one\ntwo\n",
		"empty.md": "",
	}, Options{})
	f.sync()
	ctx := context.Background()
	const short, nl, empty = "cairn://notes/short.md", "cairn://notes/nl.md", "cairn://notes/empty.md"
	ok := func(path, text string, from, lines int) *cairn.GetResult {
		return &cairn.GetResult{Status: cairn.StatusOK, Path: path, Text: text, From: from, Lines: lines}
	}
	past := func(path string, from, total int) *cairn.PastEndError {
		return &cairn.PastEndError{Path: path, From: from, Total: total}
	}
	for _, tt := range []struct {
		path        string
		from, lines int
		want        *cairn.GetResult    // nil: the error
		wantErr     *cairn.PastEndError // nil: ok
	}{
		{short, 3, 0, ok(short, "three", 3, 1), nil},
		{short, 2, 1000, ok(short, "two\nthree", 2, 2), nil},
		{short + ":3-9", 0, 0, ok(short, "three", 3, 1), nil},
		{short, 4, 0, nil, past(short, 4, 3)},
		{short, 9, 5, nil, past(short, 9, 3)},
		{short + ":9", 0, 0, nil, past(short, 9, 3)}, // a range in the path, as search prints hits
		{short + ":4-7", 0, 0, nil, past(short, 4, 3)},
		{short, 1<<53 - 1, 1, nil, past(short, 1<<53-1, 3)},
		{filepath.Join(f.notes, "short.md"), 5, 0, nil, past(short, 5, 3)},
		{nl, 2, 5, ok(nl, "two\n", 2, 1), nil},
		{nl, 3, 0, nil, past(nl, 3, 2)}, // a final newline starts no line
		{empty, 0, 0, ok(empty, "", 1, 0), nil},
		{empty, 1, 1000, ok(empty, "", 1, 0), nil},
		{empty, 2, 0, nil, past(empty, 2, 0)},
	} {
		got, err := f.eng.Get(ctx, tt.path, &cairn.GetOptions{From: tt.from, Lines: tt.lines})
		if tt.wantErr == nil {
			if err != nil || *got != *tt.want {
				t.Errorf("Get(%q, %d, %d) = %+v, %v; want %+v", tt.path, tt.from, tt.lines, got, err, *tt.want)
			}
			continue
		}
		var pe *cairn.PastEndError
		if !errors.As(err, &pe) || !errors.Is(err, cairn.ErrInvalid) || got != nil || *pe != *tt.wantErr {
			t.Errorf("Get(%q, %d, %d) = %+v, %v; want %+v", tt.path, tt.from, tt.lines, got, err, *tt.wantErr)
			continue
		}
		want := fmt.Sprintf("from %d is past the end of %s (%d lines): from must be 1..%d", pe.From, pe.Path, pe.Total, pe.Total)
		if pe.Total == 0 {
			want = fmt.Sprintf("from %d is past the end of %s (0 lines: the document is empty): from must be 1", pe.From, pe.Path)
		}
		if err.Error() != want {
			t.Errorf("Get(%q, %d, %d) error %q, want %q", tt.path, tt.from, tt.lines, err, want)
		}
	}
}

func TestGetNotFound(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "alpha\n", "sub/b.md": "beta\n"}, Options{})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(f.notes, "link.md"))
	os.Symlink(outside, filepath.Join(f.notes, "linkdir"))
	f.sync()
	ctx := context.Background()
	for _, p := range []string{
		"cairn://notes/missing.md",
		"cairn://notes/../a.md",
		"cairn://notes/sub/../a.md",
		"cairn://notes/./a.md",
		"cairn://notes//a.md",
		"cairn://notes/" + filepath.Join(outside, "secret.md"),
		"cairn://notes/link.md",
		"cairn://notes/linkdir/secret.md",
		"cairn://other/a.md",
		"cairn://notes",
		"notes/a.md",
		"/etc/passwd",
		"cairn://notes/a.md\x00",
		"cairn://notes/sub\\b.md",
	} {
		got, err := f.eng.Get(ctx, p, nil)
		if err != nil {
			t.Errorf("Get(%q) error %v, want not_found", p, err)
			continue
		}
		if got.Status != cairn.StatusNotFound || got.Text != "" {
			t.Errorf("Get(%q) = %+v, want not_found", p, got)
		}
	}
	for _, bad := range []struct {
		path string
		opts cairn.GetOptions
	}{
		{"", cairn.GetOptions{}},
		{"cairn://notes/a.md", cairn.GetOptions{From: -1}},
		{"cairn://notes/a.md", cairn.GetOptions{Lines: 1001}},
		{"cairn://notes/a.md", cairn.GetOptions{Lines: -5}},
	} {
		if _, err := f.eng.Get(ctx, bad.path, &bad.opts); !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("Get(%q, %+v) error = %v, want ErrInvalid", bad.path, bad.opts, err)
		}
	}
}

// TestGetSearchForms: Get reads what search prints (a path with its line
// range) and the absolute path of an indexed file (issue 14 item 16).
func TestGetSearchForms(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md":        "one\ntwo\nthree\nfour\nfive\n",
		"sub/b.md":    "beta\n",
		"odd:2-3.md":  "odd name\n",
		"skip/old.md": "old\n",
	}, Options{})
	f.eng.opts.Corpora[0].Exclude = []string{"skip"}
	f.sync()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "c.md"), []byte("not indexed\n"), 0o644)
	ctx := context.Background()
	tests := []struct {
		path        string
		from, lines int
		want        cairn.GetResult // a zero result means not found
	}{
		{"cairn://notes/a.md:2-3", 0, 0, cairn.GetResult{Path: "cairn://notes/a.md", Text: "two\nthree\n", From: 2, Lines: 2, NextFrom: 4}},
		{"cairn://notes/a.md:4", 0, 0, cairn.GetResult{Path: "cairn://notes/a.md", Text: "four\nfive\n", From: 4, Lines: 2}},
		{"cairn://notes/a.md:2-3", 1, 0, cairn.GetResult{Path: "cairn://notes/a.md", Text: "one\ntwo\n", From: 1, Lines: 2, NextFrom: 3}},
		{"cairn://notes/a.md:2-3", 0, 1, cairn.GetResult{Path: "cairn://notes/a.md", Text: "two\n", From: 2, Lines: 1, NextFrom: 3}},
		{"cairn://notes/odd:2-3.md", 0, 0, cairn.GetResult{Path: "cairn://notes/odd:2-3.md", Text: "odd name\n", From: 1, Lines: 1}},
		{filepath.Join(f.notes, "a.md"), 2, 1, cairn.GetResult{Path: "cairn://notes/a.md", Text: "two\n", From: 2, Lines: 1, NextFrom: 3}},
		{filepath.Join(f.notes, "sub", "..", "sub", "b.md"), 0, 0, cairn.GetResult{Path: "cairn://notes/sub/b.md", Text: "beta\n", From: 1, Lines: 1}},
		{"cairn://notes/a.md:x", 0, 0, cairn.GetResult{}},
		{"cairn://notes/missing.md:1-2", 0, 0, cairn.GetResult{}},
		{filepath.Join(outside, "c.md"), 0, 0, cairn.GetResult{}},
		{filepath.Join(f.notes, "skip", "old.md"), 0, 0, cairn.GetResult{}}, // on disk, excluded: never indexed
		{filepath.Join(f.notes, "missing.md"), 0, 0, cairn.GetResult{}},
	}
	for _, tt := range tests {
		got, err := f.eng.Get(ctx, tt.path, &cairn.GetOptions{From: tt.from, Lines: tt.lines})
		if err != nil {
			t.Fatalf("Get(%q): %v", tt.path, err)
		}
		want := tt.want
		if want.Path == "" {
			want = cairn.GetResult{Status: cairn.StatusNotFound, Path: tt.path}
		} else {
			want.Status = cairn.StatusOK
		}
		if *got != want {
			t.Errorf("Get(%q, %d, %d) = %+v, want %+v", tt.path, tt.from, tt.lines, *got, want)
		}
	}
}

// TestGetBadRange: a line range that is no range (line 0, one that ends
// before it starts, a number too large) is an ErrInvalid error naming the
// range and what is allowed, whether the document is indexed or not;
// before, Get answered "not found" for a document that is there. A name
// with a colon and digits in it is still read, and a suffix that is no
// range (":x", ":2-") is part of the name (not found).
func TestGetBadRange(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "one\ntwo\nthree\n", "odd:0.md": "odd name\n"}, Options{})
	f.sync()
	ctx := context.Background()
	for _, tt := range []struct{ path, want string }{
		{"cairn://notes/a.md:10-5", `line range "10-5"`},
		{"cairn://notes/a.md:0", `line range "0"`},
		{"cairn://notes/a.md:0-3", `line range "0-3"`},
		{"cairn://notes/a.md:99999999999999999999", `line range "99999999999999999999"`},
		{"cairn://notes/missing.md:3-2", `line range "3-2"`},
	} {
		got, err := f.eng.Get(ctx, tt.path, nil)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "1 <= from <= to") {
			t.Errorf("Get(%q) = %+v, %v; want ErrInvalid naming %s and what is allowed", tt.path, got, err, tt.want)
		}
	}
	for path, want := range map[string]string{
		"cairn://notes/odd:0.md": cairn.StatusOK,
		"cairn://notes/a.md:x":   cairn.StatusNotFound,
		"cairn://notes/a.md:2-":  cairn.StatusNotFound,
		"cairn://notes/a.md:2":   cairn.StatusOK,
	} {
		got, err := f.eng.Get(ctx, path, nil)
		if err != nil || got.Status != want {
			t.Errorf("Get(%q) = %+v, %v; want status %s", path, got, err, want)
		}
	}
}
