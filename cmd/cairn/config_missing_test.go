package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIMissingNamedConfig: a --config file that does not exist is an
// error naming it (exit 2), never an empty configuration: read as empty,
// sync dropped every indexed note. A hook says so on stderr and still
// exits 0. Only the default location may be absent.
func TestCLIMissingNamedConfig(t *testing.T) {
	c := newCLI(t)
	defer func() { whisperStdin = os.Stdin }()
	notes := t.TempDir()
	os.WriteFile(filepath.Join(notes, "db.md"), []byte("# Database\n\nSet busy_timeout to 5000 ms.\n"), 0o644)
	c.ok("init")
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	nope := filepath.Join(t.TempDir(), "x", "nope.toml")
	for _, args := range [][]string{
		{"sync", "--config", nope},
		{"search", "busy_timeout", "--config", nope},
		{"--config", nope, "corpus", "list"},
		{"whisper", "--config", nope},
	} {
		whisperStdin = strings.NewReader(`{"sessionId":"s","runId":"r1","trigger":"user","prompt":"busy timeout","messages":[]}`)
		out, errs, code := c.run(args...)
		if code != 2 || !strings.Contains(errs, "read config "+nope+": no such file") || out != "" {
			t.Errorf("cairn %v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", args, code, out, errs, nope)
		}
	}
	// The index is untouched: the real config still finds the note.
	if out := c.ok("search", "busy_timeout"); !strings.Contains(out, "db.md") {
		t.Fatalf("search after the refused sync: %q", out)
	}
	// The default location may be absent.
	empty := newCLI(t)
	if out := empty.ok("corpus", "list"); !strings.Contains(out, "no corpus configured") {
		t.Fatalf("corpus list with no default config: %q", out)
	}

	// The hook: exit 0, nothing on stdout, the reason on stderr.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "hooks", "run", "claude-code", "user-prompt-submit", "--config", nope)
	cmd.Env = append(os.Environ(), "CAIRN_TEST_AS_CLI=1", "CAIRN_HOME="+c.home)
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","prompt_id":"p1","hook_event_name":"UserPromptSubmit","prompt":"busy timeout"}`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.Len() != 0 || !strings.Contains(stderr.String(), "read config "+nope+": no such file") {
		t.Fatalf("hook with a missing --config: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}
