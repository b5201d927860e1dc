package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/ingest"
)

// corpusKeys are the keys of a [[corpus]] table, in documentation order.
var corpusKeys = []string{"name", "kind", "paths", "glob", "exclude", "defaultExcludes", "redact",
	"sources", "chatTypes", "maxExpandedTokens", "syncIntervalMinutes", "keepRemoved"}

const (
	allowedKeys  = "allowed keys: name, kind, paths, glob, exclude, defaultExcludes, redact (files); name, kind, sources, chatTypes, maxExpandedTokens, syncIntervalMinutes, keepRemoved (sessions)"
	allowedTop   = "allowed: [[corpus]] tables, [embedder], [llm.consolidate], [llm.fast], [llm.judge], [memorySearch], [memoryWhisperer], [skillWhisperer], [qualityAudit], [evidenceReview] and [store]"
	allowedKinds = `allowed kinds: "files", "sessions", "skills"`
)

// keyTypes says what each key holds, for type errors.
var keyTypes = map[string]string{
	"name":    "name must be a string",
	"kind":    "kind must be a string",
	"paths":   "paths must be an array of strings",
	"glob":    "glob must be a string",
	"exclude": "exclude must be an array of strings",
	"redact":  "redact must be true or false",

	"defaultExcludes": "defaultExcludes must be true or false",

	"sources":             `sources must be an array of source ids or {id = "...", root = "..."} tables`,
	"chatTypes":           "chatTypes must be an array of strings",
	"maxExpandedTokens":   "maxExpandedTokens must be an integer from 1 to 10000",
	"syncIntervalMinutes": "syncIntervalMinutes must be an integer from 0 to 1440",
	"keepRemoved":         "keepRemoved must be true or false",
}

// rawFile and rawCorpus are what the TOML decoder fills.
type rawFile struct {
	Corpus   []rawCorpus       `toml:"corpus"`
	LLM      map[string]rawLLM `toml:"llm"`
	Embedder *rawEmbedder      `toml:"embedder"`

	SkillWhisperer map[string]any `toml:"skillWhisperer"` // skills.go

	MemorySearch    *rawMemorySearch    `toml:"memorySearch"`    // enhanced.go
	MemoryWhisperer *rawMemoryWhisperer `toml:"memoryWhisperer"` // enhanced.go
	Store           *rawStore           `toml:"store"`           // store.go

	QualityAudit   *rawCurationGate `toml:"qualityAudit"`   // curation.go
	EvidenceReview *rawCurationGate `toml:"evidenceReview"` // curation.go
}

type rawCorpus struct {
	Name    string   `toml:"name"`
	Kind    string   `toml:"kind"`
	Paths   []string `toml:"paths"`
	Glob    *string  `toml:"glob"`
	Exclude []string `toml:"exclude"`
	Redact  *bool    `toml:"redact"`

	DefaultExcludes *bool `toml:"defaultExcludes"`

	Sources             []any    `toml:"sources"`
	ChatTypes           []string `toml:"chatTypes"`
	MaxExpandedTokens   *int     `toml:"maxExpandedTokens"`
	SyncIntervalMinutes *int     `toml:"syncIntervalMinutes"`
	KeepRemoved         *bool    `toml:"keepRemoved"`
}

// tableLayout is where one [[corpus]] table and its keys are in the file.
type tableLayout struct {
	line int            // header line
	name string         // value of name when it is a string
	keys map[string]int // key -> line
}

