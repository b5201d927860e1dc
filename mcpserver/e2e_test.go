package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests run the real binary: cairn mcp over stdio and cairn serve
// over HTTP, with the Go SDK's client and, when Node.js and the npm
// packages of testdata/e2e are installed, the official TypeScript client.
// CI installs them (.ci/run) and sets CAIRN_REQUIRE_E2E=1, which turns a
// missing Node.js into a failure instead of a skip.

const e2eDir = "testdata/e2e"

// cairnHome builds cairn and a CAIRN_HOME with a notes corpus and a
// Claude Code sessions corpus, synced once. It returns the binary and the
// environment to run it with.
func cairnHome(t *testing.T) (bin string, env []string) {
	t.Helper()
	dir := t.TempDir()
	bin = buildCairn(t)
	home, notes, sessions := filepath.Join(dir, "home"), filepath.Join(dir, "notes"), filepath.Join(dir, "claude")
	for name, text := range topics {
		write(t, filepath.Join(notes, name), text)
	}
	for i := range 16 {
		write(t, filepath.Join(notes, fmt.Sprintf("filler-%02d.md", i)), fmt.Sprintf("# Filler %d\n\nRoutine entry %d about the garden.\n", i, i))
	}
	copyTree(t, "../ingest/testdata/transcripts/claude-code", sessions)
	write(t, filepath.Join(home, "config.toml"), fmt.Sprintf(`[[corpus]]
name = "notes"
kind = "files"
paths = [%q]

[[corpus]]
name = "sessions"
kind = "sessions"
sources = [{id = "claude-code", root = %q}]
chatTypes = ["direct", "group", "channel"]
syncIntervalMinutes = 0
`, notes, sessions))
	env = append(os.Environ(), "CAIRN_HOME="+home, "CAIRN_TOKEN=")
	sync := exec.Command(bin, "sync")
	sync.Env = env
	if out, err := sync.CombinedOutput(); err != nil {
		t.Fatalf("cairn sync: %v\n%s", err, out)
	}
	return bin, env
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// buildCairn builds the binary once per test run.
func buildCairn(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "cairn")
		out, err := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", builtBin, "../cmd/cairn").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build cairn: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// TestStdioProcess spawns cairn mcp and talks to it with the Go SDK's
// client: any stray byte on stdout would break the protocol.
func TestStdioProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the cairn binary")
	}
	bin, env := cairnHome(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %s)", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 17 {
		t.Fatalf("list tools: %v %v", err, tools)
	}
	var hits SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "busy timeout"}, &hits)
	if len(hits.Results) == 0 || hits.Results[0].Path != "cairn://notes/db.md" {
		t.Errorf("search: %+v", hits)
	}
	for _, p := range traversalPaths {
		var out GetOut
		callOK(t, cs, ToolGet, map[string]any{"path": p}, &out)
		if out.Status != "not_found" {
			t.Errorf("get %q: %+v, want not_found", p, out)
		}
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v (stderr %s)", err, stderr.String())
	}
}

// TestStdioProcessBadLines writes malformed lines to a real cairn mcp:
// each gets its JSON-RPC error on stdout, the valid requests after them
// succeed, and the process stays up until stdin closes, then exits 0.
func TestStdioProcessBadLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the cairn binary")
	}
	bin, env := cairnHome(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	s := &rawSession{t: t, in: stdin, replies: readLines(stdout)}
	exchange := func(line, wantID string, wantCode int) reply {
		t.Helper()
		s.send(line)
		r := s.recv()
		code := 0
		if r.Error != nil {
			code = r.Error.Code
		}
		if string(r.ID) != wantID || code != wantCode {
			t.Errorf("%.40q: reply id %s error %+v, want id %s code %d", line, r.ID, r.Error, wantID, wantCode)
		}
		return r
	}
	exchange("garbage", "null", codeParseError)
	exchange("{}", "null", codeInvalidRequest)
	exchange("\x00\x01\xfe\xff", "null", codeParseError)
	exchange(`{"jsonrpc":"2.0","id":7}`, "7", codeInvalidRequest)
	exchange(`{"jsonrpc":"2.0","id":8,"method":"ping","params":{"pad":"`+strings.Repeat("x", 2<<20)+`"}}`, "null", codeInvalidRequest)
	exchange(initializeLine, "1", 0)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2", 0)
	if !strings.Contains(string(r.Result), ToolSearch) {
		t.Errorf("tools/list: %.200s", r.Result)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("cairn mcp after stdin closed: %v, want exit 0 (stderr %s)", err, stderr.String())
	}
}

