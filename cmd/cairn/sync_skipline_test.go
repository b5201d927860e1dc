package main

import (
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestSkippedRecordsLine: a source's skipped records are one line, reasons
// sorted with their counts (ux U22: one line a reason, nine on a first
// sync of the fixtures, in map order).
func TestSkippedRecordsLine(t *testing.T) {
	for _, tt := range []struct {
		skipped map[string]int
		want    string
	}{
		{nil, ""},
		{map[string]int{"system message": 1}, "openclaw: 1 record skipped: system message 1"},
		{map[string]int{"event model_change": 1, "event custom": 2, "no text": 1}, "openclaw: 4 records skipped: event custom 2, event model_change 1, no text 1"},
	} {
		if got := skippedRecordsLine(cairn.SourceSyncStats{Source: "openclaw", LinesSkipped: tt.skipped}); got != tt.want {
			t.Errorf("skippedRecordsLine(%v) = %q, want %q", tt.skipped, got, tt.want)
		}
	}
}
