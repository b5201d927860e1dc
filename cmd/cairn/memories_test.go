package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoriesWithDamagedIndex: memories list and show read memory.db
// alone when index.db is damaged, with a warning on stderr that names the
// damage and the remedy (before: both failed with the index's error);
// doctor checks memory.db on its own and says what --repair would do.
func TestMemoriesWithDamagedIndex(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openai-chat")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openai-chat", "--root", "openai-chat="+root)
	c.ok("sync")
	srv := fakeChat(t)
	appendConfig(t, c, fmt.Sprintf("\n[llm.consolidate]\napi = \"openai\"\nbase_url = %q\nmodel = \"test\"\n", srv.URL+"/v1"))
	c.ok("consolidate", "--idle", "0")
	before := c.ok("memories", "list", "--json")

	db := filepath.Join(c.home, "agents", "default", "index.db")
	os.WriteFile(db, bytes.Repeat([]byte("garbage!"), 1000), 0o600)
	out, errs, code := c.run("memories", "list", "--json")
	if code != 0 || out != before {
		t.Fatalf("memories list with index.db damaged: exit %d, stdout %q (want %q), stderr %q", code, out, before, errs)
	}
	if !strings.Contains(errs, "the index is damaged") || !strings.Contains(errs, db) || !strings.Contains(errs, "cairn doctor --repair") {
		t.Errorf("memories list warning: %q", errs)
	}
	var list struct{ Memories []struct{ ID, Title string } }
	json.Unmarshal([]byte(out), &list)
	if len(list.Memories) == 0 {
		t.Fatalf("no memories listed: %s", out)
	}
	m := list.Memories[0]
	out, errs, code = c.run("memories", "show", m.ID)
	if code != 0 || !strings.Contains(out, "# "+m.Title) || !strings.Contains(errs, "the index is damaged") {
		t.Errorf("memories show with index.db damaged: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, errs, code := c.run("memories", "show", "m-nope"); code == 0 || !strings.Contains(errs, "not found") {
		t.Errorf("memories show m-nope: exit %d, stderr %q", code, errs)
	}

	out, _, code = c.run("doctor")
	if code != 1 || !strings.Contains(out, "fix: run cairn doctor --repair to move it aside") ||
		!strings.Contains(out, fmt.Sprintf("memory.db passed quick_check, read on its own: %d memories", len(list.Memories))) {
		t.Errorf("doctor with index.db damaged: exit %d\n%s", code, out)
	}
}