// serveProcess starts cairn serve on a free loopback port with a token and
// returns its base URL. Cleanup interrupts it and requires a clean exit.
func serveProcess(t *testing.T, bin string, env []string, token string) string {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	write(t, tokenFile, token+"\n")
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--token-file", tokenFile)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	var url string
	for lines.Scan() {
		if _, rest, ok := strings.Cut(lines.Text(), " on http://"); ok {
			url = "http://" + strings.Fields(rest)[0]
			break
		}
	}
	if url == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("cairn serve did not say where it listens")
	}
	go io.Copy(io.Discard, stderr)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("cairn serve after SIGTERM: %v, want a clean exit", err)
		}
	})
	return url
}

func TestServeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the cairn binary")
	}
	bin, env := cairnHome(t)
	url := serveProcess(t, bin, env, "tok-123")
	for _, tt := range []struct {
		auth   string
		status int
	}{{"", 401}, {"Bearer wrong", 401}, {"Bearer tok-123", 200}} {
		req, _ := http.NewRequest("GET", url+"/v1/diagnostics", nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("GET /v1/diagnostics with %q: %d, want %d", tt.auth, resp.StatusCode, tt.status)
		}
	}
}

// node returns the node binary when it and the npm packages are present;
// otherwise it skips, or fails when CAIRN_REQUIRE_E2E=1.
func node(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not on PATH"
	default:
		if _, err := os.Stat(filepath.Join(e2eDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
			missing = "the npm packages are not installed"
		}
	}
	if missing == "" {
		return path
	}
	msg := fmt.Sprintf("TypeScript MCP client end-to-end test: %s (install Node.js 18+ and run npm ci in mcpserver/%s)", missing, e2eDir)
	testshared.SkipOrFail(t, "E2E", msg)
	return ""
}

// TestTypeScriptClient runs testdata/e2e/e2e.mjs: the official TypeScript
// client spawns cairn mcp over stdio, lists the tools and calls each; then
// it connects to cairn serve over HTTP with the token, and without it
// (401).
func TestTypeScriptClient(t *testing.T) {
	nodeBin := node(t)
	bin, env := cairnHome(t)
	run := func(t *testing.T, args ...string) {
		t.Helper()
		cmd := exec.Command(nodeBin, append([]string{"e2e.mjs"}, args...)...)
		cmd.Dir, cmd.Env = e2eDir, env
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil || !strings.Contains(string(out), "\nPASS\n") {
			t.Fatalf("node e2e.mjs %s: %v", args[0], err)
		}
	}
	t.Run("stdio", func(t *testing.T) { run(t, "stdio", bin) })
	t.Run("http", func(t *testing.T) {
		url := serveProcess(t, bin, env, "e2e-token")
		run(t, "http", url+"/mcp", "e2e-token")
	})
}

