package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/internal/testshared"
)

// TestSearchExplainSessionHits: --explain's text output explains session
// hits as it does notes' (a new user's try: only --json --explain had it
// for sessions).
func TestSearchExplainSessionHits(t *testing.T) {
	c := newCLI(t)
	ccRoot := t.TempDir()
	fixture := filepath.Join(testshared.Dir(t, "fixtures/transcripts/claude-code"), "fixtures", "transcripts", "claude-code")
	if err := os.CopyFS(ccRoot, os.DirFS(fixture)); err != nil {
		t.Fatalf("copy the fixture transcripts: %v", err)
	}
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "claude-code", "--root", "claude-code="+ccRoot)
	c.ok("sync")
	out := c.ok("search", "login test fails", "--explain", "--limit", "3", "--min-score", "0")
	if !strings.Contains(out, "    session ") {
		t.Fatalf("no session hit to explain:\n%s", out)
	}
	// Every hit block (a blank line after each) has its explain line.
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		if !strings.Contains(block, "\n    explain: ") {
			t.Errorf("a hit without its explain line:\n%s", block)
		}
	}
}