// parse decodes and validates a configuration file's contents.
func parse(file string, data []byte, r resolver) (*Config, error) {
	var raw rawFile
	var err error
	derr := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&raw)
	tables, serr := scan(file, data)
	if err := firstError(file, data, derr, serr, tables); err != nil {
		return nil, err
	}
	if len(tables) != len(raw.Corpus) {
		return nil, &LoadError{File: file, Line: 1, Msg: fmt.Sprintf("found %d [[corpus]] headers but decoded %d tables; %s", len(tables), len(raw.Corpus), allowedTop)}
	}
	cfg := &Config{Path: file, Exists: true}
	if cfg.LLM, err = validateLLM(file, data, raw.LLM); err != nil {
		return nil, err
	}
	if cfg.Judge, err = validateJudge(file, data, judgeTable(raw.LLM), cfg.LLM); err != nil {
		return nil, err
	}
	if cfg.Embedder, err = validateEmbedder(file, data, raw.Embedder, r); err != nil {
		return nil, err
	}
	seen := make(map[string]int) // lower-cased name -> header line
	for i, rc := range raw.Corpus {
		c, err := validate(file, rc, tables[i], seen, r)
		if err != nil {
			return nil, err
		}
		cfg.Corpora = append(cfg.Corpora, c)
	}
	if cfg.SkillWhisperer, err = validateSkillWhisperer(file, data, raw.SkillWhisperer, cfg); err != nil { // skills.go
		return nil, err
	}
	if err := validateEnhanced(file, data, raw, cfg); err != nil {
		return nil, err
	}
	if err := validateStore(file, data, raw.Store, r, cfg); err != nil { // store.go
		return nil, err
	}
	if err := validateCuration(file, data, raw.QualityAudit, raw.EvidenceReview, cfg); err != nil { // curation.go
		return nil, err
	}
	return cfg, nil
}

// firstError picks the error to report from the decoder's and the scan's:
// the one earlier in the file, the scan's on a tie since it names tables
// more precisely. A syntax error comes from the decoder, which positions it.
func firstError(file string, data []byte, derr, serr error, tables []tableLayout) error {
	var shape *LoadError
	if serr != nil && !errors.As(serr, &shape) && derr == nil {
		return fmt.Errorf("read config %s: %w", file, serr)
	}
	if derr == nil {
		return serr
	}
	err := decodeError(file, data, derr, tables)
	var le *LoadError
	if shape != nil && (!errors.As(err, &le) || shape.Line <= le.Line) {
		return shape
	}
	return err
}

// decodeError turns a go-toml error into a *LoadError.
func decodeError(file string, data []byte, err error, tables []tableLayout) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		line, _ := e.Position()
		key := e.Key()
		if len(key) >= 2 && key[0] == "corpus" {
			return unknownKey(file, line, strings.Join(key[1:], "."), tableAt(tables, line))
		}
		return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q; %s", strings.Join(key, "."), allowedTop)}
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("read config %s: %w", file, err)
	}
	line, _ := de.Position()
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	key := de.Key()
	if strings.HasPrefix(msg, "cannot decode") && len(key) > 0 && key[0] != "corpus" {
		return &LoadError{File: file, Line: line, Msg: typeError(data, key)} // typeerr.go
	}
	if !strings.HasPrefix(msg, "cannot decode") || len(key) == 0 || key[0] != "corpus" {
		return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("invalid TOML: %s; see https://toml.io", msg)}
	}
	if len(key) == 1 {
		return &LoadError{File: file, Line: line, Msg: "corpus must be written as [[corpus]] tables; " + allowedTop}
	}
	t := tableAt(tables, line)
	if want, ok := keyTypes[key[1]]; ok {
		return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("wrong type for %q in %s; %s", key[1], t.label(), want)}
	}
	return unknownKey(file, line, strings.Join(key[1:], "."), t)
}

func unknownKey(file string, line int, key string, t tableLayout) error {
	return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in %s; %s", key, t.label(), allowedKeys)}
}

// label names a table in messages: [[corpus]] "notes", or by header line
// when it has no usable name.
func (t tableLayout) label() string {
	if t.name != "" {
		return fmt.Sprintf("[[corpus]] %q", t.name)
	}
	if t.line > 0 {
		return fmt.Sprintf("[[corpus]] at line %d", t.line)
	}
	return "[[corpus]]"
}

// tableAt returns the last table whose header is at or before line.
func tableAt(tables []tableLayout, line int) tableLayout {
	var t tableLayout
	for _, c := range tables {
		if c.line <= line {
			t = c
		}
	}
	return t
}

