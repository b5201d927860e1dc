package engine

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestGetAbsoluteWithLine: an indexed file's absolute path takes the
// :<line> and :<from>-<to> suffixes a cairn:// path takes; a file that is
// not indexed stays not found with or without one.
func TestGetAbsoluteWithLine(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "one\ntwo\nthree\nfour\n"}, Options{})
	f.sync()
	ctx := context.Background()
	abs := filepath.Join(f.notes, "a.md")
	tests := []struct {
		path string
		opts cairn.GetOptions
		want cairn.GetResult
	}{
		{abs + ":3", cairn.GetOptions{}, cairn.GetResult{Status: "ok", Path: "cairn://notes/a.md", Text: "three\nfour\n", From: 3, Lines: 2}},
		{abs + ":2-3", cairn.GetOptions{}, cairn.GetResult{Status: "ok", Path: "cairn://notes/a.md", Text: "two\nthree\n", From: 2, Lines: 2, NextFrom: 4}},
		{abs + ":2-3", cairn.GetOptions{From: 1, Lines: 1}, cairn.GetResult{Status: "ok", Path: "cairn://notes/a.md", Text: "one\n", From: 1, Lines: 1, NextFrom: 2}},
		{filepath.Join(f.notes, "missing.md") + ":3", cairn.GetOptions{}, cairn.GetResult{Status: cairn.StatusNotFound, Path: filepath.Join(f.notes, "missing.md") + ":3"}},
		{filepath.Join(t.TempDir(), "a.md") + ":1", cairn.GetOptions{}, cairn.GetResult{Status: cairn.StatusNotFound, Path: ""}},
	}
	for i, tt := range tests {
		got, err := f.eng.Get(ctx, tt.path, &tt.opts)
		if err != nil {
			t.Fatalf("Get(%q): %v", tt.path, err)
		}
		if tt.want.Path == "" {
			tt.want.Path = tt.path
		}
		if *got != tt.want {
			t.Errorf("%d: Get(%q, %+v) = %+v, want %+v", i, tt.path, tt.opts, *got, tt.want)
		}
	}
	if _, err := f.eng.Get(ctx, abs+":0", nil); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("Get(%q) error = %v, want ErrInvalid naming the range", abs+":0", err)
	}
}
