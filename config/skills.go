package config

import (
	"fmt"
	"math"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/cairnmemory/cairn"
)

// The skills corpus and the [skillWhisperer] table (spec C3, C4, C30).
//
//	[[corpus]]
//	name  = "skills"            # the one name a skills corpus may have
//	kind  = "skills"
//	paths = ["~/.claude/skills", "skills/*"]
//
//	[skillWhisperer]
//	enabled         = true      # needs the skills corpus
//	historyMessages = 5         # integer ≥ 0
//	minScore        = 0.5       # 0 to 1, local mode only
//	cooldownTurns   = 10        # integer ≥ 0
//
// A skills corpus takes name, kind and paths only; its paths resolve as a
// files corpus's do. It is never indexed (package skills reads it in
// memory) and never a search's corpus.

// Defaults of [skillWhisperer].
const (
	DefaultSkillHistoryMessages = 5
	DefaultSkillMinScore        = 0.5
	DefaultSkillCooldownTurns   = 10
)

// skillsGlob is what a skills corpus takes under a folder (skills.Pattern;
// SKILL.md in any case).
const skillsGlob = "**/SKILL.md"

// skillWhispererTable is the table's name in the file.
const skillWhispererTable = "skillWhisperer"

// skillWhispererKeys are the keys of [skillWhisperer], in documentation
// order.
var skillWhispererKeys = []string{"enabled", "historyMessages", "minScore", "cooldownTurns"}

// SkillWhisperer is the [skillWhisperer] table with defaults filled.
type SkillWhisperer struct {
	Enabled         bool
	HistoryMessages int     // visible messages before the prompt that the query holds
	MinScore        float64 // local mode: the least cosine similarity of a hint
	CooldownTurns   int     // turns a suggested or opened skill is not hinted again
}

// DefaultSkillWhisperer is the table's value when the file leaves it out.
func DefaultSkillWhisperer() SkillWhisperer {
	return SkillWhisperer{HistoryMessages: DefaultSkillHistoryMessages, MinScore: DefaultSkillMinScore, CooldownTurns: DefaultSkillCooldownTurns}
}

// SkillsCorpus returns the skills corpus, if one is configured.
func (c *Config) SkillsCorpus() (Corpus, bool) {
	for _, k := range c.Corpora {
		if k.Kind == cairn.KindSkills {
			return k, true
		}
	}
	return Corpus{}, false
}

// skillWarnings says when the skill whisperer is on but cannot name a
// skill: it embeds them, and there is no embedder.
func skillWarnings(c *Config) []string {
	if !c.SkillWhisperer.Enabled || c.Embedder != nil {
		return nil
	}
	return []string{fmt.Sprintf("config %s: [skillWhisperer] is enabled but no [embedder] is configured: skills are matched by their embeddings, so it names none", c.Path)}
}

// validateSkills checks a kind = "skills" table: named "skills", with
// paths and nothing else.
func validateSkills(rc rawCorpus, t tableLayout, fail func(key, format string, args ...any) (Corpus, error), r resolver) (Corpus, error) {
	label := t.label()
	if rc.Name != cairn.KindSkills {
		return fail("name", `a skills corpus must be named "skills", not %q in %s; allowed name: "skills"`, rc.Name, label)
	}
	for _, k := range corpusKeys {
		if _, ok := t.keys[k]; ok && k != "name" && k != "kind" && k != "paths" {
			return fail(k, "key %q in %s does not apply to a skills corpus; allowed keys: name, kind, paths", k, label)
		}
	}
	if len(rc.Paths) == 0 {
		return fail("paths", "missing or empty paths in %s; paths must be a non-empty array of non-blank strings", label)
	}
	paths := make([]string, len(rc.Paths))
	for i, p := range rc.Paths {
		if strings.TrimSpace(p) == "" {
			return fail("paths", "blank entry %d in paths of %s; paths must be a non-empty array of non-blank strings", i+1, label)
		}
		abs, err := r.resolve(p)
		if err != nil {
			return fail("paths", "%v in paths of %s; use an absolute path or one relative to the config file", err, label)
		}
		paths[i] = abs
	}
	return Corpus{Name: rc.Name, Kind: cairn.KindSkills, Paths: paths, Line: t.line}, nil
}

