package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestAddFiles(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, "notes"), 0o755)
	os.MkdirAll(filepath.Join(dir, "work", "docs"), 0o755)
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte("# mine\n"), 0o600)
	t.Chdir(dir)

	if err := AddFiles(path, FilesCorpus{Name: "notes", Paths: []string{"~/notes"}, Exclude: []string{"drafts/**", "*.tmp"}, Home: home}); err != nil {
		t.Fatal(err)
	}
	if err := AddFiles(path, FilesCorpus{Name: "work", Paths: []string{"work/docs/**/*.md", "~"}, Glob: "**/*.txt", Home: home}); err != nil {
		t.Fatal(err)
	}
	want := "# mine\n\n[[corpus]]\nname = \"notes\"\nkind = \"files\"\npaths = [" + quote(filepath.Join(home, "notes")) + "]\n" +
		"exclude = [\"drafts/**\", \"*.tmp\"]\n\n" +
		"[[corpus]]\nname = \"work\"\nkind = \"files\"\npaths = [" + quote(filepath.Join(dir, "work/docs/**/*.md")) + ", " + quote(home) + "]\nglob = \"**/*.txt\"\n"
	if diff := cmp.Diff(want, readText(t, path)); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	cfg, err := Load(path, nil)
	if err != nil || len(cfg.Corpora) != 2 || !slicesEqual(cfg.Corpora[0].Exclude, []string{"drafts/**", "*.tmp"}) {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}

	for _, bad := range []struct {
		c    FilesCorpus
		want string
	}{
		{FilesCorpus{Name: "gone", Paths: []string{"missing"}}, filepath.Join(dir, "missing") + " does not exist"},
		{FilesCorpus{Name: "gone", Paths: []string{"~/nope"}, Home: home}, filepath.Join(home, "nope") + " does not exist"},
		{FilesCorpus{Name: "gone", Paths: []string{"nothere/**/*.md"}}, filepath.Join(dir, "nothere") + " does not exist"},
		{FilesCorpus{Name: "gone", Paths: []string{"~/notes"}}, "no home directory"},
		{FilesCorpus{Name: "gone", Paths: []string{"work"}, Exclude: []string{" "}}, "--exclude is blank"},
		{FilesCorpus{Name: "NOTES", Paths: []string{"work"}}, "already configured"},
	} {
		before := readText(t, path)
		err := AddFiles(path, bad.c)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("AddFiles(%+v) = %v, want ErrInvalid containing %q", bad.c, err, bad.want)
		}
		if readText(t, path) != before {
			t.Errorf("AddFiles(%+v) changed the file", bad.c)
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

func TestAddSessionsToExisting(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, "src"), 0o755)
	path := filepath.Join(dir, "config.toml")
	text := `# my sessions
[[corpus]]
name = "sessions"
kind = "sessions"
sources = [
  {id = "codex", root = "/x/codex"}, # the old laptop
]
chatTypes = ["direct"]   # keep

[embedder]
provider = "none"
`
	os.WriteFile(path, []byte(text), 0o600)
	if err := AddSessions(path, []string{"aider", "gemini"}, map[string][]string{"aider": {"~/src"}}, home); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(text, `"/x/codex"},`, `"/x/codex"}, {id = "aider", root = [`+quote(filepath.Join(home, "src"))+`]}, "gemini",`, 1)
	if diff := cmp.Diff(want, readText(t, path)); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if err := AddSessions(path, []string{"claude-code"}, nil, home); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, &LoadOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range cfg.Corpora[0].Sources {
		ids = append(ids, s.ID)
	}
	if diff := cmp.Diff([]string{"codex", "aider", "gemini", "claude-code"}, ids); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}

	before := readText(t, path)
	for _, bad := range []struct {
		sources []string
		roots   map[string][]string
		want    string
	}{
		{[]string{"codex"}, nil, `source "codex" is already in the sessions corpus at ` + path + ":2"},
		{[]string{"openclaw"}, map[string][]string{"openclaw": {"~/missing"}}, filepath.Join(home, "missing") + " does not exist"},
		{[]string{"nope"}, nil, `unknown source "nope"`},
		// Before, these were written as bare ids, and the config then
		// failed to load: "has no standard location".
		{[]string{"openai-chat"}, nil, `source "openai-chat" has no standard location: give its folder with --root openai-chat=DIR`},
		{[]string{"loggie"}, nil, `source "loggie" has no standard location: give its folder with --root loggie=DIR`},
	} {
		err := AddSessions(path, bad.sources, bad.roots, home)
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("AddSessions(%v) = %v, want ErrInvalid containing %q", bad.sources, err, bad.want)
		}
	}
	if readText(t, path) != before {
		t.Error("a refused AddSessions changed the file")
	}

	// Nor is a new sessions corpus written with a source that needs a root.
	fresh := filepath.Join(t.TempDir(), "config.toml")
	if err := AddSessions(fresh, []string{"claude-code", "aider"}, nil, home); !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "--root aider=DIR") {
		t.Errorf("AddSessions(aider) into a new config = %v; want ErrInvalid naming --root aider=DIR", err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused AddSessions wrote %s: %v", fresh, err)
	}

	// Inline arrays of each shape take the new source after the last value.
	for _, tt := range []struct{ in, want string }{
		{`sources = ["codex"]`, `sources = ["codex", "gemini"]`},
		{`sources = ['codex', ]  # c`, `sources = ['codex', "gemini", ]  # c`},
		{`sources = ["co]dex"]`, ``},
	} {
		p := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(p, []byte("[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\n"+tt.in+"\n"), 0o600)
		err := AddSessions(p, []string{"gemini"}, nil, home)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: AddSessions succeeded", tt.in)
			}
			continue
		}
		if got := readText(t, p); err != nil || !strings.Contains(got, tt.want+"\n") {
			t.Errorf("%s: AddSessions = %v, file %q, want %q", tt.in, err, got, tt.want)
		}
	}
}

