package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestAddSessionsCorpus(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := AddSessionsCorpus(path, []string{"claude-code", "aider"}, map[string][]string{"aider": {"/src"}}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CLAUDE_CONFIG_DIR": "/cc1, /cc2"}
	cfg, err := Load(path, &LoadOptions{Home: "/home/u", Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	cs := cfg.ToCorpora()
	if len(cs) != 1 || cs[0].Kind != cairn.KindSessions || len(cs[0].Sources) != 2 {
		t.Fatalf("corpora = %+v", cs)
	}
	if got := cs[0].Sources[0]; got.ID != "claude-code" || len(got.Roots) != 2 || got.Roots[1] != "/cc2" {
		t.Errorf("claude-code roots = %+v; want CLAUDE_CONFIG_DIR's two folders", got)
	}
	if got := cs[0].Sources[1]; got.ID != "aider" || len(got.Roots) != 1 || got.Roots[0] != "/src" {
		t.Errorf("aider = %+v", got)
	}
	if cs[0].MaxExpandedTokens != cairn.DefaultMaxExpandedTokens || cs[0].SyncIntervalMinutes != 60 || cs[0].DropRemoved {
		t.Errorf("defaults = %+v", cs[0])
	}
	if err := AddSessionsCorpus(path, []string{"codex"}, nil); err == nil {
		t.Error("a second sessions corpus was added")
	}
	for _, bad := range [][]string{{}, {"cursorx"}} {
		if err := AddSessionsCorpus(filepath.Join(dir, "other.toml"), bad, nil); err == nil {
			t.Errorf("sources %v accepted", bad)
		}
	}
	if err := AddSessionsCorpus(filepath.Join(dir, "x.toml"), []string{"codex"}, map[string][]string{"aider": {"/a"}}); err == nil {
		t.Error("a root for an unlisted source was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.toml")); err == nil {
		t.Error("a refused add wrote a file")
	}
}

func TestDefaultRoots(t *testing.T) {
	none := func(string) string { return "" }
	tests := []struct {
		source string
		env    map[string]string
		want   []string
	}{
		{"claude-code", nil, []string{"/h/.claude", "/h/.config/claude"}},
		{"claude-code", map[string]string{"XDG_CONFIG_HOME": "/x"}, []string{"/h/.claude", "/x/claude"}},
		{"codex", nil, []string{"/h/.codex"}},
		{"codex", map[string]string{"CODEX_HOME": "/c"}, []string{"/c"}},
		{"openclaw", map[string]string{"OPENCLAW_STATE_DIR": "/o"}, []string{"/o"}},
		{"gemini", nil, []string{"/h/.gemini"}},
		{"aider", nil, nil},
		{"openai-chat", nil, nil},
	}
	for _, tt := range tests {
		getenv := none
		if tt.env != nil {
			getenv = func(k string) string { return tt.env[k] }
		}
		got := DefaultRoots(tt.source, getenv, "/h")
		if len(got) != len(tt.want) {
			t.Errorf("%s %v: %v, want %v", tt.source, tt.env, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s %v: %v, want %v", tt.source, tt.env, got, tt.want)
			}
		}
	}
}
