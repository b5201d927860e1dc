package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

func TestInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "config.toml")
	created, err := Init(path)
	if err != nil || !created {
		t.Fatalf("Init = %v, %v; want created", created, err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != Template {
		t.Fatalf("file = %q, %v; want Template", data, err)
	}
	if runtime.GOOS != "windows" {
		checkMode(t, path, 0o600)
		checkMode(t, filepath.Dir(path), 0o700|os.ModeDir)
	}
	cfg, err := Load(path, nil)
	if err != nil || !cfg.Exists || len(cfg.Corpora) != 0 {
		t.Fatalf("Load(template) = %+v, %v; want no corpora", cfg, err)
	}

	// A second Init leaves the file alone, even when it was edited.
	if err := os.WriteFile(path, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	created, err = Init(path)
	if err != nil || created {
		t.Fatalf("second Init = %v, %v; want not created", created, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "# mine\n" {
		t.Fatalf("second Init rewrote the file: %q", data)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("dir holds %d entries; want only config.toml (no temp files)", len(entries))
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (os.ModePerm | os.ModeDir); got != want {
		t.Errorf("%s mode = %v; want %v", path, got, want)
	}
}

func TestAddCorpusRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cfg", "config.toml")
	notes := filepath.Join(dir, "notes")
	odd := filepath.Join(dir, `we"ird\dir`)
	if err := AddCorpus(path, "notes", notes, ""); err != nil {
		t.Fatal(err)
	}
	if err := AddCorpus(path, "odd.one", odd, "**/*.txt"); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []cairn.Corpus{
		{Name: "notes", Kind: "files", Paths: []string{notes}, Glob: cairn.DefaultGlob},
		{Name: "odd.one", Kind: "files", Paths: []string{odd}, Glob: "**/*.txt"},
	}
	if diff := cmp.Diff(want, cfg.ToCorpora()); diff != "" {
		t.Fatalf("corpora after two adds (-want +got):\n%s", diff)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), Template) {
		t.Fatalf("file does not start with the template comments:\n%s", data)
	}
	if runtime.GOOS != "windows" {
		checkMode(t, path, 0o600)
	}

	for _, name := range []string{"notes", "NOTES", "Odd.One"} {
		err := AddCorpus(path, name, notes, "")
		if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "already configured") {
			t.Errorf("AddCorpus(%q) again: %v; want already configured", name, err)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) {
		t.Fatal("a refused add changed the file")
	}
}

func TestAddCorpusKeepsText(t *testing.T) {
	dir := t.TempDir()
	existing := "# keep me\n[[corpus]]\nname = \"home\" # inline comment\nkind = \"files\"\npaths = [\"~/notes\"]" // no final newline
	path := writeConfig(t, dir, existing)
	if err := AddCorpus(path, "more", "rel/dir", ""); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), existing+"\n\n[[corpus]]\n") {
		t.Fatalf("file = %q; want the old text kept and a table appended", data)
	}
	cfg, err := Load(path, &LoadOptions{Home: "/home/me"})
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if got, want := cfg.Corpora[1].Paths[0], filepath.Join(wd, "rel", "dir"); got != want {
		t.Fatalf("added path = %q; want %q (absolute against the working directory)", got, want)
	}
	if cfg.Corpora[1].Line != 7 {
		t.Fatalf("added table at line %d; want 7", cfg.Corpora[1].Line)
	}
}

func TestAddCorpusRefuses(t *testing.T) {
	dir := t.TempDir()
	valid := writeConfig(t, filepath.Join(dir), "")
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[[corpus]]\nname = \"a\"\nglobs = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, corpus, dir, glob string
		want                          string
	}{
		{"bad name", valid, "my notes", "/x", "", "1 to 64 letters"},
		{"empty name", valid, "", "/x", "", "1 to 64 letters"},
		{"reserved", valid, "all", "/x", "", "reserved"},
		{"reserved any case", valid, "Extracted", "/x", "", "reserved"},
		{"blank dir", valid, "n", " ", "", "path is blank"},
		{"blank glob", valid, "n", "/x", "  ", "glob is blank"},
		{"invalid existing file", bad, "n", "/x", "", `bad.toml:3: unknown key "globs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadFile(tt.path)
			err := AddCorpus(tt.path, tt.corpus, tt.dir, tt.glob)
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("AddCorpus error = %v; want ErrInvalid containing %q", err, tt.want)
			}
			if after, _ := os.ReadFile(tt.path); string(after) != string(before) {
				t.Fatal("a refused add changed the file")
			}
		})
	}
}

func TestAddCorpusThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	dir := t.TempDir()
	target := writeConfig(t, dir, "# real\n")
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := AddCorpus(link, "n", "/x", ""); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced by a regular file: %v", err)
	}
	cfg, err := Load(target, nil)
	if err != nil || len(cfg.Corpora) != 1 {
		t.Fatalf("Load(target) = %+v, %v; want the added corpus", cfg, err)
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"plain", `C:\Users\me`, `say "hi"`, "tab\there", "nl\nx", "bell\a", "ünïcode", "'single'"} {
		path := writeConfig(t, t.TempDir(), "[[corpus]]\nname = \"n\"\nkind = \"files\"\npaths = [\"/p\"]\nglob = "+quote(s)+"\n")
		cfg, err := Load(path, nil)
		if err != nil {
			t.Fatalf("quote(%q) = %s: %v", s, quote(s), err)
		}
		if got := cfg.Corpora[0].Glob; got != s {
			t.Fatalf("quote(%q) round trip = %q", s, got)
		}
	}
}

// The template documents every files-corpus key, and what redact = false
// gives up.
func TestTemplateDocumentsKeys(t *testing.T) {
	for _, k := range []string{"name", "kind", "paths", "glob", "exclude", "redact"} {
		if !strings.Contains(Template, "#   "+k+" ") {
			t.Errorf("Template does not document %q", k)
		}
	}
	if !strings.Contains(Template, "redact = false stores secrets in the index") {
		t.Errorf("Template does not say that redact = false stores secrets in the index")
	}
}
