package eval

import (
	"slices"
	"testing"
)

// TestEvidenceRanks: each evidence turn's first place among the turns
// retrieved, 0 for one not retrieved, in the evidence's order.
func TestEvidenceRanks(t *testing.T) {
	for _, c := range []struct {
		name          string
		got, evidence []string
		want          []int
	}{
		{"found and missed", []string{"D1:3", "D2:1", "D1:4"}, []string{"D1:4", "D9:9", "D1:3"}, []int{3, 0, 1}},
		{"a turn twice counts first", []string{"D1:3", "D1:3", "D2:2"}, []string{"D2:2", "D1:3"}, []int{3, 1}},
		{"nothing retrieved", nil, []string{"D1:1"}, []int{0}},
	} {
		if got := evidenceRanks(c.got, c.evidence); !slices.Equal(got, c.want) {
			t.Errorf("%s: ranks %v, want %v", c.name, got, c.want)
		}
	}
}
