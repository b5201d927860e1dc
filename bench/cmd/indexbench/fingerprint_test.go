package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFingerprintRefusedQuery: an index term that the query parser drops
// as a stop word ("some", found in two chunks, so picked as a query) is
// written as refused, and the other queries still get their hits; before,
// the whole fingerprint failed at that query.
func TestFingerprintRefusedQuery(t *testing.T) {
	dir, index := t.TempDir(), filepath.Join(t.TempDir(), "ix")
	for name, text := range map[string]string{
		"a.md": "# One\n\nSome walrus sings.\n",
		"b.md": "# Two\n\nSome walrus swims.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fp := filepath.Join(t.TempDir(), "fp.txt")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-dir", dir, "-index", index, "-noop", "0", "-fingerprint", fp}, &out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"query \"some\" refused\n", "query \"walru\" 2\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("fingerprint lacks %q:\n%s", want, got)
		}
	}
	n := 0
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "chunk ") {
			n++
		}
	}
	if n < 2 {
		t.Errorf("fingerprint has %d chunk lines, want at least 2:\n%s", n, got)
	}
}
