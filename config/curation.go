package config

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// The gates of the judged curation tools (C2, C25 to C27):
//
//	[qualityAudit]
//	enabled = false    # memory_audit_quality and memory_review_cluster; needs corpora and the judge
//	corpora = ["notes"] # configured non-skill corpora (or "memories"), never "all"; duplicates dropped
//	minNoise = 0.8     # 0 to 1: a judged noise probability at or above it flags a chunk
//
//	[evidenceReview]
//	enabled = false    # memory_review_claim; needs corpora and the judge
//	corpora = ["notes"]
//
// Keys are camelCase as C2 spells them; each is checked at load and an
// error names the table, the key, its line and the allowed values.

// DefaultMinNoise is qualityAudit.minNoise's default.
const DefaultMinNoise = 0.8

var (
	qualityAuditKeys   = []string{"enabled", "corpora", "minNoise"}
	evidenceReviewKeys = []string{"enabled", "corpora"}
)

// QualityAudit is the [qualityAudit] table, defaults filled; the zero
// value is a file without the table (Filled gives its defaults).
type QualityAudit struct {
	Enabled  bool
	Corpora  []string
	MinNoise float64
}

// Filled returns q, or the defaults when q is the zero value (no table).
func (q QualityAudit) Filled() QualityAudit {
	if q.Corpora == nil {
		return QualityAudit{Corpora: []string{}, MinNoise: DefaultMinNoise}
	}
	return q
}

// EvidenceReview is the [evidenceReview] table.
type EvidenceReview struct {
	Enabled bool
	Corpora []string
}

type rawCurationGate struct {
	Enabled  *bool    `toml:"enabled"`
	Corpora  []string `toml:"corpora"`
	MinNoise *float64 `toml:"minNoise"`
}

// curationTable reports whether key names one of this file's tables.
func curationTable(key []string) bool {
	return len(key) == 1 && (key[0] == "qualityAudit" || key[0] == "evidenceReview")
}

// curationKey checks a key of one of this file's tables.
func curationKey(file string, line int, table string, key []string) error {
	allowed := qualityAuditKeys
	if table == "evidenceReview" {
		allowed = evidenceReviewKeys
	}
	if len(key) != 1 || !slices.Contains(allowed, key[0]) {
		return &LoadError{File: file, Line: line, Msg: fmt.Sprintf("unknown key %q in [%s]; allowed keys: %s", strings.Join(key, "."), table, strings.Join(allowed, ", "))}
	}
	return nil
}

// validateCuration checks the two tables against the configured corpora
// and fills cfg.QualityAudit and cfg.EvidenceReview.
func validateCuration(file string, data []byte, qa, er *rawCurationGate, cfg *Config) error {
	lines := curationLines(data)
	if qa != nil {
		cfg.QualityAudit = QualityAudit{}.Filled()
	}
	for _, t := range []struct {
		name    string
		raw     *rawCurationGate
		enabled *bool
		corpora *[]string
	}{
		{"qualityAudit", qa, &cfg.QualityAudit.Enabled, &cfg.QualityAudit.Corpora},
		{"evidenceReview", er, &cfg.EvidenceReview.Enabled, &cfg.EvidenceReview.Corpora},
	} {
		if t.raw == nil {
			continue
		}
		fail := func(key, format string, args ...any) error {
			return &LoadError{File: file, Line: max(lines[t.name+"."+key], lines[t.name], 1), Msg: fmt.Sprintf("["+t.name+"] "+format, args...)}
		}
		corpora, err := whisperCorpora(t.raw.Corpora, cfg.Corpora) // enhanced.go: the same rule
		if err != nil {
			return fail("corpora", "%v", err)
		}
		*t.corpora = corpora
		if t.raw.Enabled != nil {
			*t.enabled = *t.raw.Enabled
		}
		if *t.enabled && len(corpora) == 0 {
			return fail("enabled", "enabled = true needs corpora; allowed: a non-empty list of configured non-skill corpora")
		}
		if v := t.raw.MinNoise; v != nil {
			if math.IsNaN(*v) || *v < 0 || *v > 1 {
				return fail("minNoise", "minNoise %g; allowed: 0 to 1", *v)
			}
			cfg.QualityAudit.MinNoise = *v
		}
	}
	return nil
}

// curationLines maps "table" and "table.key" of this file's tables to
// their lines, for error messages.
func curationLines(data []byte) map[string]int {
	out := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	table := ""
	for p.NextExpression() {
		expr := p.Expression()
		key := keyParts(expr)
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = ""
			if curationTable(key) {
				table = key[0]
				out[table] = keyLine(&p, expr)
			}
		case unstable.KeyValue:
			if table != "" {
				out[table+"."+strings.Join(key, ".")] = keyLine(&p, expr)
			}
		}
	}
	return out
}
