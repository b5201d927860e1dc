package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	c := newCLI(t)
	t.Setenv("CAIRN_TOKEN", "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:7777"} {
		_, stderr, code := c.run("serve", "--addr", addr)
		if code != 2 || !strings.Contains(stderr, "--token-file") || !strings.Contains(stderr, "CAIRN_TOKEN") {
			t.Errorf("serve --addr %s: exit %d, stderr %q; want 2 and how to give a token", addr, code, stderr)
		}
	}
}

func TestServeToken(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	os.WriteFile(good, []byte("  abc123\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	tests := []struct {
		addr, file, env string
		want            string // token, or an error fragment after "error: "
	}{
		{"127.0.0.1:7777", "", "", ""},
		{"localhost:7777", "", "", ""},
		{"[::1]:7777", "", "", ""},
		{"127.0.0.1:7777", "", " envtok ", "envtok"},
		{"0.0.0.0:7777", "", "envtok", "envtok"},
		{"0.0.0.0:7777", good, "envtok", "abc123"},
		{"0.0.0.0:7777", "", "", "error: needs a token"},
		{"example.com:7777", "", "", "error: needs a token"},
		{"0.0.0.0:7777", empty, "", "error: is empty"},
		{"0.0.0.0:7777", filepath.Join(dir, "missing"), "", "error: read token file"},
	}
	for _, tt := range tests {
		got, err := serveToken(tt.addr, tt.file, tt.env)
		if frag, isErr := strings.CutPrefix(tt.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), frag) {
				t.Errorf("serveToken(%q, %q, %q) = %q, %v; want error with %q", tt.addr, tt.file, tt.env, got, err, frag)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("serveToken(%q, %q, %q) = %q, %v; want %q", tt.addr, tt.file, tt.env, got, err, tt.want)
		}
	}
}

func TestServeRefusesUnknownFlag(t *testing.T) {
	c := newCLI(t)
	if _, stderr, code := c.run("serve", "--port", "1"); code != 2 || !strings.Contains(stderr, "port") {
		t.Errorf("serve --port: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := c.run("mcp", "extra"); code != 2 || !strings.Contains(stderr, "no arguments") {
		t.Errorf("mcp extra: exit %d, stderr %q", code, stderr)
	}
}
