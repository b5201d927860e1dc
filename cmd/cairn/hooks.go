package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// cairn hooks install|uninstall claude-code: Cairn's whisperers in Claude
// Code's prompt hooks. Claude Code runs a command on UserPromptSubmit
// before the model sees a prompt and adds what it prints as
// hookSpecificOutput.additionalContext to the context; it runs one on
// PostToolUse after each successful tool call. Formats and settings are
// Claude Code's own:
//
//   - hooks and their input and output: https://code.claude.com/docs/en/hooks
//     (#userpromptsubmit, #posttooluse, #common-input-fields,
//     #json-output);
//   - the settings file, ~/.claude/settings.json, or settings.json in
//     $CLAUDE_CONFIG_DIR when set: https://code.claude.com/docs/en/settings.
//
// install merges two entries into the settings (every other key, event
// and hook is kept, in order): a UserPromptSubmit hook running
// `cairn hooks run claude-code user-prompt-submit`, and a PostToolUse hook
// on the Read tool running `... post-tool-use`. Both carry the absolute
// path of this executable and of the config file. Before the first
// change it keeps a backup (the file's bytes, whether it and its
// directory existed) in <settings>.cairn-backup.json;
// uninstall writes them back (or removes a file and an empty directory
// install created) when the
// settings are still exactly as install left them, and otherwise removes
// only Cairn's commands.

// Hook timeouts, in seconds (Claude Code's "timeout" of a command hook).
const (
	promptHookTimeout  = 15 // above whisper.DefaultRunTimeout, with startup
	observeHookTimeout = 5
)

// hookEvents are the hook commands' events: the word the command takes
// and Claude Code's event name.
const (
	hookPromptSubmit = "user-prompt-submit"
	hookPostToolUse  = "post-tool-use"
)

func cmdHooksInstall(_ context.Context, e *env, args []string) error {
	fs := e.flags("hooks install")
	settings := fs.String("settings", "", "Claude Code settings file (default $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json)")
	server := fs.String("server", "", "URL of a running cairn serve to ask (keeps cooldowns across turns; default: in-process)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := hookTarget(pos); err != nil {
		return err
	}
	path, err := claudeSettingsPath(*settings)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the cairn executable: %w", err)
	}
	configPath, _ := e.paths()
	if configPath, err = filepath.Abs(configPath); err != nil { // the hook runs in the project's folder
		return fmt.Errorf("resolve the config path: %w", err)
	}
	entries := hookEntries(exe, configPath, e.agent, *server)
	changed, err := installHooks(path, entries)
	if err != nil {
		return err
	}
	if !changed {
		fmt.Fprintf(e.stdout, "Cairn's Claude Code hooks are already in %s\n", path)
		return nil
	}
	fmt.Fprintf(e.stdout, "added Cairn's UserPromptSubmit and PostToolUse (Read) hooks to %s\n", path)
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		e.logf("cairn: warning: the hooks run %s, a temporary build of go run that will vanish; install from an installed cairn (go install, or the release binary)", exe)
	}
	fmt.Fprintf(e.stdout, "undo with: cairn hooks uninstall claude-code%s\n", settingsFlag(*settings))
	return nil
}

func cmdHooksUninstall(_ context.Context, e *env, args []string) error {
	fs := e.flags("hooks uninstall")
	settings := fs.String("settings", "", "Claude Code settings file (default $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := hookTarget(pos); err != nil {
		return err
	}
	path, err := claudeSettingsPath(*settings)
	if err != nil {
		return err
	}
	msg, err := uninstallHooks(path)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, msg)
	return nil
}

func settingsFlag(s string) string {
	if s == "" {
		return ""
	}
	return " --settings " + shellQuote(s)
}

// hookTarget checks the agent named: claude-code is the one with prompt
// hooks (docs/hooks.md gives the MCP path for the others).
func hookTarget(pos []string) error {
	switch {
	case len(pos) == 1 && pos[0] == "claude-code":
		return nil
	case len(pos) == 1:
		return usagef("hooks: unknown agent %q; allowed: claude-code (Codex and Gemini CLI have no prompt hooks: use the MCP server, see docs/hooks.md)", pos[0])
	}
	return usagef("hooks: name the agent; allowed: claude-code")
}

// claudeSettingsPath is the settings file Claude Code reads: flag, else
// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func claudeSettingsPath(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Abs(filepath.Join(dir, "settings.json"))
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the Claude Code settings: %w (set CLAUDE_CONFIG_DIR or pass --settings)", err)
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// hookEntries are the two hooks, their commands carrying this executable,
// the config file, a non-default agent and the server.
func hookEntries(exe, configPath, agent, server string) []hookEntry {
	base := shellQuote(exe) + " " + hookRunWords + " "
	tail := " --config " + shellQuote(configPath)
	if agent != "" && agent != "default" {
		tail += " --agent " + shellQuote(agent)
	}
	if server != "" {
		tail += " --server " + shellQuote(server)
	}
	return []hookEntry{
		{Event: "UserPromptSubmit", Command: base + hookPromptSubmit + tail, Timeout: promptHookTimeout},
		{Event: "PostToolUse", Matcher: "Read", Command: base + hookPostToolUse + tail, Timeout: observeHookTimeout},
	}
}

// shellQuote quotes s for the POSIX shell Claude Code runs commands in,
// unless it needs none.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=@%+-,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookBackup is what install keeps to undo itself exactly.
type hookBackup struct {
	Settings string `json:"settings"`
	Existed  bool   `json:"existed"`  // the settings file was there before
	Original string `json:"original"` // its bytes then
	Mode     uint32 `json:"mode"`     // its permission bits then
	Written  string `json:"written"`  // sha256 of what install last wrote
	// CreatedDir is the outermost directory install created for the
	// settings file ("" when its directory was there): uninstall removes
	// it, and the ones below it, when they are empty.
	CreatedDir string `json:"createdDir,omitempty"`
}

