package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncStatusEnvelopes: the envelope counters of the OpenClaw fixture
// (one sub-agent announce unwrapped, a file and a media attachment
// cleaned) are in sync status, text and JSON, and stay there when the next
// sync reads nothing (issue 22 item 3; they were never filled before).
func TestSyncStatusEnvelopes(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join("..", "..", "ingest", "testdata", "transcripts", "openclaw")
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "openclaw", "--root", "openclaw="+root)
	const want = "openclaw: envelopes: 1 internal messages cleaned, 2 attachments cleaned, 0 messages over the work budget left as they were"
	for _, run := range []string{"first", "unchanged"} {
		c.ok("sync")
		if out := c.ok("sync", "status"); !strings.Contains(out, want) {
			t.Errorf("%s sync: status lacks %q:\n%s", run, want, out)
		}
		var st struct {
			Diagnostics map[string]int `json:"diagnostics"`
			Sources     []struct {
				Diagnostics map[string]int `json:"diagnostics"`
			} `json:"sources"`
		}
		wantJSON := map[string]int{"internalMessagesCleaned": 1, "attachmentsCleaned": 2, "attachmentBudgetSkipped": 0}
		out := c.ok("sync", "status", "--json")
		if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Sources) != 1 {
			t.Fatalf("%s sync: status --json: %v\n%s", run, err, out)
		}
		for _, got := range []map[string]int{st.Diagnostics, st.Sources[0].Diagnostics} {
			if len(got) != 3 || got["internalMessagesCleaned"] != 1 || got["attachmentsCleaned"] != 2 || got["attachmentBudgetSkipped"] != 0 {
				t.Errorf("%s sync: diagnostics %v, want %v", run, got, wantJSON)
			}
		}
	}
}
