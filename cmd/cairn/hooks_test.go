package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// claudeDir points CLAUDE_CONFIG_DIR at a fresh folder and returns it.
func claudeDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	return dir
}

// userSettings are settings a user wrote, with their own formatting, keys
// in no sorted order, and hooks of another tool on both events.
const userSettings = "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n" +
	"\t\"hooks\": {\n\t\t\"PostToolUse\": [{\"matcher\": \"Write|Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"prettier --write\"}]}],\n" +
	"\t\t\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"~/bin/branch-context\"}]}]\n\t},\n" +
	"\t\"env\": {\"FOO\": \"1\"}\n}"

// hookCommands returns the commands of an event's hooks, in order.
func hookCommands(t *testing.T, settings []byte, event string) []string {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(settings, &s); err != nil {
		t.Fatalf("settings are not JSON: %v\n%s", err, settings)
	}
	var out []string
	for _, g := range s.Hooks[event] {
		for _, h := range g.Hooks {
			out = append(out, g.Matcher+"|"+h.Command)
		}
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestHooksInstallUninstall(t *testing.T) {
	c := newCLI(t)
	dir := claudeDir(t)
	path := filepath.Join(dir, "settings.json")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(path, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	out := c.ok("hooks", "install", "claude-code")
	if !strings.Contains(out, path) {
		t.Fatalf("install said %q", out)
	}
	got := readFile(t, path)
	// Merged: the other tool's hooks stay first, Cairn's are added.
	ups := hookCommands(t, got, "UserPromptSubmit")
	ptu := hookCommands(t, got, "PostToolUse")
	if len(ups) != 2 || ups[0] != "|~/bin/branch-context" || !strings.Contains(ups[1], " hooks run claude-code user-prompt-submit --config ") {
		t.Fatalf("UserPromptSubmit hooks = %q", ups)
	}
	if len(ptu) != 2 || ptu[0] != "Write|Edit|prettier --write" || !strings.HasPrefix(ptu[1], "Read|") || !strings.Contains(ptu[1], " hooks run claude-code post-tool-use ") {
		t.Fatalf("PostToolUse hooks = %q", ptu)
	}
	// Every other key kept, in its order.
	settings, err := parseObject(got)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(settings.keys, []string{"model", "permissions", "hooks", "env"}) {
		t.Fatalf("keys = %v", settings.keys)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode = %v, want 0640 kept", fi.Mode().Perm())
	}
	// Installing again changes nothing.
	if out := c.ok("hooks", "install", "claude-code"); !strings.Contains(out, "already") {
		t.Fatalf("second install said %q", out)
	}
	if again := readFile(t, path); !bytes.Equal(again, got) {
		t.Fatalf("second install rewrote the settings:\n%s", again)
	}
	// Uninstall restores the file byte for byte and removes its backup.
	if out := c.ok("hooks", "uninstall", "claude-code"); !strings.Contains(out, "restored") {
		t.Fatalf("uninstall said %q", out)
	}
	if back := readFile(t, path); string(back) != userSettings {
		t.Fatalf("uninstall left:\n%s\nwant:\n%s", back, userSettings)
	}
	if _, err := os.Stat(backupPath(path)); !os.IsNotExist(err) {
		t.Fatalf("backup left behind: %v", err)
	}
}

// TestHooksSymlinkedSettings: a settings.json that is a symlink into a
// dotfiles folder (stow, chezmoi, home-manager) stays a symlink: install
// writes the hooks into the file it points to, uninstall restores that
// file byte for byte. Before, both replaced the link with a regular file,
// so the dotfiles copy never got the hooks and the link was lost for good.
func TestHooksSymlinkedSettings(t *testing.T) {
	c := newCLI(t)
	dir := claudeDir(t)
	dotfiles := filepath.Join(t.TempDir(), "dotfiles", "claude")
	os.MkdirAll(dir, 0o700)
	os.MkdirAll(dotfiles, 0o700)
	target := filepath.Join(dotfiles, "settings.json")
	if err := os.WriteFile(target, []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	isLink := func(when string) {
		t.Helper()
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("after %s, %s is no longer a symlink: %v %v", when, path, fi.Mode(), err)
		}
	}
	c.ok("hooks", "install", "claude-code")
	isLink("install")
	if ups := hookCommands(t, readFile(t, target), "UserPromptSubmit"); len(ups) != 2 {
		t.Fatalf("the link's target holds UserPromptSubmit hooks %q; want the user's and Cairn's", ups)
	}
	if _, err := os.Stat(backupPath(path)); err != nil {
		t.Fatalf("no backup beside the link: %v", err)
	}
	if out := c.ok("hooks", "uninstall", "claude-code"); !strings.Contains(out, "restored") {
		t.Fatalf("uninstall said %q", out)
	}
	isLink("uninstall")
	if back := readFile(t, target); string(back) != userSettings {
		t.Fatalf("uninstall left the target:\n%s\nwant:\n%s", back, userSettings)
	}
	// A dangling link is an error naming it, not a file written over it.
	os.Remove(target)
	if _, stderr, code := c.run("hooks", "install", "claude-code"); code == 0 || !strings.Contains(stderr, "symlink") {
		t.Fatalf("install over a dangling link: exit %d, stderr %q", code, stderr)
	}
	isLink("a refused install")
}

// TestHooksUninstallAfterEdit: settings changed after install lose only
// Cairn's commands.
func TestHooksUninstallAfterEdit(t *testing.T) {
	c := newCLI(t)
	dir := claudeDir(t)
	path := filepath.Join(dir, "settings.json")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(path, []byte(userSettings), 0o600)
	c.ok("hooks", "install", "claude-code")
	settings, err := parseObject(readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	settings.setValue("theme", "dark") // the user's later edit
	edited, _ := settings.pretty()
	os.WriteFile(path, edited, 0o600)
	if out := c.ok("hooks", "uninstall", "claude-code"); !strings.Contains(out, "removed 2 Cairn hook command(s)") {
		t.Fatalf("uninstall said %q", out)
	}
	got := readFile(t, path)
	if ups := hookCommands(t, got, "UserPromptSubmit"); !slices.Equal(ups, []string{"|~/bin/branch-context"}) {
		t.Fatalf("UserPromptSubmit = %q", ups)
	}
	if ptu := hookCommands(t, got, "PostToolUse"); !slices.Equal(ptu, []string{"Write|Edit|prettier --write"}) {
		t.Fatalf("PostToolUse = %q", ptu)
	}
	after, _ := parseObject(got)
	if !slices.Equal(after.keys, []string{"model", "permissions", "hooks", "env", "theme"}) {
		t.Fatalf("keys = %v", after.keys)
	}
	// Uninstalling again finds nothing to do.
	if out := c.ok("hooks", "uninstall", "claude-code"); !strings.Contains(out, "no Cairn hooks") {
		t.Fatalf("second uninstall said %q", out)
	}
}

// TestHooksNoSettingsFile: install creates the file, uninstall removes it.
func TestHooksNoSettingsFile(t *testing.T) {
	c := newCLI(t)
	dir := claudeDir(t)
	path := filepath.Join(dir, "settings.json")
	c.ok("hooks", "install", "claude-code")
	if ups := hookCommands(t, readFile(t, path), "UserPromptSubmit"); len(ups) != 1 {
		t.Fatalf("UserPromptSubmit = %q", ups)
	}
	out := c.ok("hooks", "uninstall", "claude-code")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("settings file left: %v", err)
	}
	// install created the directory too: uninstall removes it, and says
	// it removed the file rather than restored it.
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory install created left: %v", err)
	}
	if !strings.Contains(out, "removed "+path+" (it did not exist before") || strings.Contains(out, "restored") {
		t.Errorf("uninstall says %q", out)
	}
	// A directory that existed before stays; one that holds other files
	// now stays too.
	os.MkdirAll(dir, 0o700)
	c.ok("hooks", "install", "claude-code")
	c.ok("hooks", "uninstall", "claude-code")
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("directory that existed before install: %v", err)
	}
	os.RemoveAll(dir)
	c.ok("hooks", "install", "claude-code")
	os.WriteFile(filepath.Join(dir, "other.json"), []byte("{}"), 0o600)
	c.ok("hooks", "uninstall", "claude-code")
	if _, err := os.Stat(filepath.Join(dir, "other.json")); err != nil {
		t.Errorf("a file another tool wrote: %v", err)
	}
}

// TestHooksConfigAbsolute: a relative --config is installed as an
// absolute path, since Claude Code runs the hook in the project's folder.
func TestHooksConfigAbsolute(t *testing.T) {
	c := newCLI(t)
	dir := claudeDir(t)
	t.Chdir(c.home)
	c.ok("hooks", "install", "claude-code", "--config", "my.toml")
	ups := hookCommands(t, readFile(t, filepath.Join(dir, "settings.json")), "UserPromptSubmit")
	if len(ups) != 1 || !strings.HasSuffix(ups[0], " --config "+shellQuote(filepath.Join(c.home, "my.toml"))) {
		t.Fatalf("UserPromptSubmit = %q", ups)
	}
}

// TestHooksSettingsFlag: --settings names the file (a project's
// .claude/settings.json), CLAUDE_CONFIG_DIR aside.
func TestHooksSettingsFlag(t *testing.T) {
	c := newCLI(t)
	claudeDir(t)
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	c.ok("hooks", "install", "claude-code", "--settings", path)
	if ups := hookCommands(t, readFile(t, path), "UserPromptSubmit"); len(ups) != 1 {
		t.Fatalf("UserPromptSubmit = %q", ups)
	}
}

func TestHooksErrors(t *testing.T) {
	c := newCLI(t)
	dir := claudeDir(t)
	path := filepath.Join(dir, "settings.json")
	os.MkdirAll(dir, 0o700)
	bad := []byte(`{"model": "opus",`)
	os.WriteFile(path, bad, 0o600)
	if _, errs, code := c.run("hooks", "install", "claude-code"); code != 1 || !strings.Contains(errs, "not valid JSON") {
		t.Fatalf("invalid settings: exit %d, %q", code, errs)
	}
	if got := readFile(t, path); !bytes.Equal(got, bad) {
		t.Fatalf("invalid settings rewritten: %s", got)
	}
	for _, args := range [][]string{{"hooks", "install", "codex"}, {"hooks", "install"}, {"hooks", "uninstall", "gemini"}} {
		if _, errs, code := c.run(args...); code != 2 || !strings.Contains(errs, "claude-code") {
			t.Fatalf("%v: exit %d, %q", args, code, errs)
		}
	}
	if _, errs, code := c.run("hooks", "install", "codex"); !strings.Contains(errs, "docs/hooks.md") {
		t.Fatalf("codex: exit %d, %q", code, errs)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/local/bin/cairn":    "/usr/local/bin/cairn",
		"/home/a b/cairn":         "'/home/a b/cairn'",
		"/it's/cairn":             `'/it'\''s/cairn'`,
		"":                        "''",
		"http://127.0.0.1:7777/x": "http://127.0.0.1:7777/x",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSkillsList(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "skills")
	for rel, text := range map[string]string{
		"deploy/SKILL.md": "---\nname: deploy\ndescription: Ship it\n---\n",
		"other/skill.md":  "---\nname: Deploy\n---\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o700)
		os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o600)
	}
	if _, errs, code := c.run("skills", "list"); code != 2 || !strings.Contains(errs, "no skills corpus") {
		t.Fatalf("without a corpus: exit %d, %q", code, errs)
	}
	os.WriteFile(filepath.Join(c.home, "config.toml"), []byte("[[corpus]]\nname = \"skills\"\nkind = \"skills\"\npaths = [\""+dir+"\"]\n"), 0o600)
	var got struct {
		Skills []skillJSON `json:"skills"`
	}
	listed := c.ok("skills", "list", "--json")
	if err := json.Unmarshal([]byte(listed), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(listed, `"failures":[]`) {
		t.Errorf("no failures is not an empty list: %s", listed)
	}
	want := []skillJSON{{"deploy", "Ship it", filepath.Join(dir, "deploy", "SKILL.md"), false}, {"Deploy", "", filepath.Join(dir, "other", "skill.md"), true}}
	if !slices.Equal(got.Skills, want) {
		t.Fatalf("skills = %+v, want %+v", got.Skills, want)
	}
	if out := c.ok("skills", "list"); !strings.Contains(out, "Deploy (duplicate: never named)") {
		t.Fatalf("table = %q", out)
	}
}

// TestHooksRunBadAgent: an invalid --agent in the hook is a line on
// stderr and exit status 0, never a blocked prompt.
func TestHooksRunBadAgent(t *testing.T) {
	c := newCLI(t)
	stdin := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(stdin, []byte(`{"session_id":"s","prompt_id":"p","prompt":"hi"}`), 0o600)
	f, err := os.Open(stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	out, errs, code := c.run("hooks", "run", "claude-code", "user-prompt-submit", "--agent", "bad agent!")
	if code != 0 || out != "" || !strings.Contains(errs, `agent id "bad agent!"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
