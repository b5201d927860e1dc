package config

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/cairnmemory/cairn"
)

// The enhanced-mode tables of the memory side (C2, C11, C29):
//
//	[memorySearch]
//	mode = "local"            # or "judged": memory_search asks the judge ([llm.judge])
//
//	[memoryWhisperer]
//	enabled = false           # needs the judge and non-empty corpora
//	corpora = ["memories"]    # non-skill corpora (memories included), never "all"; duplicates dropped
//	minUsefulness = 0.7       # 0 to 1
//	maxHints = 2              # 1 to 2
//	cooldownTurns = 10        # 0 to 1000
//	timeoutMs = 3000          # 1 to 10000, the whole whisper's deadline
//	complementaryHints = false
//
//	[memoryWhisperer.queryModel] # the model writing {lex, vec}; absent: [llm.fast]
//	endpoint = "http://127.0.0.1:8080/v1"
//	api = "openai"            # or "anthropic"
//	model = "qwen3-0.6b"
//	apiKeyFile = "/abs/key"   # optional
//
// Keys are camelCase as C2 spells them. Every key is range-checked at load
// and an error names the table, the key and the allowed values.

// Defaults of the enhanced tables.
const (
	DefaultWhisperMinUsefulness = 0.7
	DefaultWhisperMaxHints      = 2
	DefaultWhisperCooldownTurns = 10
	DefaultWhisperTimeoutMs     = 3000
	MaxWhisperCooldownTurns     = 1000
	MaxWhisperTimeoutMs         = 10000
)

// Memory search modes.
const (
	SearchLocal  = "local"
	SearchJudged = "judged"
)

var (
	memorySearchKeys    = []string{"mode"}
	memoryWhispererKeys = []string{"enabled", "corpora", "minUsefulness", "maxHints", "cooldownTurns", "timeoutMs", "complementaryHints"}
	queryModelKeys      = []string{"endpoint", "api", "model", "apiKeyFile"}
)

// MemorySearch is the [memorySearch] table.
type MemorySearch struct {
	Mode string // SearchLocal or SearchJudged; "" (no table): local
}

// Judged reports whether memory_search runs in enhanced mode.
func (m MemorySearch) Judged() bool { return m.Mode == SearchJudged }

// MemoryWhisperer is the [memoryWhisperer] table with defaults filled;
// the zero value is a file without the table (Filled gives its defaults).
type MemoryWhisperer struct {
	Enabled            bool
	Corpora            []string
	MinUsefulness      float64
	MaxHints           int
	CooldownTurns      int
	TimeoutMs          int
	ComplementaryHints bool
	// QueryModel writes the {lex, vec} queries; nil: the [llm.fast] model.
	QueryModel *QueryModel
}

// QueryModel is [memoryWhisperer.queryModel]. Endpoint has no trailing
// slash.
type QueryModel struct {
	Endpoint, API, Model, APIKeyFile string
}

// LLM is the query model as an [llm.<purpose>] table, for llm.New.
func (q QueryModel) LLM() LLM {
	return LLM{API: q.API, BaseURL: q.Endpoint, Model: q.Model, APIKeyFile: q.APIKeyFile}
}

// Filled returns w, or the defaults when w is the zero value (no table).
func (w MemoryWhisperer) Filled() MemoryWhisperer {
	if w.MaxHints == 0 {
		return DefaultMemoryWhisperer()
	}
	return w
}

// DefaultMemoryWhisperer is the table a file without one gets.
func DefaultMemoryWhisperer() MemoryWhisperer {
	return MemoryWhisperer{Corpora: []string{}, MinUsefulness: DefaultWhisperMinUsefulness, MaxHints: DefaultWhisperMaxHints,
		CooldownTurns: DefaultWhisperCooldownTurns, TimeoutMs: DefaultWhisperTimeoutMs}
}

type rawMemorySearch struct {
	Mode *string `toml:"mode"`
}