// scan walks the document's top-level expressions to record the line of
// each [[corpus]] header and key, and rejects anything but [[corpus]] tables
// holding the allowed keys, spelled exactly (the decoder accepts a [corpus]
// table and keys that differ only in case). On error it still returns the
// tables seen so far, to name them in messages.
func scan(file string, data []byte) ([]tableLayout, error) {
	var p unstable.Parser
	p.Reset(data)
	var tables []tableLayout
	llm := "" // the [llm.<purpose>] table being read, if any
	for p.NextExpression() {
		expr := p.Expression()
		line := p.Shape(expr.Raw).Start.Line
		key := keyParts(expr)
		if expr.Kind == unstable.Table || expr.Kind == unstable.ArrayTable {
			line = keyLine(&p, expr)
		}
		switch expr.Kind {
		case unstable.ArrayTable:
			if !slices.Equal(key, []string{"corpus"}) {
				return tables, &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown table [[%s]]; %s", strings.Join(key, "."), allowedTop)}
			}
			llm = ""
			tables = append(tables, tableLayout{line: line, keys: make(map[string]int)})
		case unstable.Table:
			if len(key) == 2 && key[0] == "llm" && (slices.Contains(llmPurposes, key[1]) || key[1] == judgePurpose) {
				llm = key[1]
				continue
			}
			if len(key) == 1 && key[0] == "embedder" {
				llm = "embedder"
				continue
			}
			if isSkillWhispererTable(key) { // skills.go
				llm = skillWhispererTable
				continue
			}
			if enhancedTable(key) { // enhanced.go
				llm = "enhanced:" + strings.Join(key, ".")
				continue
			}
			if isStoreTable(key) { // store.go
				llm = "store"
				continue
			}
			if curationTable(key) { // curation.go
				llm = "curation:" + key[0]
				continue
			}
			return tables, &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown table [%s]; %s", strings.Join(key, "."), allowedTop)}
		case unstable.KeyValue:
			line = keyLine(&p, expr)
			if llm == skillWhispererTable {
				if err := checkSkillWhispererKey(file, line, key); err != nil {
					return tables, err
				}
				continue
			}
			if llm == "embedder" {
				if len(key) != 1 || !slices.Contains(embedderKeys, key[0]) {
					return tables, &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in [embedder]; allowed keys: %s", strings.Join(key, "."), strings.Join(embedderKeys, ", "))}
				}
				continue
			}
			if table, ok := strings.CutPrefix(llm, "curation:"); ok {
				if err := curationKey(file, line, table, key); err != nil {
					return tables, err
				}
				continue
			}
			if llm == "store" {
				if err := storeKey(file, line, key); err != nil {
					return tables, err
				}
				continue
			}
			if table, ok := strings.CutPrefix(llm, "enhanced:"); ok {
				if err := enhancedKey(file, line, table, key); err != nil {
					return tables, err
				}
				continue
			}
			if llm != "" {
				keys := llmKeys
				if llm == judgePurpose {
					keys = judgeKeys
				}
				if len(key) != 1 || !slices.Contains(keys, key[0]) {
					return tables, &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in [llm.%s]; allowed keys: %s", strings.Join(key, "."), llm, strings.Join(keys, ", "))}
				}
				continue
			}
			if len(tables) == 0 && slices.Equal(key, []string{"corpus"}) {
				return tables, &LoadError{File: file, Line: line, Msg: "corpus must be written as [[corpus]] tables; " + allowedTop}
			}
			if len(tables) == 0 {
				return tables, &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q; %s", strings.Join(key, "."), allowedTop)}
			}
			t := &tables[len(tables)-1]
			if len(key) != 1 || !slices.Contains(corpusKeys, key[0]) {
				return tables, unknownKey(file, line, strings.Join(key, "."), *t)
			}
			t.keys[key[0]] = line
			if v := expr.Value(); key[0] == "name" && v.Kind == unstable.String {
				t.name = string(v.Data)
			}
		}
	}
	return tables, p.Error()
}

