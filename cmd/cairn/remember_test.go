package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIRemember: cairn remember stores a memory told by cli (or the
// --agent named), found by the next search; a bad flag value exits 2
// naming the flag.
func TestCLIRemember(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Garden\n\nThe tomatoes need compost.\n"), 0o644)
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	out := c.ok("remember", "--kind", "decision", "--title", "Release on Tuesdays", "--cue", "when do we release?",
		"--concept", "release", "We ship releases on Tuesdays after the standup.")
	if !strings.HasPrefix(out, "remembered decision m-") || !strings.Contains(out, "\ntold by cli at ") {
		t.Fatalf("remember: %q", out)
	}
	hits := c.ok("search", "--corpus", "memories", "--json", "when do we release")
	if !strings.Contains(hits, "Release on Tuesdays") {
		t.Fatalf("search after remember: %s", hits)
	}
	var res struct {
		Created    bool
		Provenance string
		Memory     struct {
			ID, Kind  string
			EventDate string `json:"event_date"`
		}
	}
	js := c.ok("remember", "--agent", "claude", "--kind", "observation", "--about", "Maya", "--event-date", "2026-11", "--json", "Maya moved to Lyon.")
	if err := json.Unmarshal([]byte(js), &res); err != nil || !res.Created || !strings.HasPrefix(res.Provenance, "told by claude at ") ||
		res.Memory.Kind != "observation" || res.Memory.EventDate != "2026-11" {
		t.Fatalf("remember --json: %s (%v)", js, err)
	}
	if list := c.ok("memories", "list", "--agent", "claude", "--json"); !strings.Contains(list, res.Memory.ID) {
		t.Fatalf("memories list --agent claude lacks %s: %s", res.Memory.ID, list)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"remember", "--kind", "observation", "--event-date", "soon", "x"}, `--event-date "soon": allowed`},
		{[]string{"remember", "--kind", "fact", "x"}, "remember: --title is required for a fact"},
		{[]string{"remember", "--kind", "preference", "x"}, "remember: --title is required for a preference"},
		{[]string{"remember", "--kind", "observation", "--title", "t", "x"}, "remember: --title is for items, not kind observation"},
		{[]string{"remember", "--kind", "fact", "--title", "t", "--scope", "galaxy", "x"}, `remember: --scope "galaxy": allowed`},
		{[]string{"remember", "--kind", "fact", "--title", "t"}, "remember takes one argument"},
	} {
		if _, errs, code := c.run(bad.args...); code != 2 || !strings.Contains(errs, bad.want) {
			t.Errorf("cairn %v: exit %d, stderr %q; want 2 with %q", bad.args, code, errs, bad.want)
		}
	}
}

// TestRememberCLIError: the library's remember errors name fields; the CLI
// says the flag (or the argument) that sets each.
func TestRememberCLIError(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"remember: title is required for a preference: a short line naming it", "remember: --title is required for a preference: a short line naming it"},
		{"remember: kind is required: allowed fact, observation", "remember: --kind is required: allowed fact, observation"},
		{"remember: summary is required: the memory's text", "remember: the memory's text (the argument) is required: the memory's text"},
		{"remember: importance 1: allowed 2 to 5", "remember: --importance 1: allowed 2 to 5"},
		{"remember: applies_when is for items, not kind observation: leave it out", "remember: --applies-when is for items, not kind observation: leave it out"},
		{"remember: cues[2] is 300 characters: allowed at most 200", "remember: --cue number 3 is 300 characters: allowed at most 200"},
		{"remember: 9 concepts: allowed at most 8", "remember: 9 --concept values: allowed at most 8"},
		{"remember: event_date with start_date or end_date: allowed an event date or a span, not both",
			"remember: --event-date with --start-date or --end-date: allowed an event date or a span, not both"},
		{"remember: titles differ", "remember: titles differ"},
	} {
		if got := rememberCLIError(c.in); got != c.want {
			t.Errorf("rememberCLIError(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
