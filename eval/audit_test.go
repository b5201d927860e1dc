package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmemory/cairn/internal/testshared"
)

// TestAuditEvidence: a correction is applied to the question it quotes,
// under the audit's 0-based numbering or, failing that, the next id, and
// never to a question it does not quote (the lookup before 12-04 took the
// entry under qi+1 unchecked, so locomo_0_qa1 scored question 0).
func TestAuditEvidence(t *testing.T) {
	entries := []map[string]any{
		{"question_id": "locomo_0_qa1", "question": "What did Melanie paint?", "correct_evidence": []string{"D2:2"}},
		{"question_id": "locomo_0_qa4", "question": " what is in the box? ", "correct_evidence": []string{"D1:2"}},
		{"question_id": "locomo_1_qa0", "question": "Another question entirely", "correct_evidence": []string{"D3:3"}},
		{"question_id": "locomo_1_qa2", "question": "No evidence given", "correct_evidence": []string{}},
	}
	data, _ := json.Marshal(entries)
	file := filepath.Join(t.TempDir(), "audit.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	audit, err := loadAudit(file)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ci, qi   int
		question string
		want     []string
	}{
		{0, 1, "What did Melanie paint?", []string{"D2:2"}},       // 0-based, as the audit numbers
		{0, 0, "When did Caroline go to the support group?", nil}, // the old lookup's victim
		{0, 3, "What is in the box?", []string{"D1:2"}},           // numbered 1-based: the next id, quoted
		{0, 4, "Something else", nil},                             // the id matches, the quote does not
		{1, 0, "A question the audit never quotes", nil},          // same
		{1, 2, "No evidence given", nil},                          // no correct_evidence: no correction
	}
	for _, tt := range tests {
		got, ok := auditEvidence(audit, tt.ci, tt.qi, tt.question)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("auditEvidence(%d, %d, %q) = %v, %v; want %v", tt.ci, tt.qi, tt.question, got, ok, tt.want)
		}
	}
}

// TestAuditMatchesLocomoDev: over the development split and its audit,
// every correction with evidence is applied to exactly the question it
// quotes (the shared folder: skipped without it, failed without it under
// CAIRN_REQUIRE_SHARED=1).
func TestAuditMatchesLocomoDev(t *testing.T) {
	shared := testshared.Dir(t, testshared.LocomoDev)
	o := LocomoOptions{Data: filepath.Join(shared, testshared.LocomoDev), Audit: filepath.Join(shared, "data", "locomo", "locomo-dev-audit-errors.json")}
	samples, audit, err := loadLocomo(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(audit) == 0 {
		t.Fatal("no corrections read")
	}
	applied := map[string]int{}
	for ci, s := range samples {
		for qi, qa := range s.QA {
			if _, ok := auditEvidence(audit, ci, qi, qa.Question); ok {
				for _, n := range []int{qi, qi + 1} {
					id := fmt.Sprintf("locomo_%d_qa%d", ci, n)
					if f, ok := audit[id]; ok && sameQuestion(f.question, qa.Question) {
						applied[id]++
						break
					}
				}
			}
		}
	}
	for id := range audit {
		if applied[id] != 1 {
			t.Errorf("%s applied to %d questions; want 1", id, applied[id])
		}
	}
	if !t.Failed() {
		t.Logf("%d corrections, each applied to the question it quotes", len(audit))
	}
}