// firstUseHome is a CAIRN_HOME that no `cairn sync` ever touched: a notes
// corpus holding the topics (none when empty), and with brokenEmbedder an
// ONNX embedder whose runtime library is missing, as under an MCP client
// that does not pass the shell's CAIRN_ONNXRUNTIME_LIB.
func firstUseHome(t *testing.T, empty, brokenEmbedder bool) (home, notes string, env []string) {
	t.Helper()
	dir := t.TempDir()
	home, notes = filepath.Join(dir, "home"), filepath.Join(dir, "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	if !empty {
		for name, text := range topics {
			write(t, filepath.Join(notes, name), text)
		}
	}
	model := "../../shared/models/use-lite" // a real model: only the library is missing
	if _, err := os.Stat(filepath.Join(model, "model.onnx")); err != nil {
		model = filepath.Join(dir, "no-model")
	}
	model, _ = filepath.Abs(model)
	config := fmt.Sprintf("[[corpus]]\nname = \"notes\"\nkind = \"files\"\npaths = [%q]\n", notes)
	if brokenEmbedder {
		config += fmt.Sprintf("\n[embedder]\nprovider = \"onnx\"\nmodel = %q\n", model)
	}
	write(t, filepath.Join(home, "config.toml"), config)
	env = append(os.Environ(), "CAIRN_HOME="+home, "CAIRN_TOKEN=", "CAIRN_ONNXRUNTIME_LIB=")
	return home, notes, env
}

// TestTypeScriptFirstUse follows docs/mcp.md as a new user does (issue
// 14 items 3 to 5): `cairn mcp --agent claude` with no sync run, an
// embedder that cannot load, then a note written while it runs; an empty
// index; a damaged index.db. The official client sees answers, never a
// closed connection.
func TestTypeScriptFirstUse(t *testing.T) {
	nodeBin := node(t)
	bin := buildCairn(t)
	run := func(t *testing.T, env []string, args ...string) {
		t.Helper()
		cmd := exec.Command(nodeBin, append([]string{"e2e.mjs"}, args...)...)
		cmd.Dir, cmd.Env = e2eDir, env
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil || !strings.Contains(string(out), "\nPASS\n") {
			t.Fatalf("node e2e.mjs %s: %v", args[0], err)
		}
	}
	t.Run("firstuse", func(t *testing.T) {
		_, notes, env := firstUseHome(t, false, true)
		run(t, env, "firstuse", bin, notes)
	})
	t.Run("empty", func(t *testing.T) {
		_, _, env := firstUseHome(t, true, true)
		run(t, env, "empty", bin)
	})
	t.Run("damaged", func(t *testing.T) {
		home, _, env := firstUseHome(t, false, true)
		db := filepath.Join(home, "agents", "claude", "index.db")
		write(t, db, strings.Repeat("this is not a database ", 400))
		run(t, env, "damaged", bin, db)
	})
}

// TestStdioProcessBesideCLISync runs `cairn sync` for the same agent while
// cairn mcp runs its first sync and watcher syncs of notes being written:
// the sync lock is taken around each sync, never for the server's life,
// so every CLI sync finishes and the server goes on answering.
func TestStdioProcessBesideCLISync(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the cairn binary")
	}
	bin := buildCairn(t)
	_, notes, env := firstUseHome(t, false, false)
	for i := range 300 {
		write(t, filepath.Join(notes, "bulk", fmt.Sprintf("n%03d.md", i)), fmt.Sprintf("# Note %d\n\nEntry %d of the bulk import.\n", i, i))
	}
	cmd := exec.Command(bin, "mcp", "--agent", "claude")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %s)", err, stderr.String())
	}
	done := make(chan error, 3)
	for i := range 3 {
		go func() {
			write(t, filepath.Join(notes, fmt.Sprintf("while-%d.md", i)), fmt.Sprintf("# While %d\n\nThe zebu%d grazes.\n", i, i))
			sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			c := exec.CommandContext(sctx, bin, "sync", "--agent", "claude")
			c.Env = env
			out, err := c.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("cairn sync: %v\n%s", err, out)
			}
			done <- err
		}()
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	var hits SearchOut
	callOK(t, cs, ToolSearch, map[string]any{"query": "zebu2 grazes", "minScore": 0}, &hits)
	if len(hits.Results) == 0 || hits.Results[0].Path != "cairn://notes/while-2.md" {
		t.Errorf("search after the CLI syncs: %+v", hits)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v (stderr %s)", err, stderr.String())
	}
}
