package mcpserver

import (
	"context"
	"strings"
	"testing"
)

// TestGetBadRangeSaysPathOnce: memory_get of a line range that is none
// names the path once (it said "get P: get P: line range ..." before).
func TestGetBadRangeSaysPathOnce(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	_, err := f.agent.Get(context.Background(), GetIn{Path: "cairn://notes/long.md:5-1"})
	if err == nil || strings.Count(err.Error(), "cairn://notes/long.md") != 1 || !strings.Contains(err.Error(), `line range "5-1"`) {
		t.Fatalf("error = %v; want the path once and the range", err)
	}
}