func TestRemoveCorpus(t *testing.T) {
	text := `# Cairn configuration

# notes from the laptop
[[corpus]]
name = "notes"
kind = "files"
paths = ["/n"]  # main
# an inner comment

# about work
[[corpus]]
name = "Work"
kind = "files"
paths = ["/w"]

[embedder]
provider = "none"

[[corpus]]
name = "last"
kind = "files"
paths = ["/l"]
`
	tests := []struct {
		name, want string
	}{
		{"notes", `# Cairn configuration

# notes from the laptop
# an inner comment

# about work
[[corpus]]
name = "Work"
kind = "files"
paths = ["/w"]

[embedder]
provider = "none"

[[corpus]]
name = "last"
kind = "files"
paths = ["/l"]
`},
		{"work", strings.Replace(text, "[[corpus]]\nname = \"Work\"\nkind = \"files\"\npaths = [\"/w\"]\n\n", "", 1)},
		{"last", strings.TrimSuffix(text, "\n[[corpus]]\nname = \"last\"\nkind = \"files\"\npaths = [\"/l\"]\n")},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(path, []byte(text), 0o600)
		if err := RemoveCorpus(path, tt.name); err != nil {
			t.Fatalf("RemoveCorpus(%s): %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, readText(t, path)); diff != "" {
			t.Errorf("RemoveCorpus(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte(text), 0o600)
	err := RemoveCorpus(path, "nope")
	if !errors.Is(err, cairn.ErrNotFound) || !strings.Contains(err.Error(), "configured: notes, Work, last") {
		t.Errorf("RemoveCorpus(nope) = %v", err)
	}
	if readText(t, path) != text {
		t.Error("a failed RemoveCorpus changed the file")
	}
}

func TestAddSkills(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "home", "skills"), 0o755)
	path := filepath.Join(dir, "config.toml")
	if err := AddSkills(path, []string{"~/skills"}, filepath.Join(dir, "home")); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := cfg.SkillsCorpus()
	if !ok || k.Name != "skills" || len(k.Paths) != 1 || k.Paths[0] != filepath.Join(dir, "home", "skills") {
		t.Fatalf("skills corpus = %+v, %v", k, ok)
	}
	if err := AddSkills(path, nil, ""); !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("AddSkills with no path: %v", err)
	}
}
