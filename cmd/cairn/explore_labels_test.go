package main

import (
	"strings"
	"testing"
)

// gather and explore print no label with nothing after it: no
// "further searches: " when none ran, no "look next: " without concepts
// (ux F14); with a concept, explore names it.
func TestGatherExploreNoEmptyLabels(t *testing.T) {
	c := newCLI(t)
	c.ok("remember", "--kind", "fact", "--title", "Museums", "I visited four museums in Oslo.")
	out := c.ok("gather", "how many museums did I visit")
	if strings.Contains(out, "further searches") || !strings.Contains(out, "Museums") {
		t.Errorf("gather without further searches:\n%s", out)
	}
	out = c.ok("explore", "museums")
	if strings.Contains(out, "look next") || !strings.Contains(out, "Museums") {
		t.Errorf("explore without concepts:\n%s", out)
	}
	c.ok("remember", "--kind", "fact", "--title", "Oslo trip", "--concept", "oslo", "The Oslo trip was in May.")
	c.ok("remember", "--kind", "fact", "--title", "Oslo museums", "--concept", "oslo", "The Munch museum is in Oslo.")
	if out := c.ok("explore", "--id", strings.Fields(c.ok("recall", "Oslo trip", "--limit", "1"))[0]); !strings.Contains(out, "look next: oslo\n") {
		t.Errorf("explore with a concept that leads out:\n%s", out)
	}
}
