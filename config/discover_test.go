package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

// touch creates the file p (and its folders) with text.
func touch(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// fakeAgents lays out agent homes under dir: Claude Code in home/.claude
// (two transcripts, a sub-agent, CLAUDE.md, two memory files, a memory
// folder's non-Markdown file) and home/.config/claude as a symlink to it;
// Codex both in home/.codex and in a CODEX_HOME elsewhere; OpenClaw in
// home/.openclaw while OPENCLAW_STATE_DIR names a folder that does not
// exist; Gemini in home/.gemini; and an aider history, which has no
// standard place.
func fakeAgents(t *testing.T) (home string, env map[string]string) {
	dir := t.TempDir()
	home = filepath.Join(dir, "home")
	cc := filepath.Join(home, ".claude")
	touch(t, filepath.Join(cc, "projects", "-p1", "a.jsonl"), "{}\n")
	touch(t, filepath.Join(cc, "projects", "-p1", "a", "subagents", "agent-1.jsonl"), "{}\n")
	touch(t, filepath.Join(cc, "projects", "-p2", "b.jsonl"), "{}\n")
	touch(t, filepath.Join(cc, "CLAUDE.md"), "# me\n")
	touch(t, filepath.Join(cc, "projects", "-p1", "memory", "MEMORY.md"), "# p1\n")
	touch(t, filepath.Join(cc, "projects", "-p2", "memory", "notes.md"), "# p2\n")
	touch(t, filepath.Join(cc, "projects", "-p2", "memory", "draft.txt"), "not markdown\n")
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cc, filepath.Join(home, ".config", "claude")); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(home, ".codex", "sessions", "2026", "01", "02", "rollout-old.jsonl"), "{}\n")
	codex := filepath.Join(dir, "codex-home")
	touch(t, filepath.Join(codex, "sessions", "2026", "05", "01", "rollout-1.jsonl"), "{}\n")
	touch(t, filepath.Join(codex, "archived_sessions", "rollout-2.jsonl"), "{}\n")
	touch(t, filepath.Join(home, ".openclaw", "agents", "main", "sessions", "s.jsonl"), "{}\n")
	touch(t, filepath.Join(home, ".gemini", "tmp", "proj", "chats", "session-2026-01-01-abcd1234.jsonl"), "{}\n")
	touch(t, filepath.Join(home, ".aider.chat.history.md"), "# aider\n")
	return home, map[string]string{"CODEX_HOME": codex, "OPENCLAW_STATE_DIR": filepath.Join(dir, "no-openclaw")}
}

func TestDiscover(t *testing.T) {
	home, env := fakeAgents(t)
	cc := filepath.Join(home, ".claude")
	got := Discover(func(k string) string { return env[k] }, home)
	want := Discovery{
		Sources: []FoundSource{
			{ID: cairn.SourceClaudeCode, Roots: []string{cc}, Transcripts: 3},
			{ID: cairn.SourceCodex, Roots: []string{env["CODEX_HOME"]}, Transcripts: 2},
			{ID: cairn.SourceGemini, Roots: []string{filepath.Join(home, ".gemini")}, Transcripts: 1},
		},
		MemoryFiles: []string{
			filepath.Join(cc, "CLAUDE.md"),
			filepath.Join(cc, "projects", "-p1", "memory", "MEMORY.md"),
			filepath.Join(cc, "projects", "-p2", "memory", "notes.md"),
		},
		MemoryPaths: []string{filepath.Join(cc, "CLAUDE.md"), filepath.Join(cc, "projects")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	// CLAUDE_CONFIG_DIR replaces the standard folders, as at load.
	env["CLAUDE_CONFIG_DIR"] = filepath.Join(home, "elsewhere")
	if got := Discover(func(k string) string { return env[k] }, home); got.Sources[0].ID != cairn.SourceCodex || len(got.MemoryPaths) != 0 {
		t.Errorf("with CLAUDE_CONFIG_DIR naming a missing folder: %+v; want no claude-code and no memory files", got)
	}
	if got := Discover(func(string) string { return "" }, t.TempDir()); !got.Empty() {
		t.Errorf("Discover in an empty home = %+v; want nothing", got)
	}
}

func TestAddDiscovered(t *testing.T) {
	home, env := fakeAgents(t)
	found := Discover(func(k string) string { return env[k] }, home)
	path := filepath.Join(t.TempDir(), "config.toml")
	touch(t, path, "# mine\n[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [\"codex\"]\n")

	o, err := found.Offer(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Sources) != 2 || o.Sources[0].ID != cairn.SourceClaudeCode || o.Sources[1].ID != cairn.SourceGemini || len(o.MemoryPaths) != 2 {
		t.Fatalf("Offer = %+v; want claude-code, gemini (codex is configured) and the memory paths", o)
	}
	changed, err := AddDiscovered(path, o, home)
	if err != nil || !cmp.Equal(changed, []string{"sessions", MemoryCorpus}) {
		t.Fatalf("AddDiscovered = %v, %v", changed, err)
	}
	cfg, err := Load(path, &LoadOptions{Home: home, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings %v", cfg.Warnings)
	}
	cc := filepath.Join(home, ".claude")
	sessions, memory := cfg.Corpora[0], cfg.Corpora[1]
	wantSources := []cairn.SourceSpec{
		{ID: cairn.SourceCodex, Roots: []string{env["CODEX_HOME"]}},
		{ID: cairn.SourceClaudeCode, Roots: []string{cc}},
		{ID: cairn.SourceGemini, Roots: []string{filepath.Join(home, ".gemini")}},
	}
	if diff := cmp.Diff(wantSources, sessions.Sources); diff != "" {
		t.Errorf("sessions sources (-want +got):\n%s", diff)
	}
	if memory.Name != MemoryCorpus || memory.Kind != cairn.KindFiles || memory.Glob != MemoryGlob ||
		!cmp.Equal(memory.Paths, []string{filepath.Join(cc, "CLAUDE.md"), filepath.Join(cc, "projects")}) {
		t.Errorf("memory corpus = %+v", memory)
	}
	if o, err := found.Offer(path); err != nil || !o.Empty() {
		t.Errorf("Offer after adding = %+v, %v; want nothing left", o, err)
	}
}

// A home with CLAUDE.md but no memory folders gets a corpus of that one
// file, without the memory glob.
func TestAddDiscoveredClaudeMDOnly(t *testing.T) {
	home := t.TempDir()
	touch(t, filepath.Join(home, ".claude", "CLAUDE.md"), "# me\n")
	found := Discover(func(string) string { return "" }, home)
	path := filepath.Join(t.TempDir(), "config.toml")
	if _, err := AddDiscovered(path, found, home); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, &LoadOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.Corpora[1]
	if m.Glob != cairn.DefaultGlob && m.Glob != "" || !cmp.Equal(m.Paths, []string{filepath.Join(home, ".claude", "CLAUDE.md")}) {
		t.Errorf("memory corpus = %+v; want CLAUDE.md alone, default glob", m)
	}
}
