package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncLoggie: --source loggie projects the meeting fixtures, the
// truncated JSON envelope included (kept as its text, not a failure), and
// the meetings are searchable by what was said (issue 22 items 1 and 2).
func TestSyncLoggie(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "loggie")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "loggie", "--root", "loggie="+root)
	out := c.ok("sync")
	if strings.Contains(out, "failed:") || !strings.Contains(out, "loggie") {
		t.Fatalf("sync:\n%s", out)
	}
	if out := c.ok("search", "post holes concrete", "--source", "loggie"); !strings.Contains(out, "Friday morning") {
		t.Errorf("search found no meeting:\n%s", out)
	}
}
