package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
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

// TestServeToken: the token comes from the file before CAIRN_TOKEN; a
// non-loopback address needs one of at least MinNetworkTokenBytes (rev
// finding 9: "short" and "a" were taken on 0.0.0.0), loopback takes any;
// a token file others can read gives a warning naming chmod 600.
func TestServeToken(t *testing.T) {
	dir := t.TempDir()
	const long = "0123456789abcdef"
	good := filepath.Join(dir, "token")
	os.WriteFile(good, []byte("  "+long+"\n"), 0o600)
	shared := filepath.Join(dir, "shared")
	os.WriteFile(shared, []byte(long+"\n"), 0o644)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("short\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	tests := []struct {
		addr, file, env string
		want            string // token, or an error fragment after "error: "
		warn            string // a fragment of the warning; "" for none
	}{
		{"127.0.0.1:7777", "", "", "", ""},
		{"localhost:7777", "", "", "", ""},
		{"[::1]:7777", "", "", "", ""},
		{"127.0.0.1:7777", "", " envtok ", "envtok", ""},
		{"127.0.0.1:7777", short, "", "short", ""},
		{"0.0.0.0:7777", "", long, long, ""},
		{"0.0.0.0:7777", good, "envtok", long, ""},
		{"0.0.0.0:7777", shared, "", long, "can be read by other users (mode 0644): chmod 600 " + shared},
		{"0.0.0.0:7777", "", "envtok", "error: the token of CAIRN_TOKEN has 6 bytes, a non-loopback address needs at least 16", ""},
		{"0.0.0.0:7777", short, "", "error: the token of --token-file " + short + " has 5 bytes", ""},
		{":7777", "", "a", "error: has 1 bytes", ""},
		{"0.0.0.0:7777", "", "", "error: needs a token", ""},
		{"example.com:7777", "", "", "error: needs a token", ""},
		{"0.0.0.0:7777", empty, "", "error: is empty", ""},
		{"0.0.0.0:7777", filepath.Join(dir, "missing"), "", "error: read token file", ""},
	}
	for _, tt := range tests {
		got, warn, err := serveToken(tt.addr, tt.file, tt.env)
		if frag, isErr := strings.CutPrefix(tt.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), frag) {
				t.Errorf("serveToken(%q, %q, %q) = %q, %v; want error with %q", tt.addr, tt.file, tt.env, got, err, frag)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("serveToken(%q, %q, %q) = %q, %v; want %q", tt.addr, tt.file, tt.env, got, err, tt.want)
		}
		if tt.warn == "" && warn != "" || !strings.Contains(warn, tt.warn) {
			t.Errorf("serveToken(%q, %q, %q) warning %q, want %q", tt.addr, tt.file, tt.env, warn, tt.warn)
		}
	}
}

// TestServeAllowOrigin: --allow-origin takes scheme://host[:port] exactly
// as browsers send it; "null" and "*" (every site) and values no Origin
// header equals (no scheme, a path, a trailing slash, upper case) are
// refused naming the value and what is allowed (rev finding 15: they
// started silently, and "null" opened the API to sandboxed frames).
func TestServeAllowOrigin(t *testing.T) {
	for _, ok := range []string{"https://app.example", "http://192.168.1.5:3000", "http://[::1]:8080", "https://app.example:443"} {
		if err := checkOrigin(ok); err != nil {
			t.Errorf("checkOrigin(%q) = %v, want ok", ok, err)
		}
	}
	for bad, want := range map[string]string{
		"null":                       "every site",
		"*":                          "every site",
		"app.example":                "allowed scheme://host[:port]",
		"http://evil.example/":       "allowed scheme://host[:port]",
		"http://evil.example/x":      "allowed scheme://host[:port]",
		"ftp://app.example":          "allowed scheme://host[:port]",
		"https://u@app.example":      "allowed scheme://host[:port]",
		"https://app.example?":       "allowed scheme://host[:port]",
		"HTTPS://App.Example":        `browsers send "https://app.example"`,
		"http://app.example:0":       `port "0"`,
		"http://*.example":           "a wildcard in the host matches no browser's Origin", // ux F16: it started, allowing only the literal
		"https://*.app.example:8443": "a wildcard in the host",
	} {
		err := checkOrigin(bad)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--allow-origin "+strconv.Quote(bad)) {
			t.Errorf("checkOrigin(%q) = %v, want a usage error naming it and %q", bad, err, want)
		}
	}
	c := newCLI(t)
	if _, stderr, code := c.run("serve", "--addr", "127.0.0.1:0", "--allow-origin", "null"); code != 2 || !strings.Contains(stderr, `--allow-origin "null" refused`) {
		t.Errorf("serve --allow-origin null: exit %d, stderr %q", code, stderr)
	}
}

// TestServeListenIPv4: an IPv4 literal listens on IPv4 alone ("tcp" made
// 0.0.0.0 dual stack) and the address prints as given, with the port the
// listener got (rev finding 10: 0.0.0.0:7777 printed as http://[::]:7777).
func TestServeListenIPv4(t *testing.T) {
	for addr, want := range map[string]string{"0.0.0.0:7777": "tcp4", "127.0.0.1:0": "tcp4", "[::]:7777": "tcp", ":7777": "tcp",
		"localhost:7777": "tcp", "[::ffff:127.0.0.1]:7777": "tcp"} {
		if got := listenNetwork(addr); got != want {
			t.Errorf("listenNetwork(%q) = %s, want %s", addr, got, want)
		}
	}
	ln, err := net.Listen(listenNetwork("127.0.0.1:0"), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for addr, want := range map[string]string{"0.0.0.0:0": "0.0.0.0:" + port, ":0": ":" + port, "[::]:0": "[::]:" + port, "localhost:0": "localhost:" + port} {
		if got := shownAddr(addr, ln.Addr()); got != want {
			t.Errorf("shownAddr(%q, %s) = %q, want %q", addr, ln.Addr(), got, want)
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
