package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/cairnmemory/cairn/skills/curator"
)

// cairn skills install curator: the curator skill (skills/curator) written
// where the agents look for skills. Claude Code reads personal skills
// from ~/.claude/skills/<name>/SKILL.md (a project's from
// <project>/.claude/skills); OpenClaw reads managed skills from
// ~/.openclaw/skills/<name>/SKILL.md (a workspace's from
// <workspace>/skills). The file is written atomically; an existing one
// that differs is kept unless --force.

// skillTargets are the agents a skill can be installed for.
var skillTargets = []string{"claude-code", "openclaw"}

// installable are the skills Cairn ships, by the name the command takes.
var installable = map[string]struct{ folder, text string }{
	"curator": {curator.Name, curator.Skill},
}

func cmdSkillsInstall(_ context.Context, e *env, args []string) error {
	fs := e.flags("skills install")
	target := fs.String("target", "all", "agent to install for: claude-code, openclaw or all")
	dir := fs.String("dir", "", "a project (Claude Code: DIR/.claude/skills) or workspace (OpenClaw: DIR/skills) instead of the home directory")
	force := fs.Bool("force", false, "replace a SKILL.md that differs from this version")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("skills install needs one skill name: curator")
	}
	skill, ok := installable[pos[0]]
	if !ok {
		return usagef("skills install %q: allowed curator", pos[0])
	}
	targets := skillTargets
	if *target != "all" {
		if !slices.Contains(skillTargets, *target) {
			return usagef("--target %q: allowed claude-code, openclaw, all", *target)
		}
		targets = []string{*target}
	}
	for _, t := range targets {
		root, err := skillsRoot(t, *dir)
		if err != nil {
			return err
		}
		path := filepath.Join(root, skill.folder, "SKILL.md")
		state, err := installSkill(path, skill.text, *force)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: %s %s\n", t, state, path)
	}
	return nil
}

// skillsRoot is the skills directory of an agent: under dir when given,
// else under the home directory.
func skillsRoot(target, dir string) (string, error) {
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home directory: %w (give --dir)", err)
		}
		if target == "claude-code" {
			return filepath.Join(home, ".claude", "skills"), nil
		}
		return filepath.Join(home, ".openclaw", "skills"), nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve --dir %s: %w", dir, err)
	}
	if target == "claude-code" {
		return filepath.Join(abs, ".claude", "skills"), nil
	}
	return filepath.Join(abs, "skills"), nil
}

// installSkill writes text to path unless it holds it already: it says
// "installed", "updated" or "up to date". A different file is an error
// without force.
func installSkill(path, text string, force bool) (string, error) {
	old, err := os.ReadFile(path)
	switch {
	case err == nil && string(old) == text:
		return "up to date", nil
	case err == nil && !force:
		return "", fmt.Errorf("install skill %s: the file differs from this version (edited, or another version): %w; "+
			"keep it, or pass --force to replace it", path, fs.ErrExist)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("install skill %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("install skill: create %s: %w", filepath.Dir(path), err)
	}
	if err := writeFileAtomic(path, []byte(text), 0o644); err != nil { // hooks.go
		return "", err
	}
	if len(old) > 0 {
		return "updated", nil
	}
	return "installed", nil
}