// validateSkillWhisperer checks the decoded [skillWhisperer] table (nil
// when absent) once the corpora are known.
func validateSkillWhisperer(file string, data []byte, raw map[string]any, cfg *Config) (SkillWhisperer, error) {
	sw := DefaultSkillWhisperer()
	if raw == nil {
		return sw, nil
	}
	lines := tableKeyLines(data, skillWhispererTable)
	fail := func(key, format string, args ...any) error {
		line, ok := lines[key]
		if !ok {
			line = lines[""]
		}
		return &LoadError{File: file, Line: line, Msg: "[skillWhisperer] " + fmt.Sprintf(format, args...)}
	}
	for _, k := range skillWhispererKeys { // documentation order, so the first bad key is reported
		v, ok := raw[k]
		if !ok {
			continue
		}
		var err error
		switch k {
		case "enabled":
			b, isBool := v.(bool)
			if !isBool {
				err = fail(k, "enabled = %s; allowed: true or false", tomlValue(v))
			}
			sw.Enabled = b
		case "historyMessages":
			sw.HistoryMessages, err = nonNegative(v, func(f string, a ...any) error { return fail(k, f, a...) }, k)
		case "cooldownTurns":
			sw.CooldownTurns, err = nonNegative(v, func(f string, a ...any) error { return fail(k, f, a...) }, k)
		case "minScore":
			f, isNum := number(v)
			if !isNum || f < 0 || f > 1 || math.IsNaN(f) {
				err = fail(k, "minScore = %s; allowed: a number from 0 to 1", tomlValue(v))
			}
			sw.MinScore = f
		}
		if err != nil {
			return sw, err
		}
	}
	if _, ok := cfg.SkillsCorpus(); sw.Enabled && !ok {
		return sw, fail("enabled", `enabled = true needs a skills corpus; add [[corpus]] name = "skills", kind = "skills", paths = [...]`)
	}
	return sw, nil
}

func nonNegative(v any, fail func(string, ...any) error, key string) (int, error) {
	n, ok := v.(int64)
	if !ok || n < 0 || n > math.MaxInt32 {
		return 0, fail("%s = %s; allowed: an integer from 0 to %d", key, tomlValue(v), math.MaxInt32)
	}
	return int(n), nil
}

// number reads a TOML integer or float.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// tomlValue writes a decoded value as TOML would, for messages.
func tomlValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(strings.TrimPrefix(string(b), "v = "))
}

// tableKeyLines returns the line of each key of the top-level [table] in
// data, and the header's line under "".
func tableKeyLines(data []byte, table string) map[string]int {
	out := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	in := false
	for p.NextExpression() {
		expr := p.Expression()
		key := keyParts(expr)
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			in = expr.Kind == unstable.Table && len(key) == 1 && key[0] == table
			if in {
				out[""] = keyLine(&p, expr)
			}
		case unstable.KeyValue:
			if in && len(key) == 1 {
				out[key[0]] = keyLine(&p, expr)
			}
		}
	}
	return out
}

// isSkillWhispererTable reports whether a table header is [skillWhisperer].
func isSkillWhispererTable(key []string) bool {
	return len(key) == 1 && key[0] == skillWhispererTable
}

// checkSkillWhispererKey rejects a key [skillWhisperer] does not have.
func checkSkillWhispererKey(file string, line int, key []string) error {
	if len(key) == 1 && slices.Contains(skillWhispererKeys, key[0]) {
		return nil
	}
	return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in [skillWhisperer]; allowed keys: %s", strings.Join(key, "."), strings.Join(skillWhispererKeys, ", "))}
}
