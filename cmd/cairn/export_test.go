package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportEmbeddings maps a few words to three dimensions, so hybrid search
// has something to rank by.
func exportEmbeddings(t *testing.T) *httptest.Server {
	words := map[string]int{"walrus": 0, "ice": 0, "compost": 1, "garden": 1, "release": 2}
	return wordGroupEmbedder(t, "words", words, []float64{0.01, 0.02, 0.03}, nil)
}

// TestCLIExportImport: cairn export of a synced, embedded agent with a
// remembered memory, imported into a new data directory, answers the same
// searches (lexical and hybrid, same scores), the same get ranges and
// memories, without embedding again; a second import is refused (exit 2)
// unless --replace; a broken line is reported with its number.
func TestCLIExportImport(t *testing.T) {
	srv := exportEmbeddings(t)
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Walrus\n\nThe walrus sleeps on the ice.\n\n## More\n\nWalrus tusks.\n"), 0o644)
	os.WriteFile(filepath.Join(notes, "b.md"), []byte("# Garden\n\nMore compost in the garden this spring.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	cfg := filepath.Join(c.home, "config.toml")
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[embedder]\nprovider = \"openai\"\nmodel = \"words\"\nbase_url = %q\n", srv.URL+"/v1")
	f.Close()
	c.ok("sync")
	c.ok("remember", "--kind", "decision", "--title", "Release on Tuesdays", "We release on Tuesdays.")
	file := filepath.Join(t.TempDir(), "agent.cairn.jsonl.gz")
	js := c.ok("export", "--json", file)
	var ex struct {
		Rows   int64
		Counts map[string]int64
	}
	if err := json.Unmarshal([]byte(js), &ex); err != nil || ex.Counts["vectors"] == 0 || ex.Counts["memories"] != 1 || ex.Counts["documents"] != 3 {
		t.Fatalf("export --json: %s (%v)", js, err)
	}
	queries := [][]string{
		{"search", "--json", "--mode", "lexical", "walrus"},
		{"search", "--json", "walrus ice"},
		{"search", "--json", "--corpus", "memories", "when do we release"},
		{"get", "cairn://notes/a.md:3-7"},
		{"memories", "list", "--json"},
	}
	var before []string
	for _, q := range queries {
		before = append(before, c.ok(q...))
	}

	// A second home with the same config: a new, empty data directory.
	home2 := t.TempDir()
	raw, _ := os.ReadFile(cfg)
	os.WriteFile(filepath.Join(home2, "config.toml"), raw, 0o600)
	t.Setenv("CAIRN_HOME", home2)
	c2 := &cli{t: t, home: home2}
	out := c2.ok("import", file)
	if !strings.HasPrefix(out, fmt.Sprintf("imported %d rows into agent default in ", ex.Rows)) {
		t.Fatalf("import: %q", out)
	}
	for i, q := range queries {
		if got := c2.ok(q...); got != before[i] {
			t.Errorf("cairn %v after import:\n%s\nbefore export:\n%s", q, got, before[i])
		}
	}
	var synced struct{ Embedded, PendingEmbeddings int }
	if st := c2.ok("sync", "--json"); json.Unmarshal([]byte(st), &synced) != nil || synced.Embedded+synced.PendingEmbeddings != 0 {
		t.Errorf("sync after import embeds again: %s", st)
	}
	if _, errs, code := c2.run("import", file); code != 2 || !strings.Contains(errs, "--replace") {
		t.Fatalf("second import: exit %d, %q; want 2 naming --replace", code, errs)
	}
	c2.ok("import", "--replace", file)

	// migrate: the same rows into a third data directory, no file.
	third := t.TempDir()
	if out := c2.ok("migrate", "--to", third); !strings.HasPrefix(out, fmt.Sprintf("imported %d rows into agent default in %s", ex.Rows, third)) {
		t.Fatalf("migrate: %q", out)
	}
	if _, errs, code := c2.run("migrate", "--to", third); code != 2 || !strings.Contains(errs, "--replace") {
		t.Fatalf("second migrate: exit %d, %q; want 2 naming --replace", code, errs)
	}

	// A broken line is reported with its number; the rest goes in.
	plain := filepath.Join(t.TempDir(), "agent.jsonl")
	c.t.Setenv("CAIRN_HOME", c.home)
	c.ok("export", plain)
	data, _ := os.ReadFile(plain)
	lines := strings.Split(string(data), "\n")
	n := 0
	for n < len(lines) && !strings.HasPrefix(lines[n], `{"t":"documents"`) {
		n++
	}
	lines[n] = `{"t":"documents","v":["broken"]}`
	os.WriteFile(plain, []byte(strings.Join(lines, "\n")), 0o600)
	t.Setenv("CAIRN_HOME", home2)
	if _, errs, code := c2.run("import", "--replace", plain); code != 2 || !strings.Contains(errs, fmt.Sprintf("line %d:", n+1)) || !strings.Contains(errs, "--partial") {
		t.Fatalf("import of a broken line without --partial: exit %d, %q", code, errs)
	}
	out = c2.ok("import", "--replace", "--partial", plain)
	if want := fmt.Sprintf("left out 1 line:\n  line %d: 1 values for the 7 columns of documents\n", n+1); !strings.HasSuffix(out, want) {
		t.Fatalf("import of a broken line: %q", out)
	}
}

// TestCLIExportBadTarget: export to a directory or into a missing folder
// is refused before anything is read, naming FILE and what it allows.
// Before, export /tmp wrote the whole export into a temporary file in /
// and then failed: "rename /.tmp.tmp-... /tmp: file exists".
func TestCLIExportBadTarget(t *testing.T) {
	c := newCLI(t)
	c.ok("remember", "exports go to a file", "--kind", "fact", "--title", "exports") // something to export
	dir := t.TempDir()
	for _, target := range []string{dir, filepath.Join(dir, "missing", "x.jsonl")} {
		_, stderr, code := c.run("export", target)
		if code != 2 || !strings.Contains(stderr, "export FILE: ") || !strings.Contains(stderr, "allowed: a file") {
			t.Errorf("export %s: exit %d, stderr %q; want 2 naming FILE and what is allowed", target, code, stderr)
		}
	}
}
