package mcpserver

import (
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/engine"
)

// TestStatusOutDiagnostics: memory_sync_status carries the envelope
// counters of a completed sync (SyncCounter was declared and never filled).
func TestStatusOutDiagnostics(t *testing.T) {
	st := &engine.SyncStatus{Status: "completed", Diagnostics: &cairn.EnvelopeCounts{InternalMessagesCleaned: 1, AttachmentsCleaned: 2, AttachmentBudgetSkipped: 3}}
	got := statusOut(st).Diagnostics
	if got == nil || *got != (SyncCounter{InternalMessagesCleaned: 1, AttachmentsCleaned: 2, AttachmentBudgetSkipped: 3}) {
		t.Errorf("diagnostics %+v", got)
	}
	if d := statusOut(&engine.SyncStatus{Status: "completed"}).Diagnostics; d != nil {
		t.Errorf("nothing counted: diagnostics %+v, want none", d)
	}
}
