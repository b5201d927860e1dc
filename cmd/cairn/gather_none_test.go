package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Before the first memory, cairn gather and cairn explore answer with no
// memories and recall's hint, exit 1 as recall does (not 2, a usage
// error), and name no "unknown corpus" nor "gather: gather:" (ux F18).
func TestGatherExploreNoMemoriesYet(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "n.md"), []byte("# Trip\n\nThe museums were closed on Monday.\n"), 0o644)
	c.ok("corpus", "add", "s", notes)
	c.ok("sync")
	const hint = "no memories yet: configure a sessions corpus and run cairn consolidate"
	for _, args := range [][]string{
		{"gather", "how many museums did I visit"},
		{"explore", "museums"},
		{"recall", "museums"},
	} {
		out, errs, code := c.run(args...)
		if code != 1 || !strings.Contains(errs, "cairn: "+args[0]+": "+hint) || strings.Contains(errs, "unknown corpus") ||
			strings.Contains(errs, "gather: gather:") || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and the hint", args[0], code, out, errs)
		}
	}
	// search --corpus memories: no results and the hint, exit 0; beside
	// the notes, the notes answer.
	out, errs, code := c.run("search", "museums", "--corpus", "memories")
	if code != 0 || out != "no results\n" || errs != "cairn: "+hint+"\n" {
		t.Errorf("search --corpus memories: exit %d, stdout %q, stderr %q; want 0, no results and the hint", code, out, errs)
	}
	if out, errs, code := c.run("search", "museums", "--corpus", "memories", "--corpus", "s"); code != 0 || !strings.Contains(out, "n.md") || errs != "" {
		t.Errorf("search --corpus memories --corpus s: exit %d, stdout %q, stderr %q; want the note", code, out, errs)
	}
	out, errs, code = c.run("gather", "how many museums did I visit", "--json")
	var g struct {
		Memories []json.RawMessage `json:"memories"`
		Hint     string            `json:"hint"`
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil || code != 1 || g.Memories == nil || len(g.Memories) != 0 || g.Hint != hint {
		t.Errorf("gather --json: exit %d, %q (%v), stderr %q; want an empty memories list and the hint", code, out, err, errs)
	}
	out, _, code = c.run("explore", "museums", "--json")
	var x struct {
		Found []json.RawMessage `json:"found"`
		Hint  string            `json:"hint"`
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil || code != 1 || len(x.Found) != 0 || x.Hint != hint {
		t.Errorf("explore --json: exit %d, %q (%v); want nothing found and the hint", code, out, err)
	}
	c.ok("remember", "--kind", "fact", "--title", "Museums", "I visited four museums in Oslo.")
	if out := c.ok("gather", "how many museums did I visit"); !strings.Contains(out, "Museums") {
		t.Errorf("gather after remember: %q; want the memory", out)
	}
	if out := c.ok("explore", "museums"); !strings.Contains(out, "Museums") {
		t.Errorf("explore after remember: %q; want the memory", out)
	}
}
