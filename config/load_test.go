package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	toml "github.com/pelletier/go-toml/v2"

	"github.com/cairnmemory/cairn"
)

// writeConfig writes text to dir/config.toml and returns its path.
func writeConfig(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "config.toml")
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Exists || len(cfg.Corpora) != 0 || cfg.Path != path {
		t.Fatalf("Load(missing) = %+v; want Exists false, no corpora, Path %q", cfg, path)
	}
	if _, err := cfg.Select(nil); !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "cairn corpus add NAME PATH") {
		t.Fatalf("Select with no corpora: %v", err)
	}
}

func TestLoadEmptyAndTemplate(t *testing.T) {
	for name, text := range map[string]string{"empty": "", "comments": "# nothing\n", "template": Template} {
		t.Run(name, func(t *testing.T) {
			cfg, err := Load(writeConfig(t, t.TempDir(), text), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !cfg.Exists || len(cfg.Corpora) != 0 {
				t.Fatalf("Load = %+v; want Exists, no corpora", cfg)
			}
		})
	}
}

func TestLoadValid(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	text := `# my corpora
[[corpus]]
name = "notes"
kind = "files"
paths = ["notes", "./sub/../docs", "/abs/path", "~/h", "~", "memory/**/*.md"]

[[corpus]]
name = 'Work.log-2'
kind = "files"
paths = ["MEMORY.md"]
glob = "**/*.txt"
exclude = ["drafts/**", "*.tmp"]
redact = false

[[corpus]]
name = "kept"
kind = "files"
paths = ["kept"]
redact = true
defaultExcludes = false
`
	path := writeConfig(t, dir, text)
	cfg, err := Load(path, &LoadOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{Path: path, Exists: true, Corpora: []Corpus{
		{Name: "notes", Kind: "files", Line: 2, Paths: []string{
			filepath.Join(dir, "notes"), filepath.Join(dir, "docs"), filepath.FromSlash("/abs/path"),
			filepath.Join(home, "h"), home, filepath.Join(dir, "memory/**/*.md"),
		}},
		{Name: "Work.log-2", Kind: "files", Line: 7, Paths: []string{filepath.Join(dir, "MEMORY.md")},
			Glob: "**/*.txt", Exclude: []string{"drafts/**", "*.tmp"}, NoRedact: true},
		{Name: "kept", Kind: "files", Line: 15, Paths: []string{filepath.Join(dir, "kept")}, NoDefaultExcludes: true},
	}, SkillWhisperer: DefaultSkillWhisperer()}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Fatalf("Load mismatch (-want +got):\n%s", diff)
	}
	wantCorpora := []cairn.Corpus{
		{Name: "notes", Kind: "files", Paths: want.Corpora[0].Paths, Glob: cairn.DefaultGlob},
		{Name: "Work.log-2", Kind: "files", Paths: want.Corpora[1].Paths, Glob: "**/*.txt", Exclude: []string{"drafts/**", "*.tmp"}, NoRedact: true},
		{Name: "kept", Kind: "files", Paths: want.Corpora[2].Paths, Glob: cairn.DefaultGlob, NoDefaultExcludes: true},
	}
	if diff := cmp.Diff(wantCorpora, cfg.ToCorpora()); diff != "" {
		t.Fatalf("ToCorpora mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadRelativeConfigPath(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "[[corpus]]\nname = \"n\"\nkind = \"files\"\npaths = [\"docs\"]\n")
	t.Chdir(dir)
	cfg, err := Load("config.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	got, _ := filepath.EvalSymlinks(filepath.Dir(cfg.Corpora[0].Paths[0]))
	if got != realDir || !filepath.IsAbs(cfg.Path) {
		t.Fatalf("paths = %v, Path = %q; want resolved against %q", cfg.Corpora[0].Paths, cfg.Path, dir)
	}
}

const good = "kind = \"files\"\npaths = [\"p\"]\n"

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int
		want []string // substrings of the message after "config <file>:<line>: "
	}{
		{"unknown key", "[[corpus]]\nname = \"notes\"\n" + good + "globs = \"x\"\n", 5,
			[]string{`unknown key "globs" in [[corpus]] "notes"`, "allowed keys: name, kind, paths, glob, exclude, defaultExcludes, redact (files); name, kind, sources, chatTypes, maxExpandedTokens, syncIntervalMinutes, keepRemoved (sessions)"}},
		{"unknown key in second table", "[[corpus]]\nname = \"a\"\n" + good + "\n[[corpus]]\nname = \"b\"\n" + good + "path = [\"x\"]\n", 10,
			[]string{`unknown key "path" in [[corpus]] "b"`, "allowed keys: name, kind, paths, glob, exclude, defaultExcludes, redact (files); name, kind, sources, chatTypes, maxExpandedTokens, syncIntervalMinutes, keepRemoved (sessions)"}},
		{"key in wrong case", "[[corpus]]\nName = \"a\"\n" + good, 2,
			[]string{`unknown key "Name" in [[corpus]] at line 1`, "allowed keys: name, kind, paths, glob, exclude, defaultExcludes, redact (files); name, kind, sources, chatTypes, maxExpandedTokens, syncIntervalMinutes, keepRemoved (sessions)"}},
		{"dotted key", "[[corpus]]\nname = \"a\"\n" + good + "glob.x = \"y\"\n", 5,
			[]string{`unknown key "glob.x" in [[corpus]] "a"`, "allowed keys: name, kind, paths, glob, exclude, defaultExcludes, redact (files); name, kind, sources, chatTypes, maxExpandedTokens, syncIntervalMinutes, keepRemoved (sessions)"}},
		{"unknown top-level key", "# c\nfoo = 1\n", 2,
			[]string{`unknown key "foo"`, allowedTop}},
		{"unknown table", "[server]\nport = 1\n", 1,
			[]string{`[server]`, allowedTop}},
		{"unknown array table", "[[corpora]]\nname = \"a\"\n", 1,
			[]string{`unknown table [[corpora]]`, allowedTop}},
		{"table case", "[[Corpus]]\nname = \"a\"\n" + good, 1,
			[]string{`unknown table [[Corpus]]`, allowedTop}},
		{"single table", "\n[corpus]\nname = \"a\"\n" + good, 2,
			[]string{`unknown table [corpus]`, allowedTop}},
		{"sub table", "[[corpus]]\nname = \"a\"\n" + good + "[corpus.sub]\nx = 1\n", 5,
			[]string{`unknown table [corpus.sub]`, allowedTop}},
		{"inline corpus array", "corpus = [{name = \"a\", kind = \"files\", paths = [\"p\"]}]\n", 1,
			[]string{"corpus must be written as [[corpus]] tables"}},
		{"corpus not array", "corpus = 1\n", 1,
			[]string{"corpus must be written as [[corpus]] tables"}},
		{"name not string", "[[corpus]]\nname = 1\n" + good, 2,
			[]string{`wrong type for "name"`, "name must be a string"}},
		{"kind not string", "[[corpus]]\nname = \"a\"\nkind = true\npaths = [\"p\"]\n", 3,
			[]string{`wrong type for "kind" in [[corpus]] "a"`, "kind must be a string"}},
		{"redact not bool", "[[corpus]]\nname = \"a\"\n" + good + "redact = \"no\"\n", 5,
			[]string{`wrong type for "redact" in [[corpus]] "a"`, "redact must be true or false"}},
		{"defaultExcludes not bool", "[[corpus]]\nname = \"a\"\n" + good + "defaultExcludes = \"no\"\n", 5,
			[]string{`wrong type for "defaultExcludes" in [[corpus]] "a"`, "defaultExcludes must be true or false"}},
		{"defaultExcludes on sessions", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [\"codex\"]\ndefaultExcludes = false\n", 5,
			[]string{`key "defaultExcludes" in [[corpus]] "sessions" belongs to files corpora`}},
		{"redact on sessions", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [\"codex\"]\nredact = false\n", 5,
			[]string{`key "redact" in [[corpus]] "sessions" belongs to files corpora; sessions are always redacted`}},
		{"paths not array", "[[corpus]]\nname = \"a\"\nkind = \"files\"\npaths = \"p\"\n", 4,
			[]string{`wrong type for "paths" in [[corpus]] "a"`, "paths must be an array of strings"}},
		{"paths entry not string", "[[corpus]]\nname = \"a\"\nkind = \"files\"\npaths = [\"p\", 2]\n", 4,
			[]string{`wrong type for "paths"`, "paths must be an array of strings"}},
		{"glob not string", "[[corpus]]\nname = \"a\"\n" + good + "glob = [\"x\"]\n", 5,
			[]string{`wrong type for "glob"`, "glob must be a string"}},
		{"exclude not array", "[[corpus]]\nname = \"a\"\n" + good + "exclude = \"x\"\n", 5,
			[]string{`wrong type for "exclude"`, "exclude must be an array of strings"}},
		{"syntax error", "[[corpus]]\nname = \"a\"\nkind = 'files\n", 3,
			[]string{"invalid TOML", "https://toml.io"}},
		{"duplicate key", "[[corpus]]\nname = \"a\"\nname = \"b\"\n", 3,
			[]string{"invalid TOML", "already defined"}},
		{"missing name", "[[corpus]]\n" + good, 1,
			[]string{"missing or blank name in [[corpus]] at line 1", nameRule}},
		{"blank name", "[[corpus]]\nname = \"  \"\n" + good, 2,
			[]string{"missing or blank name", nameRule}},
		{"bad name", "[[corpus]]\nname = \"my notes\"\n" + good, 2,
			[]string{`invalid name "my notes"`, nameRule}},
		{"name too long", "[[corpus]]\nname = \"" + strings.Repeat("x", 65) + "\"\n" + good, 2,
			[]string{"invalid name", nameRule}},
		{"name starts with dot", "[[corpus]]\nname = \".x\"\n" + good, 2,
			[]string{`invalid name ".x"`, nameRule}},
		{"reserved all", "[[corpus]]\nname = \"all\"\n" + good, 2,
			[]string{`reserved name "all"`, "reserved names: all, extracted, memories"}},
		{"reserved memories any case", "[[corpus]]\n" + good + "name = \"Memories\"\n", 4,
			[]string{`reserved name "Memories"`, "reserved names: all, extracted, memories"}},
		{"reserved extracted", "[[corpus]]\nname = \"extracted\"\n" + good, 2,
			[]string{`reserved name "extracted"`, "reserved names: all, extracted, memories"}},
		{"duplicate name", "[[corpus]]\nname = \"notes\"\n" + good + "\n[[corpus]]\nname = \"Notes\"\n" + good, 7,
			[]string{`duplicate name "Notes"`, "first used at line 1", "unique, ignoring case"}},
		{"missing kind", "[[corpus]]\nname = \"a\"\npaths = [\"p\"]\n", 1,
			[]string{`missing kind in [[corpus]] "a"`, `allowed kinds: "files"`}},
		{"unknown kind", "[[corpus]]\nname = \"a\"\nkind = \"notes\"\npaths = [\"p\"]\n", 3,
			[]string{`unknown kind "notes" in [[corpus]] "a"`, `allowed kinds: "files", "sessions"`}},
		{"sessions kind needs the sessions name", "[[corpus]]\nname = \"a\"\nkind = \"sessions\"\nsources = [\"codex\"]\n", 2,
			[]string{`a sessions corpus must be named "sessions"`}},
		{"files kind cannot take the sessions name", "[[corpus]]\nname = \"sessions\"\nkind = \"files\"\npaths = [\"p\"]\n", 3,
			[]string{`must have kind = "sessions"`}},
		{"sessions without sources", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\n", 1,
			[]string{`missing or empty sources`, `claude-code, codex`}},
		{"unknown source", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [\"cursorx\"]\n", 4,
			[]string{`unknown source "cursorx"`, `allowed: claude-code`}},
		{"aider needs a root", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [\"aider\"]\n", 4,
			[]string{`no standard location`}},
		{"bad chat type", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [{id = \"aider\", root = \"/r\"}]\nchatTypes = [\"dm\"]\n", 5,
			[]string{`unknown chat type "dm"`, `allowed: channel, group, direct`}},
		{"interval out of range", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [{id = \"aider\", root = \"/r\"}]\nsyncIntervalMinutes = 1441\n", 5,
			[]string{`syncIntervalMinutes 1441 out of range`, `0 (manual) to 1440`}},
		{"interval not an integer", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [{id = \"aider\", root = \"/r\"}]\nsyncIntervalMinutes = 0.5\n", 5,
			[]string{`syncIntervalMinutes must be an integer`}},
		{"paths on sessions", "[[corpus]]\nname = \"sessions\"\nkind = \"sessions\"\nsources = [{id = \"aider\", root = \"/r\"}]\npaths = [\"x\"]\n", 5,
			[]string{`belongs to files corpora`}},
		{"missing paths", "[[corpus]]\nname = \"a\"\nkind = \"files\"\n", 1,
			[]string{`missing or empty paths in [[corpus]] "a"`, "non-empty array of non-blank strings"}},
		{"empty paths", "[[corpus]]\nname = \"a\"\nkind = \"files\"\npaths = []\n", 4,
			[]string{"missing or empty paths", "non-empty array of non-blank strings"}},
		{"blank path", "[[corpus]]\nname = \"a\"\nkind = \"files\"\npaths = [\n  \"p\",\n  \" \",\n]\n", 4,
			[]string{"blank entry 2 in paths", "non-empty array of non-blank strings"}},
		{"blank glob", "[[corpus]]\nname = \"a\"\n" + good + "glob = \"\"\n", 5,
			[]string{"blank glob", "non-blank pattern", cairn.DefaultGlob}},
		{"blank exclude", "[[corpus]]\nname = \"a\"\n" + good + "exclude = [\"x\", \"\"]\n", 5,
			[]string{"blank entry 2 in exclude", "non-blank glob patterns"}},
		{"malformed glob", "[[corpus]]\nname = \"a\"\n" + good + "glob = \"[[\"\n", 5,
			[]string{`glob "[["`, "unclosed [", `in [[corpus]] "a"`, "allowed: a relative pattern"}},
		{"absolute glob", "[[corpus]]\nname = \"a\"\n" + good + "glob = \"/etc/*.md\"\n", 5,
			[]string{`glob "/etc/*.md"`, "must be relative", "allowed: a relative pattern"}},
		{"malformed exclude", "[[corpus]]\nname = \"a\"\n" + good + "exclude = [\"x\", \"{a,b\"]\n", 5,
			[]string{"entry 2 of exclude", "unclosed {", "allowed: a relative pattern"}},
		{"home path without home", "[[corpus]]\nname = \"a\"\nkind = \"files\"\npaths = [\"~/notes\"]\n", 4,
			[]string{`cannot expand "~/notes"`, "use an absolute path"}},
		{"error in second table", "[[corpus]]\nname = \"a\"\n" + good + "\n[[corpus]]\nname = \"b\"\nkind = \"notes\"\npaths = [\"p\"]\n", 8,
			[]string{`unknown kind "notes" in [[corpus]] "b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), tt.text)
			_, err := Load(path, nil)
			if err == nil {
				t.Fatalf("Load succeeded; want an error at line %d", tt.line)
			}
			if !errors.Is(err, cairn.ErrInvalid) {
				t.Errorf("error %v does not wrap cairn.ErrInvalid", err)
			}
			var le *LoadError
			if !errors.As(err, &le) || le.Line != tt.line {
				t.Errorf("error %v: want a *LoadError at line %d", err, tt.line)
			}
			prefix := fmt.Sprintf("config %s:%d: ", path, tt.line)
			msg := err.Error()
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("error %q: want prefix %q", msg, prefix)
			}
			if !strings.Contains(msg, "; ") {
				t.Errorf("error %q: want \"; <allowed values>\"", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q: want it to contain %q", msg, w)
				}
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	// A directory where the file should be cannot be read.
	path := filepath.Join(dir, "config.toml")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, nil)
	if err == nil || !strings.Contains(err.Error(), "read config "+path) {
		t.Fatalf("Load(dir) error = %v; want read config error", err)
	}
}

// The scan reports unknown keys before the decoder's strict mode can; check
// that the decoder's own errors still read the same way.
func TestDecodeErrorStrict(t *testing.T) {
	tests := []struct {
		text string
		line int
		want string
	}{
		{"[[corpus]]\nname = \"a\"\nglobs = 1\n", 3, `config f:3: unknown key "globs" in [[corpus]] "a"; allowed keys: name, kind, paths, glob, exclude, defaultExcludes, redact (files); name, kind, sources, chatTypes, maxExpandedTokens, syncIntervalMinutes, keepRemoved (sessions)`},
		{"x = 1\n", 1, `config f:1: unknown key "x"; ` + allowedTop},
	}
	for _, tt := range tests {
		var raw rawFile
		derr := toml.NewDecoder(strings.NewReader(tt.text)).DisallowUnknownFields().Decode(&raw)
		var strict *toml.StrictMissingError
		if !errors.As(derr, &strict) {
			t.Fatalf("decode %q: %v; want a StrictMissingError", tt.text, derr)
		}
		tables, _ := scan("f", []byte(tt.text))
		if got := decodeError("f", []byte(tt.text), derr, tables).Error(); got != tt.want {
			t.Errorf("decodeError = %q; want %q", got, tt.want)
		}
	}
}

// A named file (--config) must exist; only the default may be absent.
func TestLoadMissingNamedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.toml")
	_, err := Load(path, &LoadOptions{Named: true})
	if !errors.Is(err, cairn.ErrInvalid) || !strings.HasPrefix(err.Error(), "read config "+path+": no such file") {
		t.Fatalf("Load(missing, Named) = %v; want an ErrInvalid naming %s", err, path)
	}
}
