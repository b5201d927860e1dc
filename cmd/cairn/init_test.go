package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/config"
)

// agentHome makes a fake HOME with Claude Code's transcripts (the ingest
// fixture) and memory files in ~/.claude, Codex's fixture in a CODEX_HOME
// outside it, and the variables set so that nothing else is found.
func agentHome(t *testing.T) (home, codex string) {
	t.Helper()
	dir := t.TempDir()
	home = filepath.Join(dir, "home")
	codex = filepath.Join(dir, "codex")
	fixtures := filepath.Join("..", "..", "ingest", "testdata", "transcripts")
	if err := os.CopyFS(filepath.Join(home, ".claude"), os.DirFS(filepath.Join(fixtures, "claude-code"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(codex, os.DirFS(filepath.Join(fixtures, "codex"))); err != nil {
		t.Fatal(err)
	}
	write := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "CLAUDE.md"), "# Preferences\n\nAlways answer in zebrafish units.\n")
	write(filepath.Join(home, ".claude", "projects", "-home-dev-acme-api", "memory", "MEMORY.md"), "# acme-api\n\nThe quokka deploy runs on Fridays.\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", codex)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "OPENCLAW_STATE_DIR", "GEMINI_DATA_DIR"} {
		t.Setenv(k, "")
	}
	return home, codex
}

// answer makes init's input text, read as a terminal when tty is set.
func answer(t *testing.T, text string, tty bool) {
	old := initInput
	initInput = func() (io.Reader, bool) { return strings.NewReader(text), tty }
	t.Cleanup(func() { initInput = old })
}

func configText(t *testing.T, c *cli) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestInitDiscover: off a terminal init only lists what it found; with
// --discover it writes the corpora, and sync then indexes the fake
// transcripts and memory files.
func TestInitDiscover(t *testing.T) {
	home, codex := agentHome(t)
	c := newCLI(t)
	answer(t, "", false)

	out := c.ok("init")
	for _, want := range []string{"claude-code    " + filepath.Join(home, ".claude") + " (2 transcripts)", "codex          " + codex + " (3 transcripts)",
		"claude-memory  2 Claude Code memory files", "run cairn init --discover"} {
		if !strings.Contains(out, want) {
			t.Errorf("init off a terminal: output lacks %q:\n%s", want, out)
		}
	}
	if got := configText(t, c); got != config.Template {
		t.Fatalf("init off a terminal changed the config:\n%s", got)
	}

	var res initJSON
	if err := json.Unmarshal([]byte(c.ok("init", "--discover", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Added, []string{"sessions", config.MemoryCorpus}) || len(res.Found.Sources) != 2 || len(res.New.MemoryFiles) != 2 {
		t.Fatalf("init --discover --json = %+v", res)
	}
	var sync struct {
		Corpora []struct {
			Name     string
			Added    int
			Failed   int
			Sessions *struct {
				Sources []struct {
					Source    string
					Projected int
					Failed    int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(c.ok("sync", "--json")), &sync); err != nil {
		t.Fatal(err)
	}
	added := map[string]int{}
	for _, k := range sync.Corpora {
		added[k.Name] = k.Added - k.Failed
		if k.Sessions == nil {
			continue
		}
		for _, s := range k.Sessions.Sources {
			added[s.Source] = s.Projected - s.Failed
		}
	}
	for name, want := range map[string]int{"sessions": 5, config.MemoryCorpus: 2, "claude-code": 2, "codex": 3} { // codex: the two eras and a fork
		if added[name] != want {
			t.Errorf("sync indexed %d of %s; want %d (all %v)", added[name], name, want, added)
		}
	}
	for _, q := range [][]string{
		{"flaky login test", "--source", "claude-code"},
		{"TestRefreshToken", "--source", "codex"},
		{"zebrafish", "--corpus", config.MemoryCorpus},
		{"quokka", "--corpus", config.MemoryCorpus},
	} {
		out := c.ok(append(append([]string{"search"}, q...), "--json")...)
		if !strings.Contains(out, `"path":"cairn://`) {
			t.Errorf("search %v after init --discover: %s", q, out)
		}
	}

	before := configText(t, c)
	out = c.ok("init", "--discover")
	if !strings.Contains(out, "all of it is configured already") || configText(t, c) != before {
		t.Errorf("second init --discover: %s\nconfig changed: %v", out, configText(t, c) != before)
	}
}

// TestInitPrompt: on a terminal init asks once; Enter accepts, n or the
// end of input declines; --no-discover and --json do not ask.
func TestInitPrompt(t *testing.T) {
	agentHome(t)
	for _, tt := range []struct {
		name, input string
		args        []string
		asked, add  bool
	}{
		{"enter", "\n", nil, true, true},
		{"yes after a bad answer", "maybe\nY\n", nil, true, true},
		{"no", "n\n", nil, true, false},
		{"end of input", "", nil, true, false},
		{"no-discover", "\n", []string{"--no-discover"}, false, false},
		{"json", "\n", []string{"--json"}, false, false},
		{"discover", "n\n", []string{"--discover"}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			answer(t, tt.input, true)
			out, stderr, code := c.run(append([]string{"init"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if asked := strings.Contains(stderr, "[Y/n]"); asked != tt.asked {
				t.Errorf("asked = %v; want %v (stderr %q)", asked, tt.asked, stderr)
			}
			if added := configText(t, c) != config.Template; added != tt.add {
				t.Errorf("config changed = %v; want %v\n%s", added, tt.add, out)
			}
			if slices.Contains(tt.args, "--no-discover") && strings.Contains(out, "found") {
				t.Errorf("--no-discover still looked: %s", out)
			}
		})
	}
	c := newCLI(t)
	if _, stderr, code := c.run("init", "--discover", "--no-discover"); code != 2 || !strings.Contains(stderr, "exclude each other") {
		t.Errorf("--discover --no-discover: exit %d, %q; want 2", code, stderr)
	}
}

// An existing config that does not load is kept, as before discovery:
// plain init warns and exits 0; --discover fails naming the line.
func TestInitBrokenConfig(t *testing.T) {
	agentHome(t)
	c := newCLI(t)
	answer(t, "\n", true)
	broken := "[[corpus]]\nname = \"x\"\n"
	if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := c.run("init")
	if code != 0 || !strings.Contains(out, "kept existing") || !strings.Contains(stderr, "not offering") {
		t.Errorf("init on a broken config: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	_, stderr, code = c.run("init", "--discover")
	if code != 2 || !strings.Contains(stderr, "config.toml:") {
		t.Errorf("init --discover on a broken config: exit %d, stderr %q; want 2 naming the line", code, stderr)
	}
	if configText(t, c) != broken {
		t.Errorf("the broken config was rewritten")
	}
}
