package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportKeepsSessionCopies: an export imported into another home
// writes the session copies back, so the first sync there keeps the
// sessions whose transcripts are gone, as the home they came from does
// (ux U26: the import wrote index.db and memory.db only, and that sync
// said "removed 2" and search found nothing).
func TestImportKeepsSessionCopies(t *testing.T) {
	transcripts := t.TempDir()
	fixtures := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if b, err := os.ReadFile(filepath.Join(fixtures, en.Name())); err == nil {
			os.WriteFile(filepath.Join(transcripts, en.Name()), b, 0o644)
		}
	}
	c := newCLI(t)
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+transcripts)
	c.ok("sync")
	export := filepath.Join(t.TempDir(), "exp.jsonl")
	c.ok("export", export)
	os.RemoveAll(transcripts) // gone, as Claude Code's are after 30 days
	if hits := c.ok("search", "metric units", "--json"); !strings.Contains(hits, "cairn://sessions/") {
		t.Fatalf("the first home lost the session: %s", hits)
	}

	home2 := t.TempDir()
	t.Setenv("CAIRN_HOME", home2)
	cfg, _ := os.ReadFile(filepath.Join(c.home, "config.toml"))
	os.WriteFile(filepath.Join(home2, "config.toml"), cfg, 0o600)
	out := c.ok("import", export)
	if !strings.Contains(out, "session cop") {
		t.Errorf("import output says nothing of the session copies:\n%s", out)
	}
	sync := c.ok("sync")
	if hits := c.ok("search", "metric units", "--json"); !strings.Contains(hits, "cairn://sessions/") {
		t.Errorf("after import and sync the session is gone: %s\nsync:\n%s", hits, sync)
	}
}