func keyParts(n *unstable.Node) []string {
	if n.Kind != unstable.KeyValue && n.Kind != unstable.Table && n.Kind != unstable.ArrayTable {
		return nil
	}
	var parts []string
	it := n.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// keyLine returns the line of the first part of a node's key.
func keyLine(p *unstable.Parser, n *unstable.Node) int {
	it := n.Key()
	if it.Next() {
		return p.Shape(it.Node().Raw).Start.Line
	}
	return p.Shape(n.Raw).Start.Line
}

// globRule is what glob and exclude patterns allow, as ingest.CompileGlob
// reads them; checked here so a bad one names its line when the config
// loads, not only when a sync resolves the corpus.
const globRule = "allowed: a relative pattern of *, **, ?, [a-z] classes and {a,b} alternatives, e.g. \"**/*.md\""

// validate checks one decoded [[corpus]] table and resolves its paths.
func validate(file string, rc rawCorpus, t tableLayout, seen map[string]int, r resolver) (Corpus, error) {
	fail := func(key, format string, args ...any) (Corpus, error) {
		line, ok := t.keys[key]
		if !ok {
			line = t.line
		}
		return Corpus{}, &LoadError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	label := t.label()
	switch {
	case strings.TrimSpace(rc.Name) == "":
		return fail("name", "missing or blank name in %s; %s", label, nameRule)
	case !namePattern.MatchString(rc.Name):
		return fail("name", "invalid name %q in %s; %s", rc.Name, label, nameRule)
	case isReserved(rc.Name):
		return fail("name", "reserved name %q in %s; %s", rc.Name, label, reservedRule())
	}
	if first, dup := seen[strings.ToLower(rc.Name)]; dup {
		return fail("name", "duplicate name %q in %s (first used at line %d); names must be unique, ignoring case", rc.Name, label, first)
	}
	seen[strings.ToLower(rc.Name)] = t.line
	switch {
	case rc.Kind == "":
		return fail("kind", "missing kind in %s; %s", label, allowedKinds)
	case rc.Kind == cairn.KindSessions:
		return validateSessions(rc, t, fail, r)
	case rc.Kind == cairn.KindSkills:
		return validateSkills(rc, t, fail, r) // skills.go
	case rc.Kind != cairn.KindFiles:
		return fail("kind", "unknown kind %q in %s; %s", rc.Kind, label, allowedKinds)
	case strings.EqualFold(rc.Name, cairn.KindSessions):
		return fail("kind", `the corpus named "sessions" in %s must have kind = "sessions"; name a files corpus otherwise`, label)
	case strings.EqualFold(rc.Name, cairn.KindSkills):
		return fail("kind", `the corpus named "skills" in %s must have kind = "skills"; name a files corpus otherwise`, label)
	}
	for _, k := range []string{"sources", "chatTypes", "maxExpandedTokens", "syncIntervalMinutes", "keepRemoved"} {
		if _, ok := t.keys[k]; ok {
			return fail(k, "key %q in %s belongs to sessions corpora; allowed keys for files: name, kind, paths, glob, exclude, defaultExcludes, redact", k, label)
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
	var glob string
	if rc.Glob != nil {
		if strings.TrimSpace(*rc.Glob) == "" {
			return fail("glob", "blank glob in %s; glob must be a non-blank pattern, or left out for the default %q", label, cairn.DefaultGlob)
		}
		glob = *rc.Glob
		if _, err := ingest.CompileGlob(glob); err != nil {
			return fail("glob", "%s in %s; %s", err, label, globRule)
		}
	}
	for i, e := range rc.Exclude {
		if strings.TrimSpace(e) == "" {
			return fail("exclude", "blank entry %d in exclude of %s; exclude must be an array of non-blank glob patterns", i+1, label)
		}
		if _, err := ingest.CompileGlob(e); err != nil {
			return fail("exclude", "entry %d of exclude: %s in %s; %s", i+1, err, label, globRule)
		}
	}
	return Corpus{
		Name: rc.Name, Kind: rc.Kind, Paths: paths, Glob: glob,
		Exclude: slices.Clone(rc.Exclude), NoRedact: rc.Redact != nil && !*rc.Redact, Line: t.line,
		NoDefaultExcludes: rc.DefaultExcludes != nil && !*rc.DefaultExcludes,
	}, nil
}

// resolver makes configured paths absolute.
type resolver struct {
	dir    string // the config file's directory
	home   string // expands "~/"; empty: "~" is an error
	keep   bool   // leave "~" paths unexpanded (validation only)
	getenv func(string) string
}

func (r resolver) resolve(p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		switch {
		case r.keep:
			return p, nil
		case r.home == "":
			return "", fmt.Errorf("cannot expand %q: no home directory known", p)
		}
		return filepath.Join(r.home, p[1:]), nil
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(r.dir, p), nil
}
