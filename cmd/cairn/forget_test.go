package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIForget: cairn forget removes a memory cairn remember stored:
// search, recall and memories list no longer show it; an unknown id exits
// 1 naming it, no id exits 2; --json prints the memory forgotten.
func TestCLIForget(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Garden\n\nThe tomatoes need compost.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	var told struct{ Memory struct{ ID string } }
	js := c.ok("remember", "--kind", "fact", "--title", "Deploy key", "--json", "The deploy key lives in the ops vault under deploy-prod.")
	if err := json.Unmarshal([]byte(js), &told); err != nil || told.Memory.ID == "" {
		t.Fatalf("remember --json: %s (%v)", js, err)
	}
	id := told.Memory.ID
	keep := c.ok("remember", "--kind", "fact", "--title", "Vault location", "The ops vault runs on vault-1.")
	if hits := c.ok("search", "--corpus", "memories", "--json", "deploy key ops vault"); !strings.Contains(hits, id) {
		t.Fatalf("search before forget: %s", hits)
	}

	out := c.ok("forget", id)
	if out != "forgot fact "+id+": Deploy key\n" {
		t.Errorf("forget: %q", out)
	}
	if hits := c.ok("search", "--corpus", "memories", "--json", "deploy key ops vault"); strings.Contains(hits, id) || !strings.Contains(hits, "Vault location") {
		t.Errorf("search after forget: %s", hits)
	}
	if r := c.ok("recall", "--json", "deploy key"); strings.Contains(r, id) {
		t.Errorf("recall after forget: %s", r)
	}
	if l := c.ok("memories", "list"); strings.Contains(l, id) || !strings.Contains(l, "Vault location") {
		t.Errorf("memories list after forget: %s (kept: %s)", l, keep)
	}

	_, errs, code := c.run("forget", id)
	if code != 1 || !strings.Contains(errs, `no memory "`+id+`"`) || !strings.Contains(errs, "cairn memories list") {
		t.Errorf("forget again: exit %d, %q", code, errs)
	}
	if _, errs, code := c.run("forget"); code != 2 || !strings.Contains(errs, "one memory ID") {
		t.Errorf("forget without an id: exit %d, %q", code, errs)
	}

	js = c.ok("remember", "--kind", "fact", "--title", "Deploy key", "--json", "The deploy key lives in the ops vault under deploy-prod.")
	var res struct {
		Memory   struct{ ID, Title string }
		Restored []json.RawMessage
		Reduced  []json.RawMessage
	}
	js = c.ok("forget", "--json", id)
	if err := json.Unmarshal([]byte(js), &res); err != nil || res.Memory.ID != id || res.Memory.Title != "Deploy key" || res.Restored == nil || res.Reduced == nil {
		t.Errorf("forget --json: %s (%v)", js, err)
	}
}