func backupPath(settings string) string { return settings + ".cairn-backup.json" }

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// installHooks merges the entries into the settings file and records the
// backup before the first change.
func installHooks(path string, entries []hookEntry) (bool, error) {
	file, err := settingsFile(path)
	if err != nil {
		return false, err
	}
	orig, mode, existed, err := readSettings(file)
	if err != nil {
		return false, err
	}
	settings, err := parseObject(orig)
	if err != nil {
		return false, fmt.Errorf("read Claude Code settings %s: not valid JSON: %w (fix it, or pass --settings)", path, err)
	}
	changed, err := mergeHooks(settings, entries)
	if err != nil || !changed {
		return false, err
	}
	out, err := settings.pretty()
	if err != nil {
		return false, err
	}
	b, hadBackup, err := readBackup(path)
	if err != nil {
		return false, err
	}
	if !hadBackup {
		b = hookBackup{Settings: path, Existed: existed, Original: string(orig), Mode: uint32(mode.Perm()),
			CreatedDir: missingDir(filepath.Dir(path))}
	}
	b.Written = sha(out)
	if err := writeJSONFile(backupPath(path), b); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return true, writeFileAtomic(file, out, mode)
}

// settingsFile is the file the settings path names: the path itself, or,
// when it is a symlink (a dotfiles manager links ~/.claude/settings.json
// into its repository), the file the link points to, so that writing
// changes that file and keeps the link. The backup stays beside the path.
func settingsFile(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil // a missing path is created; other errors are readSettings'
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("read Claude Code settings %s: a symlink whose target cannot be read: %w (fix the link, or pass --settings)", path, err)
	}
	return real, nil
}

// uninstallHooks undoes installHooks and says what it did.
func uninstallHooks(path string) (string, error) {
	file, err := settingsFile(path)
	if err != nil {
		return "", err
	}
	cur, mode, existed, err := readSettings(file)
	if err != nil {
		return "", err
	}
	b, hadBackup, err := readBackup(path)
	if err != nil {
		return "", err
	}
	if hadBackup && existed && sha(cur) == b.Written {
		if err := restoreSettings(file, b); err != nil {
			return "", err
		}
		if err := os.Remove(backupPath(path)); err != nil {
			return "", fmt.Errorf("remove %s: %w", backupPath(path), err)
		}
		if b.Existed {
			return fmt.Sprintf("restored %s as it was before cairn hooks install", path), nil
		}
		msg := fmt.Sprintf("removed %s (it did not exist before cairn hooks install)", path)
		if removeCreatedDirs(filepath.Dir(path), b.CreatedDir) {
			msg += fmt.Sprintf(" and the directory %s install created", b.CreatedDir)
		}
		return msg, nil
	}
	msg := fmt.Sprintf("no Cairn hooks in %s", path)
	if existed {
		settings, err := parseObject(cur)
		if err != nil {
			return "", fmt.Errorf("read Claude Code settings %s: not valid JSON: %w", path, err)
		}
		n, err := removeHooks(settings)
		if err != nil {
			return "", err
		}
		if n > 0 {
			out, err := settings.pretty()
			if err != nil {
				return "", err
			}
			if err := writeFileAtomic(file, out, mode); err != nil {
				return "", err
			}
			msg = fmt.Sprintf("removed %d Cairn hook command(s) from %s (it changed since install, so the rest stays as it is now)", n, path)
		}
	}
	if hadBackup {
		if err := os.Remove(backupPath(path)); err != nil {
			return "", fmt.Errorf("remove %s: %w", backupPath(path), err)
		}
	}
	return msg, nil
}

func restoreSettings(path string, b hookBackup) error {
	if !b.Existed {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	}
	return writeFileAtomic(path, []byte(b.Original), fs.FileMode(b.Mode))
}

// missingDir is the outermost directory of dir's ancestors (dir
// included) that does not exist, "" when dir exists.
func missingDir(dir string) string {
	out := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			return out
		}
		out = d
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// removeCreatedDirs removes the empty directories from dir up to top,
// the directory install created; true when top is gone.
func removeCreatedDirs(dir, top string) bool {
	if top == "" {
		return false
	}
	top = filepath.Clean(top)
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if rel, err := filepath.Rel(top, d); err != nil || strings.HasPrefix(rel, "..") {
			return false // not below what install created
		}
		if os.Remove(d) != nil { // not empty: something else lives there now
			return false
		}
		if d == top {
			return true
		}
	}
}

// readSettings reads the settings file; a missing one is empty.
func readSettings(path string) ([]byte, fs.FileMode, bool, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("read Claude Code settings: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, false, fmt.Errorf("read Claude Code settings: %w", err)
	}
	return data, info.Mode().Perm(), true, nil
}

func readBackup(settings string) (hookBackup, bool, error) {
	var b hookBackup
	data, err := os.ReadFile(backupPath(settings))
	if errors.Is(err, fs.ErrNotExist) {
		return b, false, nil
	}
	if err != nil {
		return b, false, fmt.Errorf("read %s: %w", backupPath(settings), err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, false, fmt.Errorf("read %s: %w (remove it to uninstall by removing Cairn's commands only)", backupPath(settings), err)
	}
	return b, true, nil
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return writeFileAtomic(path, append(data, '\n'), 0o600)
}

// writeFileAtomic writes data to a temporary file beside path, syncs it
// and renames it over path.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
