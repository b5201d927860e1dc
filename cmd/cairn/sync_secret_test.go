package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairnmemory/cairn/redact/redacttest"
)

// TestSyncOutputHidesPathSecrets: a Claude Code project folder named after
// a cwd holding a token, with a session and a FIFO in it: neither cairn
// sync nor sync status, in text or JSON, prints the token; the FIFO's
// failure names the redacted key.
func TestSyncOutputHidesPathSecrets(t *testing.T) {
	var secret string
	for _, s := range redacttest.Samples() {
		if s.Kind == "github-token" {
			secret = s.Secret
		}
	}
	c := newCLI(t)
	root := t.TempDir()
	dir := filepath.Join(root, "projects", "-home-dev-"+secret+"-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","sessionId":"s1","uuid":"u1","cwd":"/home/dev/` + secret + `/proj","timestamp":"2026-05-04T09:00:00Z","message":{"role":"user","content":"where is the release checklist?"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "s2.jsonl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	c.ok("corpus", "add", "sessions", "--kind", "sessions", "--source", "claude-code", "--root", "claude-code="+root)
	for _, args := range [][]string{{"sync"}, {"sync", "status"}, {"sync", "--json"}, {"sync", "status", "--json"}} {
		out := c.ok(args...)
		if strings.Contains(out, secret) {
			t.Errorf("cairn %v prints the token:\n%s", args, out)
		}
		if !strings.Contains(out, "-home-dev-[REDACTED:github-token]-proj/s2.jsonl#") {
			t.Errorf("cairn %v does not name the FIFO by its key:\n%s", args, out)
		}
	}
}
