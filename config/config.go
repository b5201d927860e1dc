package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnmemory/cairn"
)

// Config is a loaded configuration file.
type Config struct {
	Path    string // absolute path of the file
	Exists  bool   // false when the file is missing (no corpora)
	Corpora []Corpus
	LLM     map[string]LLM // by purpose: "consolidate", "fast"
	// Judge is the judge model: [llm.judge], else the [llm.fast] endpoint
	// (see Judge).
	Judge Judge
	// MemorySearch and MemoryWhisperer are the enhanced-mode tables of
	// C11 and C29 (enhanced.go), defaults filled.
	MemorySearch    MemorySearch
	MemoryWhisperer MemoryWhisperer
	// SkillWhisperer is the [skillWhisperer] table (skills.go), defaults
	// filled; zero (disabled) when the file is missing.
	SkillWhisperer SkillWhisperer
	// QualityAudit and EvidenceReview gate the judged curation tools
	// (curation.go); zero (disabled) when the file is missing.
	QualityAudit   QualityAudit
	EvidenceReview EvidenceReview
	// Embedder is the [embedder] table; nil when absent or provider "none".
	Embedder *Embedder
	// Store is the [store] table (store.go); zero: SQLite files.
	Store Store
	// Warnings are what Load found likely wrong but not invalid (two
	// corpora covering the same files); callers print them.
	Warnings []string
}

// Corpus is one [[corpus]] table as loaded: Paths are absolute, Glob is
// empty when the file leaves it out, NoRedact is set by redact = false,
// NoDefaultExcludes by defaultExcludes = false, Line is the line of its
// header.
type Corpus struct {
	Name     string
	Kind     string
	Paths    []string
	Glob     string
	Exclude  []string
	NoRedact bool
	Line     int

	NoDefaultExcludes bool

	// Sessions corpora.
	Sources             []cairn.SourceSpec // roots as configured; empty means the defaults
	ChatTypes           []string
	MaxExpandedTokens   int
	SyncIntervalMinutes int
	KeepRemoved         bool
}

// LoadOptions tune Load. A nil *LoadOptions means no home directory, so
// paths starting with "~/" are an error.
type LoadOptions struct {
	Home   string              // expands a leading "~/" in paths
	Getenv func(string) string // finds the default transcript roots (CODEX_HOME, ...); nil: none set
	// Named marks a path the user named (--config): a missing file is
	// then an error, not an empty configuration. Only the default location
	// may be absent.
	Named bool
}

// LoadError is an invalid configuration file. Its message reads
// "config <file>:<line>: <what is wrong>; <allowed values>". It wraps
// cairn.ErrInvalid.
type LoadError struct {
	File string
	Line int
	Msg  string
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("config %s:%d: %s", e.File, e.Line, e.Msg)
}

func (e *LoadError) Unwrap() error { return cairn.ErrInvalid }

// Load reads and validates the configuration file at path. A missing file is
// not an error, unless opts.Named: it returns a Config with Exists false and
// no corpora. A missing named file is an error wrapping cairn.ErrInvalid.
func Load(path string, opts *LoadOptions) (*Config, error) {
	var home string
	if opts != nil {
		home = opts.Home
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if opts != nil && opts.Named {
			return nil, cairn.Invalidf("read config %s: no such file; allowed: an existing config file (create one with cairn init --config %s), or no --config for the default location", abs, path)
		}
		return &Config{Path: abs}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", abs, err)
	}
	getenv := func(string) string { return "" }
	if opts != nil && opts.Getenv != nil {
		getenv = opts.Getenv
	}
	cfg, err := parse(abs, data, resolver{dir: filepath.Dir(abs), home: home, getenv: getenv})
	if err != nil {
		return nil, err
	}
	cfg.Warnings = append(overlapWarnings(cfg), skillWarnings(cfg)...)
	cfg.Warnings = append(cfg.Warnings, whispererWarnings(cfg)...) // warnings.go
	cfg.Warnings = append(cfg.Warnings, keyFileWarnings(cfg)...)
	return cfg, nil
}

// ToCorpora returns the corpora as library values, with the default glob
// filled in.
func (c *Config) ToCorpora() []cairn.Corpus {
	out := make([]cairn.Corpus, 0, len(c.Corpora))
	for _, k := range c.Corpora {
		out = append(out, k.toCairn())
	}
	return out
}

func (k Corpus) toCairn() cairn.Corpus {
	if k.Kind == cairn.KindSessions {
		var srcs []cairn.SourceSpec
		for _, s := range k.Sources {
			srcs = append(srcs, cairn.SourceSpec{ID: s.ID, Roots: append([]string(nil), s.Roots...)})
		}
		return cairn.Corpus{Name: k.Name, Kind: k.Kind, Sources: srcs, ChatTypes: append([]string(nil), k.ChatTypes...),
			MaxExpandedTokens: k.MaxExpandedTokens, SyncIntervalMinutes: k.SyncIntervalMinutes, DropRemoved: !k.KeepRemoved}
	}
	if k.Kind == cairn.KindSkills { // read by package skills, never indexed
		return cairn.Corpus{Name: k.Name, Kind: k.Kind, Paths: append([]string(nil), k.Paths...), Glob: skillsGlob}
	}
	glob := k.Glob
	if glob == "" {
		glob = cairn.DefaultGlob
	}
	return cairn.Corpus{
		Name:     k.Name,
		Kind:     k.Kind,
		Paths:    append([]string(nil), k.Paths...),
		Glob:     glob,
		Exclude:  append([]string(nil), k.Exclude...),
		NoRedact: k.NoRedact,

		NoDefaultExcludes: k.NoDefaultExcludes,
	}
}

// Select returns the corpora a `corpora` argument names; the rules are
// cairn.SelectCorpora's.
func (c *Config) Select(names []string) ([]cairn.Corpus, error) {
	return cairn.SelectCorpora(c.ToCorpora(), names)
}

// invalidError is a usage error whose message is exactly msg.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return cairn.ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
