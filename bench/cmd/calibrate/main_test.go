package main

import (
	"os"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn/search"
)

// TestFitListApart: the off-topic queries the models are fitted on share
// no word (by its root, stop words aside) with the 30 of
// engine/testdata/offtopic.txt, which check the models and must stay out
// of the fit.
func TestFitListApart(t *testing.T) {
	data, err := os.ReadFile("../../../engine/testdata/offtopic.txt")
	if err != nil {
		t.Fatal(err)
	}
	test := map[string]string{} // root → test query
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		for _, r := range search.HighlightWords(line) {
			test[r] = line
		}
	}
	if n != 30 {
		t.Fatalf("offtopic.txt holds %d queries, want 30", n)
	}
	seen := map[string]bool{}
	for _, q := range trainOffTopic {
		if seen[q] {
			t.Errorf("fit query %q listed twice", q)
		}
		seen[q] = true
		for _, r := range search.HighlightWords(q) {
			if tq, ok := test[r]; ok {
				t.Errorf("fit query %q shares %q with test query %q", q, r, tq)
			}
		}
	}
}
