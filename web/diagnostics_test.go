package web

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlattenAndSplit: JSON leaves with dotted keys and indexes; a long
// section is cut by its next key, a short one kept whole.
func TestFlattenAndSplit(t *testing.T) {
	got := flatten(map[string]any{"a": map[string]any{"b": 1, "c": []string{"x", "y"}}, "d": "s", "e": map[string]any{}})
	want := []field{{"a.b", "1"}, {"a.c[0]", "x"}, {"a.c[1]", "y"}, {"d", "s"}, {"e", "(none)"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flatten (-want +got):\n%s", diff)
	}
	if s := split("small", want); len(s) != 1 || s[0].Name != "small" {
		t.Errorf("short section split: %+v", s)
	}
	var long []field
	for i := range bigSection {
		long = append(long, field{Key: fmt.Sprintf("memory.k%02d", i), Value: "0"})
	}
	long = append(long, field{Key: "skill.k", Value: "1"}, field{Key: "plain", Value: "2"})
	s := split("whisperers", long)
	if len(s) != 3 || s[0].Name != "whisperers.memory" || len(s[0].Fields) != bigSection || s[0].Fields[0].Key != "k00" ||
		s[1].Name != "whisperers.skill" || s[2].Name != "whisperers" || s[2].Fields[0].Key != "plain" {
		t.Errorf("long section split: %+v", s)
	}
}
