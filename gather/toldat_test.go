package gather

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCandidateToldAtJSON: memory_gather's and /v1/gather's candidates
// leave told_at out when the memory's told time is unknown (they printed
// 0001-01-01T00:00:00Z).
func TestCandidateToldAtJSON(t *testing.T) {
	b, err := json.Marshal(Result{Memories: []Gathered{{Candidate: Candidate{ID: "m1", Kind: "fact"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "told_at") || strings.Contains(string(b), "0001-01-01") {
		t.Errorf("a candidate without a told time = %s; want no told_at", b)
	}
}
