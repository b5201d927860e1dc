package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn/redact/redacttest"
)

// TestDiagnosticsTranscriptKey: a synced transcript in a project folder
// whose name holds a token (its state stored under the redacted key) does
// not count as waiting for projection.
func TestDiagnosticsTranscriptKey(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	var secret string
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			secret = s.Secret
		}
	}
	data, err := os.ReadFile(filepath.Join(f.sessRoot, "projects", "-home-dev-acme-api", "7f3c2a1e-4b5d-4c6e-8f90-1a2b3c4d5e6f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.sessRoot, "projects", "-home-dev-"+secret+"-proj", "7f3c2a1e-4b5d-4c6e-8f90-000000000000.jsonl"), string(data))
	if _, err := f.eng.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var out DiagnosticsOut
	callOK(t, connect(t, f.agent), ToolDiagnostics, map[string]any{}, &out)
	if n := out.Index.SessionsNeedingProjection; n != 0 {
		t.Errorf("sessionsNeedingProjection %d after a sync, want 0", n)
	}
}
