package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadWarnsOverlappingCorpora: two files corpora that can take the
// same file are a warning at load, naming both and the folder; corpora that
// cannot are not (issue 14 item 9).
func TestLoadWarnsOverlappingCorpora(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"notes/work", "notes/archive", "other"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "notes", "todo.md"), []byte("x\n"), 0o644)
	table := func(name, body string) string {
		return "[[corpus]]\nname = \"" + name + "\"\nkind = \"files\"\n" + body + "\n"
	}
	tests := []struct {
		name string
		a, b string // bodies of two corpora
		want string // the folder a warning names; "" means no warning
	}{
		{"same folder", `paths = ["notes"]`, `paths = ["notes"]`, "notes"},
		{"nested folder", `paths = ["notes"]`, `paths = ["notes/work"]`, "notes/work"},
		{"outer one nested", `paths = ["notes/work"]`, `paths = ["notes"]`, "notes/work"},
		{"nested, excluded by the outer", `paths = ["notes"]` + "\nexclude = [\"work\"]", `paths = ["notes/work"]`, ""},
		{"outer glob cannot reach", `paths = ["notes"]` + "\nglob = \"archive/**/*.md\"", `paths = ["notes/work"]`, ""},
		{"other extensions", `paths = ["notes"]`, `paths = ["notes"]` + "\nglob = \"**/*.txt\"", ""},
		{"a file inside the folder", `paths = ["notes"]`, `paths = ["notes/todo.md"]`, "notes/todo.md"},
		{"a file the glob skips", `paths = ["notes"]` + "\nglob = \"work/*.md\"", `paths = ["notes/todo.md"]`, ""},
		{"a glob path inside", `paths = ["notes"]`, `paths = ["notes/work/*.md"]`, "notes/work"},
		{"separate folders", `paths = ["notes"]`, `paths = ["other"]`, ""},
	}
	for _, tt := range tests {
		path := writeConfig(t, dir, table("a", tt.a)+"\n"+table("b", tt.b)+
			"\n[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [{id = \"codex\", root = \"notes\"}]\n")
		cfg, err := Load(path, nil)
		if err != nil {
			t.Fatalf("%s: Load: %v", tt.name, err)
		}
		if tt.want == "" {
			if len(cfg.Warnings) != 0 {
				t.Errorf("%s: warnings %q, want none", tt.name, cfg.Warnings)
			}
			continue
		}
		if len(cfg.Warnings) != 1 {
			t.Fatalf("%s: warnings %q, want one", tt.name, cfg.Warnings)
		}
		w := cfg.Warnings[0]
		for _, part := range []string{path, `"a" (line 1)`, `"b" (line`, filepath.Join(dir, tt.want) + ":", "indexed and returned twice"} {
			if !strings.Contains(w, part) {
				t.Errorf("%s: warning %q lacks %q", tt.name, w, part)
			}
		}
	}
}

// TestLoadWarnsWhispererWithoutModels: [memoryWhisperer] enabled = true
// with no judge or query model loads, with a warning naming what is
// missing; with both configured, none.
func TestLoadWarnsWhispererWithoutModels(t *testing.T) {
	const mw = "[memoryWhisperer]\nenabled = true\ncorpora = [\"memories\"]\n"
	const fast = "[llm.fast]\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"m\"\n"
	const judgeOnly = "[llm.judge]\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"j\"\n"
	const qm = "[memoryWhisperer.queryModel]\nendpoint = \"http://127.0.0.1:8080/v1\"\nmodel = \"q\"\n"
	tests := []struct {
		name, text string
		want       []string // parts of the one warning; nil: no warning
	}{
		{"no models", mw, []string{"[memoryWhisperer] is enabled but", "no judge model ([llm.judge]", "no query model ([memoryWhisperer.queryModel], or [llm.fast])", "whispers nothing"}},
		{"query model only", mw + qm, []string{"no judge model"}},
		{"judge only", judgeOnly + mw, []string{"no query model"}},
		{"judge disabled", fast + "[llm.judge]\nenabled = false\n" + mw, []string{"the judge is disabled"}},
		{"fast model", fast + mw, nil},
		{"judge and query model", judgeOnly + mw + qm, nil},
		{"disabled whisperer", "[memoryWhisperer]\nenabled = false\n", nil},
	}
	for _, tt := range tests {
		path := writeConfig(t, t.TempDir(), tt.text)
		cfg, err := Load(path, nil)
		if err != nil {
			t.Fatalf("%s: Load: %v", tt.name, err)
		}
		if tt.want == nil {
			if len(cfg.Warnings) != 0 {
				t.Errorf("%s: warnings %q, want none", tt.name, cfg.Warnings)
			}
			continue
		}
		if len(cfg.Warnings) != 1 {
			t.Fatalf("%s: warnings %q, want one", tt.name, cfg.Warnings)
		}
		for _, part := range append(tt.want, "config "+path) {
			if !strings.Contains(cfg.Warnings[0], part) {
				t.Errorf("%s: warning %q lacks %q", tt.name, cfg.Warnings[0], part)
			}
		}
	}
}

// TestLoadWarnsReadableKeyFile: an api_key_file that group or others can
// read loads with one warning a file, naming the tables that use it and
// chmod 600, as serve warns of its token file (ux U19: none was given);
// a 0600 file, or a missing one, gives none.
func TestLoadWarnsReadableKeyFile(t *testing.T) {
	dir := t.TempDir()
	shared, private := filepath.Join(dir, "shared.key"), filepath.Join(dir, "private.key")
	os.WriteFile(shared, []byte("k\n"), 0o644)
	os.Chmod(shared, 0o644) // whatever the umask
	os.WriteFile(private, []byte("k\n"), 0o600)
	table := func(name, file string) string {
		return fmt.Sprintf("[%s]\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"m\"\napi_key_file = %q\n", name, file)
	}
	qm := fmt.Sprintf("[memoryWhisperer]\nenabled = false\n[memoryWhisperer.queryModel]\nendpoint = \"http://127.0.0.1:8080/v1\"\nmodel = \"q\"\napiKeyFile = %q\n", shared)
	for _, tt := range []struct {
		name, text, want string
	}{
		{"fast and judge share a file", table("llm.fast", shared) + table("llm.judge", shared),
			"[llm.fast], [llm.judge] api_key_file " + shared + " can be read by other users (mode 0644): chmod 600 " + shared},
		{"query model", qm, "[memoryWhisperer.queryModel] api_key_file " + shared},
		{"private", table("llm.fast", private), ""},
		{"missing", table("llm.fast", filepath.Join(dir, "gone.key")), ""},
	} {
		cfg, err := Load(writeConfig(t, t.TempDir(), tt.text), nil)
		if err != nil {
			t.Fatalf("%s: Load: %v", tt.name, err)
		}
		switch {
		case tt.want == "" && len(cfg.Warnings) != 0:
			t.Errorf("%s: warnings %q, want none", tt.name, cfg.Warnings)
		case tt.want != "" && (len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], tt.want)):
			t.Errorf("%s: warnings %q, want one with %q", tt.name, cfg.Warnings, tt.want)
		}
	}
}