type rawMemoryWhisperer struct {
	Enabled            *bool          `toml:"enabled"`
	Corpora            []string       `toml:"corpora"`
	MinUsefulness      *float64       `toml:"minUsefulness"`
	MaxHints           *int           `toml:"maxHints"`
	CooldownTurns      *int           `toml:"cooldownTurns"`
	TimeoutMs          *int           `toml:"timeoutMs"`
	ComplementaryHints *bool          `toml:"complementaryHints"`
	QueryModel         *rawQueryModel `toml:"queryModel"`
}

type rawQueryModel struct {
	Endpoint   string `toml:"endpoint"`
	API        string `toml:"api"`
	Model      string `toml:"model"`
	APIKeyFile string `toml:"apiKeyFile"`
}

// enhancedTable reports whether key names one of this file's tables.
func enhancedTable(key []string) bool {
	switch strings.Join(key, ".") {
	case "memorySearch", "memoryWhisperer", "memoryWhisperer.queryModel":
		return true
	}
	return false
}

// enhancedKey checks a key of one of this file's tables.
func enhancedKey(file string, line int, table string, key []string) error {
	allowed := map[string][]string{"memorySearch": memorySearchKeys, "memoryWhisperer": memoryWhispererKeys,
		"memoryWhisperer.queryModel": queryModelKeys}[table]
	if table == "memoryWhisperer" && len(key) == 2 && key[0] == "queryModel" && slices.Contains(queryModelKeys, key[1]) {
		return nil // memoryWhisperer.queryModel.endpoint = ... written as a dotted key
	}
	if len(key) != 1 || !slices.Contains(allowed, key[0]) {
		return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in [%s]; allowed keys: %s", strings.Join(key, "."), table, strings.Join(allowed, ", "))}
	}
	return nil
}

// validateEnhanced checks the tables against the configured corpora and
// fills cfg.MemorySearch and cfg.MemoryWhisperer.
func validateEnhanced(file string, data []byte, raw rawFile, cfg *Config) error {
	lines := enhancedLines(data)
	fail := func(key, format string, args ...any) error {
		table, _, _ := strings.Cut(key, ".")
		if strings.HasPrefix(key, "memoryWhisperer.queryModel.") {
			table = "memoryWhisperer.queryModel"
		}
		return &LoadError{File: file, Line: max(lines[key], lines[table], 1), Msg: fmt.Sprintf("["+table+"] "+format, args...)}
	}
	if r := raw.MemorySearch; r != nil && r.Mode != nil {
		if *r.Mode != SearchLocal && *r.Mode != SearchJudged {
			return fail("memorySearch.mode", "mode %q; allowed: %q, %q", *r.Mode, SearchLocal, SearchJudged)
		}
		cfg.MemorySearch.Mode = *r.Mode
	}
	w := DefaultMemoryWhisperer()
	r := raw.MemoryWhisperer
	if r == nil {
		return nil
	}
	if r.Enabled != nil {
		w.Enabled = *r.Enabled
	}
	if r.ComplementaryHints != nil {
		w.ComplementaryHints = *r.ComplementaryHints
	}
	if v := r.MinUsefulness; v != nil {
		if math.IsNaN(*v) || *v < 0 || *v > 1 {
			return fail("memoryWhisperer.minUsefulness", "minUsefulness %g; allowed: 0 to 1", *v)
		}
		w.MinUsefulness = *v
	}
	ints := []struct {
		key    string
		v      *int
		lo, hi int
		dst    *int
	}{
		{"maxHints", r.MaxHints, 1, 2, &w.MaxHints},
		{"cooldownTurns", r.CooldownTurns, 0, MaxWhisperCooldownTurns, &w.CooldownTurns},
		{"timeoutMs", r.TimeoutMs, 1, MaxWhisperTimeoutMs, &w.TimeoutMs},
	}
	for _, k := range ints {
		if k.v == nil {
			continue
		}
		if *k.v < k.lo || *k.v > k.hi {
			return fail("memoryWhisperer."+k.key, "%s %d; allowed: %d to %d", k.key, *k.v, k.lo, k.hi)
		}
		*k.dst = *k.v
	}
	corpora, err := whisperCorpora(r.Corpora, cfg.Corpora)
	if err != nil {
		return fail("memoryWhisperer.corpora", "%v", err)
	}
	w.Corpora = corpora
	if w.Enabled && len(w.Corpora) == 0 {
		return fail("memoryWhisperer.enabled", "enabled = true needs corpora; allowed: a non-empty list of configured corpora (or \"%s\")", cairn.MemoriesCorpus)
	}
	if q := r.QueryModel; q != nil {
		qm, err := checkQueryModel(*q)
		if err != nil {
			return fail("memoryWhisperer.queryModel."+err.key, "%s", err.msg)
		}
		w.QueryModel = qm
	}
	cfg.MemoryWhisperer = w
	return nil
}

