package config

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
)

var allowedChatTypes = []string{"channel", "group", "direct"}

// validateSessions checks a kind = "sessions" table (spec C3).
func validateSessions(rc rawCorpus, t tableLayout, fail func(key, format string, args ...any) (Corpus, error), r resolver) (Corpus, error) {
	label := t.label()
	if rc.Name != cairn.KindSessions {
		return fail("name", `a sessions corpus must be named "sessions", not %q in %s; allowed name: "sessions"`, rc.Name, label)
	}
	for _, k := range []string{"paths", "glob", "exclude", "defaultExcludes"} {
		if _, ok := t.keys[k]; ok {
			return fail(k, "key %q in %s belongs to files corpora; sessions corpora take sources = [...] instead", k, label)
		}
	}
	if _, ok := t.keys["redact"]; ok {
		return fail("redact", `key "redact" in %s belongs to files corpora; sessions are always redacted`, label)
	}
	if len(rc.Sources) == 0 {
		return fail("sources", "missing or empty sources in %s; allowed ids: %s", label, strings.Join(cairn.Sources, ", "))
	}
	c := Corpus{Name: rc.Name, Kind: cairn.KindSessions, Line: t.line}
	for i, raw := range rc.Sources {
		spec, err := sourceEntry(raw, r)
		if err != nil {
			return fail("sources", "entry %d of sources in %s: %v", i+1, label, err)
		}
		if slices.ContainsFunc(c.Sources, func(s cairn.SourceSpec) bool { return s.ID == spec.ID }) {
			return fail("sources", "source %q listed twice in %s; list each source once (give several roots as root = [...])", spec.ID, label)
		}
		if len(spec.Roots) == 0 && !r.keep {
			spec.Roots = DefaultRoots(spec.ID, r.getenv, r.home)
			if len(spec.Roots) == 0 {
				return fail("sources", `source %q in %s has no standard location; give one: {id = %q, root = "/path/to/folder"}`, spec.ID, label, spec.ID)
			}
		}
		c.Sources = append(c.Sources, spec)
	}
	if rc.ChatTypes != nil {
		if len(rc.ChatTypes) == 0 {
			return fail("chatTypes", "empty chatTypes in %s; allowed: %s", label, strings.Join(allowedChatTypes, ", "))
		}
		for _, ct := range rc.ChatTypes {
			if !slices.Contains(allowedChatTypes, ct) {
				return fail("chatTypes", "unknown chat type %q in %s; allowed: %s", ct, label, strings.Join(allowedChatTypes, ", "))
			}
			if !slices.Contains(c.ChatTypes, ct) {
				c.ChatTypes = append(c.ChatTypes, ct)
			}
		}
	}
	c.MaxExpandedTokens = cairn.DefaultMaxExpandedTokens
	if v := rc.MaxExpandedTokens; v != nil {
		if *v < 1 || *v > 10000 {
			return fail("maxExpandedTokens", "maxExpandedTokens %d out of range in %s; allowed 1 to 10000", *v, label)
		}
		c.MaxExpandedTokens = *v
	}
	c.SyncIntervalMinutes = cairn.DefaultSyncIntervalMinutes
	if v := rc.SyncIntervalMinutes; v != nil {
		if *v < 0 || *v > 1440 {
			return fail("syncIntervalMinutes", "syncIntervalMinutes %d out of range in %s; allowed 0 (manual) to 1440", *v, label)
		}
		c.SyncIntervalMinutes = *v
	}
	c.KeepRemoved = rc.KeepRemoved == nil || *rc.KeepRemoved
	return c, nil
}

// sourceEntry reads "id" or {id = "...", root = "..." | [...]}.
func sourceEntry(raw any, r resolver) (cairn.SourceSpec, error) {
	var spec cairn.SourceSpec
	var roots []string
	switch v := raw.(type) {
	case string:
		spec.ID = v
	case map[string]any:
		for k := range v {
			if k != "id" && k != "root" {
				return spec, fmt.Errorf("unknown key %q; allowed keys: id, root", k)
			}
		}
		id, ok := v["id"].(string)
		if !ok {
			return spec, fmt.Errorf(`missing id; write {id = "codex", root = "/path"}`)
		}
		spec.ID = id
		switch rv := v["root"].(type) {
		case nil:
		case string:
			roots = []string{rv}
		case []any:
			for _, x := range rv {
				s, ok := x.(string)
				if !ok {
					return spec, fmt.Errorf("root must be a string or an array of strings")
				}
				roots = append(roots, s)
			}
		default:
			return spec, fmt.Errorf("root must be a string or an array of strings")
		}
	default:
		return spec, fmt.Errorf(`must be a source id or {id = "...", root = "..."}`)
	}
	if !slices.Contains(cairn.Sources, spec.ID) {
		return spec, fmt.Errorf("unknown source %q; allowed: %s", spec.ID, strings.Join(cairn.Sources, ", "))
	}
	for _, root := range roots {
		if strings.TrimSpace(root) == "" {
			return spec, fmt.Errorf("blank root")
		}
		abs, err := r.resolve(root)
		if err != nil {
			return spec, err
		}
		spec.Roots = append(spec.Roots, abs)
	}
	return spec, nil
}

// DefaultRoots returns where a source keeps its transcripts by default:
// the tool's own home folder(s), from its environment variables or the
// user's home (Cursor: the folder holding User/). Aider, OpenAI-chat and
// Loggie files have no standard place: they need a root.
func DefaultRoots(source string, getenv func(string) string, home string) []string {
	env := func(k, def string) []string {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return []string{v}
		}
		if home == "" {
			return nil
		}
		return []string{filepath.Join(home, def)}
	}
	switch source {
	case cairn.SourceClaudeCode:
		if v := strings.TrimSpace(getenv("CLAUDE_CONFIG_DIR")); v != "" {
			var out []string
			for _, d := range strings.Split(v, ",") {
				if d = strings.TrimSpace(d); d != "" {
					out = append(out, d)
				}
			}
			return out
		}
		var out []string
		if home != "" {
			out = append(out, filepath.Join(home, ".claude"))
		}
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			out = append(out, filepath.Join(xdg, "claude"))
		}
		return out
	case cairn.SourceCodex:
		return env("CODEX_HOME", ".codex")
	case cairn.SourceOpenClaw:
		return env("OPENCLAW_STATE_DIR", ".openclaw")
	case cairn.SourceGemini:
		return env("GEMINI_DATA_DIR", ".gemini")
	case cairn.SourceCursor:
		return cursorRoots(getenv, home)
	}
	return nil
}

// cursorRoots is Cursor's own folder, the one holding User/: the
// application data folder Electron gives it. Linux: $XDG_CONFIG_HOME/Cursor,
// else ~/.config/Cursor; macOS: ~/Library/Application Support/Cursor;
// Windows: %APPDATA%\Cursor.
func cursorRoots(getenv func(string) string, home string) []string {
	switch runtime.GOOS {
	case "darwin":
		if home != "" {
			return []string{filepath.Join(home, "Library", "Application Support", "Cursor")}
		}
	case "windows":
		if v := strings.TrimSpace(getenv("APPDATA")); v != "" {
			return []string{filepath.Join(v, "Cursor")}
		}
	default:
		if v := strings.TrimSpace(getenv("XDG_CONFIG_HOME")); v != "" {
			return []string{filepath.Join(v, "Cursor")}
		}
		if home != "" {
			return []string{filepath.Join(home, ".config", "Cursor")}
		}
	}
	return nil
}
