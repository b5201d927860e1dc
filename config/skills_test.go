package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

const skillsCorpus = `
[[corpus]]
name = "skills"
kind = "skills"
paths = ["skills", "/opt/skills/*"]
`

func TestSkillsConfig(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, skillsCorpus+`
[skillWhisperer]
enabled = true
historyMessages = 0
minScore = 1
cooldownTurns = 3
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "no [embedder]") {
		t.Fatalf("warnings = %q, want the missing embedder", cfg.Warnings)
	}
	c, ok := cfg.SkillsCorpus()
	if !ok || c.Kind != cairn.KindSkills || !cmp.Equal(c.Paths, []string{filepath.Join(dir, "skills"), "/opt/skills/*"}) {
		t.Fatalf("skills corpus = %+v, %v", c, ok)
	}
	want := SkillWhisperer{Enabled: true, HistoryMessages: 0, MinScore: 1, CooldownTurns: 3}
	if cfg.SkillWhisperer != want {
		t.Fatalf("skillWhisperer = %+v, want %+v", cfg.SkillWhisperer, want)
	}
	if got := cfg.ToCorpora(); len(got) != 1 || got[0].Glob != "**/SKILL.md" || got[0].Kind != cairn.KindSkills || len(got[0].Paths) != 2 {
		t.Fatalf("ToCorpora = %+v", got)
	}
	// Never a search's corpus, even "all".
	if _, err := cfg.Select([]string{"skills"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Fatalf("select skills: %v", err)
	}
	// Left out: the defaults.
	cfg, err = Load(writeConfig(t, dir, skillsCorpus), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Fatalf("warnings with the whisperer off: %q", cfg.Warnings)
	}
	if cfg.SkillWhisperer != DefaultSkillWhisperer() || DefaultSkillWhisperer() != (SkillWhisperer{HistoryMessages: 5, MinScore: 0.5, CooldownTurns: 10}) {
		t.Fatalf("defaults = %+v", cfg.SkillWhisperer)
	}
	cfg, err = Load(writeConfig(t, dir, "[skillWhisperer]\nminScore = 0\n"), nil)
	if err != nil || cfg.SkillWhisperer.MinScore != 0 || cfg.SkillWhisperer.Enabled {
		t.Fatalf("minScore 0 without a corpus (disabled): %+v, %v", cfg.SkillWhisperer, err)
	}
}

func TestSkillsConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		want       string // in the message
	}{
		{"history negative", skillsCorpus + "[skillWhisperer]\nhistoryMessages = -1\n", 7, "historyMessages = -1; allowed: an integer from 0"},
		{"history float", skillsCorpus + "[skillWhisperer]\nhistoryMessages = 0.5\n", 7, "historyMessages = 0.5; allowed: an integer"},
		{"history string", skillsCorpus + "[skillWhisperer]\nhistoryMessages = \"5\"\n", 7, `historyMessages = "5"`},
		{"cooldown negative", skillsCorpus + "[skillWhisperer]\ncooldownTurns = -2\n", 7, "cooldownTurns = -2"},
		{"cooldown bool", skillsCorpus + "[skillWhisperer]\ncooldownTurns = true\n", 7, "cooldownTurns = true"},
		{"minScore above", skillsCorpus + "[skillWhisperer]\nminScore = 1.5\n", 7, "minScore = 1.5; allowed: a number from 0 to 1"},
		{"minScore below", skillsCorpus + "[skillWhisperer]\nminScore = -0.1\n", 7, "minScore = -0.1"},
		{"minScore nan", skillsCorpus + "[skillWhisperer]\nminScore = nan\n", 7, "minScore = nan"},
		{"enabled string", skillsCorpus + "[skillWhisperer]\nenabled = \"yes\"\n", 7, `enabled = "yes"; allowed: true or false`},
		{"enabled needs corpus", "[skillWhisperer]\nenabled = true\n", 2, "enabled = true needs a skills corpus"},
		{"unknown key", skillsCorpus + "[skillWhisperer]\nmaxHints = 1\n", 7, `unknown key "maxHints" in [skillWhisperer]; allowed keys: enabled, historyMessages, minScore, cooldownTurns`},
		{"wrong name", "[[corpus]]\nname = \"tools\"\nkind = \"skills\"\npaths = [\"x\"]\n", 2, `a skills corpus must be named "skills"`},
		{"files named skills", "[[corpus]]\nname = \"skills\"\nkind = \"files\"\npaths = [\"x\"]\n", 3, `must have kind = "skills"`},
		{"no paths", "[[corpus]]\nname = \"skills\"\nkind = \"skills\"\n", 1, "missing or empty paths"},
		{"blank path", "[[corpus]]\nname = \"skills\"\nkind = \"skills\"\npaths = [\" \"]\n", 4, "blank entry 1 in paths"},
		{"files key", "[[corpus]]\nname = \"skills\"\nkind = \"skills\"\npaths = [\"x\"]\nglob = \"*.md\"\n", 5, `key "glob" in [[corpus]] "skills" does not apply to a skills corpus`},
		{"two skills corpora", skillsCorpus + skillsCorpus, 8, `duplicate name "skills"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), tc.text)
			_, err := Load(path, nil)
			var le *LoadError
			if !errors.As(err, &le) || !errors.Is(err, cairn.ErrInvalid) {
				t.Fatalf("Load: %v, want a LoadError", err)
			}
			if le.Line != tc.line || !strings.Contains(le.Msg, tc.want) {
				t.Fatalf("error %q at line %d; want line %d containing %q", le.Msg, le.Line, tc.line, tc.want)
			}
		})
	}
}