// whisperCorpora checks memoryWhisperer.corpora: configured non-skill
// corpora or the memories corpus, never "all", duplicates (ignoring
// case) dropped.
func whisperCorpora(names []string, configured []Corpus) ([]string, error) {
	known := []string{cairn.MemoriesCorpus}
	for _, c := range configured {
		if c.Kind != cairn.KindSkills {
			known = append(known, c.Name)
		}
	}
	out := []string{}
	for i, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("corpora entry %d is blank; allowed: %s", i+1, joinNames(known))
		case strings.EqualFold(n, "all"):
			return nil, fmt.Errorf("corpora cannot hold \"all\": name the corpora the whisperer may search; allowed: %s", joinNames(known))
		}
		at := slices.IndexFunc(known, func(k string) bool { return strings.EqualFold(k, n) })
		if at < 0 {
			return nil, fmt.Errorf("corpora entry %q is no configured non-skill corpus; allowed: %s", n, joinNames(known))
		}
		if !slices.Contains(out, known[at]) {
			out = append(out, known[at])
		}
	}
	return out, nil
}

type keyError struct{ key, msg string }

// checkQueryModel checks [memoryWhisperer.queryModel]: an http(s)
// endpoint with no credentials, query or fragment (trailing slashes
// stripped), an api, a model, an absolute key file.
func checkQueryModel(q rawQueryModel) (*QueryModel, *keyError) {
	u, err := url.Parse(strings.TrimSpace(q.Endpoint))
	switch {
	case strings.TrimSpace(q.Endpoint) == "":
		return nil, &keyError{"endpoint", "endpoint is missing; allowed: an http:// or https:// URL"}
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, &keyError{"endpoint", fmt.Sprintf("endpoint %q; allowed: an http:// or https:// URL", q.Endpoint)}
	case u.User != nil:
		return nil, &keyError{"endpoint", "endpoint holds credentials; allowed: a URL without user or password (put the key in apiKeyFile)"}
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(q.Endpoint, "#"):
		return nil, &keyError{"endpoint", fmt.Sprintf("endpoint %q has a query or fragment; allowed: a URL without ? or #", q.Endpoint)}
	}
	api := q.API
	if api == "" {
		api = "openai"
	}
	if !slices.Contains(llmAPIs, api) {
		return nil, &keyError{"api", fmt.Sprintf("api %q; allowed: %s", q.API, strings.Join(llmAPIs, ", "))}
	}
	if strings.TrimSpace(q.Model) == "" {
		return nil, &keyError{"model", "model is missing; allowed: the endpoint's model id"}
	}
	if q.APIKeyFile != "" && !filepath.IsAbs(q.APIKeyFile) {
		return nil, &keyError{"apiKeyFile", fmt.Sprintf("apiKeyFile %q; allowed: an absolute path", q.APIKeyFile)}
	}
	return &QueryModel{Endpoint: strings.TrimRight(strings.TrimSpace(q.Endpoint), "/"), API: api, Model: strings.TrimSpace(q.Model),
		APIKeyFile: q.APIKeyFile}, nil
}

// enhancedLines maps "table" and "table.key" of this file's tables to
// their lines, for error messages.
func enhancedLines(data []byte) map[string]int {
	out := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	table := ""
	for p.NextExpression() {
		expr := p.Expression()
		key := strings.Join(keyParts(expr), ".")
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = key
			if enhancedTable(keyParts(expr)) {
				out[table] = keyLine(&p, expr)
			}
		case unstable.KeyValue:
			if enhancedTable(strings.Split(table, ".")) {
				out[table+"."+key] = keyLine(&p, expr)
			}
		}
	}
	return out
}
