package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// rememberCLI stores a memory with cairn remember --json and returns its id.
func rememberCLI(t *testing.T, c *cli, args ...string) string {
	t.Helper()
	var res struct{ Memory struct{ ID string } }
	out := c.ok(append([]string{"remember", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Memory.ID == "" {
		t.Fatalf("remember %v: %s (%v)", args, out, err)
	}
	return res.Memory.ID
}

// TestCLIGather: without [llm.fast] cairn gather prints the ranked list
// marked unjudged and exits 0.
func TestCLIGather(t *testing.T) {
	c := newCLI(t)
	louvre := rememberCLI(t, c, "--kind", "observation", "--about", "Maya", "--event-date", "2023-06-03", "Maya visited the Louvre museum.")
	orsay := rememberCLI(t, c, "--kind", "observation", "--about", "Maya", "--event-date", "2023-06-10", "Maya visited the Orsay museum.")
	out := c.ok("gather", "How many museums did Maya visit in June 2023?")
	if !strings.Contains(out, "unjudged (no fast model configured)") || !strings.Contains(out, louvre) || !strings.Contains(out, orsay) {
		t.Fatalf("gather: %s", out)
	}
	var res struct {
		Judged   bool
		From     string
		Memories []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(c.ok("gather", "--json", "--kind", "observation", "How many museums did Maya visit in June 2023?")), &res); err != nil ||
		res.Judged || res.From != "2023-06" || len(res.Memories) != 2 {
		t.Fatalf("gather --json: %+v (%v)", res, err)
	}
	if _, errs, code := c.run("gather", "--from", "June", "x"); code != 2 || !strings.Contains(errs, `from "June"`) {
		t.Fatalf("gather --from June: exit %d, %s", code, errs)
	}
}

// TestCLIExplore: cairn explore reaches, through a shared concept, a
// memory its topic's search does not find.
func TestCLIExplore(t *testing.T) {
	c := newCLI(t)
	sign := rememberCLI(t, c, "--kind", "fact", "--title", "Release signing", "--concept", "cosign", "Release artifacts are signed with cosign.")
	rotate := rememberCLI(t, c, "--kind", "procedure", "--title", "Rotate the cosign key", "--concept", "cosign", "Generate a new key pair and upload it to the vault.")
	out := c.ok("explore", "release signing")
	if !strings.Contains(out, "found 1:\n  "+sign) || !strings.Contains(out, rotate) || !strings.Contains(out, "via concept cosign") {
		t.Fatalf("explore: %s", out)
	}
	var res struct{ Found []struct{ ID string } }
	if err := json.Unmarshal([]byte(c.ok("explore", "--json", "--id", rotate)), &res); err != nil || len(res.Found) != 1 || res.Found[0].ID != rotate {
		t.Fatalf("explore --id: %+v (%v)", res, err)
	}
	if _, errs, code := c.run("explore"); code != 2 || !strings.Contains(errs, "explore needs a topic or --id") {
		t.Fatalf("explore without a topic: exit %d, %s", code, errs)
	}
}
