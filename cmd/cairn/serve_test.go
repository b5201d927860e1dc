package main

import (
	"bytes"
	"context"
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

// TestServeRefusesBadLimits: serve's address and limit flags are checked
// before anything opens, each error naming the flag and what it allows.
// Before, --request-timeout 0s started a server whose http.Server read
// without a deadline and cut every response after 10 s, --max-body -1 and
// a negative shutdown wait were taken silently, and --addr nonsense was
// refused as "a non-loopback address". The context is cancelled, so a
// flag taken by mistake makes serve return at once instead of serving.
func TestServeRefusesBadLimits(t *testing.T) {
	newCLI(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct{ flag, value, want string }{
		{"--request-timeout", "0s", "allowed 1ms to 24h0m0s"},
		{"--request-timeout", "-5s", "allowed 1ms to 24h0m0s"},
		{"--shutdown-timeout", "-1s", "allowed 0 to 24h0m0s"},
		{"--max-body", "-1", "allowed 1 to 1073741824 bytes"},
		{"--max-body", "0", "allowed 1 to 1073741824 bytes"},
		{"--addr", "nonsense", "allowed HOST:PORT"},
	} {
		var out, errb bytes.Buffer
		code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", tt.flag, tt.value}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tt.flag) || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("serve %s %s: exit %d, stderr %q; want 2 naming %s and %q", tt.flag, tt.value, code, errb.String(), tt.flag, tt.want)
		}
	}
}
