package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairnmemory/cairn"
)

// TestCurationTables: [qualityAudit] and [evidenceReview] as written, and
// their defaults without them.
func TestCurationTables(t *testing.T) {
	cfg, err := loadText(t, notesTable)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(QualityAudit{Corpora: []string{}, MinNoise: DefaultMinNoise}, cfg.QualityAudit.Filled()); d != "" {
		t.Errorf("default qualityAudit (-want +got):\n%s", d)
	}
	if cfg.EvidenceReview.Enabled || len(cfg.EvidenceReview.Corpora) != 0 {
		t.Errorf("default evidenceReview %+v", cfg.EvidenceReview)
	}
	cfg, err = loadText(t, notesTable+`
[qualityAudit]
enabled = true
corpora = ["Notes", "notes"]
minNoise = 0

[evidenceReview]
enabled = true
corpora = ["memories", "notes"]
`)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(QualityAudit{Enabled: true, Corpora: []string{"notes"}, MinNoise: 0}, cfg.QualityAudit); d != "" {
		t.Errorf("qualityAudit (-want +got):\n%s", d)
	}
	if d := cmp.Diff(EvidenceReview{Enabled: true, Corpora: []string{cairn.MemoriesCorpus, "notes"}}, cfg.EvidenceReview); d != "" {
		t.Errorf("evidenceReview (-want +got):\n%s", d)
	}
}

// TestCurationInvalid: each bad key fails the load naming the table, the
// key, its line and the allowed values.
func TestCurationInvalid(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"[qualityAudit]\nminNoise = 1.5\n", ":7: [qualityAudit] minNoise 1.5; allowed: 0 to 1"},
		{"[qualityAudit]\nminNoise = -0.2\n", ":7: [qualityAudit] minNoise -0.2; allowed: 0 to 1"},
		{"[qualityAudit]\nminNoise = nan\n", ":7: [qualityAudit] minNoise NaN; allowed: 0 to 1"},
		{"[qualityAudit]\nenabled = true\n", ":7: [qualityAudit] enabled = true needs corpora"},
		{"[qualityAudit]\nenabled = true\ncorpora = []\n", ":7: [qualityAudit] enabled = true needs corpora"},
		{"[qualityAudit]\ncorpora = [\"all\"]\n", `:7: [qualityAudit] corpora cannot hold "all"`},
		{"[qualityAudit]\ncorpora = [\"wiki\"]\n", `:7: [qualityAudit] corpora entry "wiki" is no configured non-skill corpus; allowed: memories, notes`},
		{"[qualityAudit]\ncorpora = [\" \"]\n", `:7: [qualityAudit] corpora entry 1 is blank`},
		{"[qualityAudit]\nlimit = 3\n", `:7: unknown key "limit" in [qualityAudit]; allowed keys: enabled, corpora, minNoise`},
		{"[qualityAudit]\nenabled = \"yes\"\n", `:7: [qualityAudit] enabled = "yes"; allowed: true or false`},
		{"[evidenceReview]\nenabled = true\n", ":7: [evidenceReview] enabled = true needs corpora"},
		{"[evidenceReview]\nminNoise = 0.5\n", `:7: unknown key "minNoise" in [evidenceReview]; allowed keys: enabled, corpora`},
		{"[evidenceReview]\ncorpora = [\"notes\", \"skills\"]\n", `corpora entry "skills" is no configured non-skill corpus`},
	} {
		_, err := loadText(t, notesTable+"\n"+tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, cairn.ErrInvalid) {
			t.Errorf("%q: error %v, want one holding %q", tt.text, err, tt.want)
		}
	}
}

// TestCurationMinNoiseDefault: a table without minNoise gets 0.8.
func TestCurationMinNoiseDefault(t *testing.T) {
	cfg, err := loadText(t, notesTable+"\n[qualityAudit]\nenabled = true\ncorpora = [\"notes\"]\n")
	if err != nil || cfg.QualityAudit.MinNoise != DefaultMinNoise || !cfg.QualityAudit.Enabled {
		t.Errorf("qualityAudit %+v, %v", cfg.QualityAudit, err)
	}
}
