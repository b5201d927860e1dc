package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSearchColonIsText: a query word holding a colon (timeout:5000) is
// text, found as the phrase of its words at the default min score, with
// the same hits and scores as quoted (review finding F19: unquoted, both
// notes scored under the floor of a larger index, one of them here).
func TestSearchColonIsText(t *testing.T) {
	c := newCLI(t)
	notes := t.TempDir()
	for name, text := range map[string]string{
		"server.md": "# Server\n\nThe request timeout: 5000 ms, retries: 3.\n",
		"client.md": "# Client\n\nmy client config says timeout:5000 too\n",
		"other.md":  "# Other\n\nA timeout of 30 s and a budget of 5000 tokens.\n",
	} {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.ok("corpus", "add", "notes", notes)
	c.ok("sync")
	search := func(q string) (paths []string, scores []float64) {
		t.Helper()
		var res struct {
			Results []struct {
				Path  string
				Score float64
			}
		}
		if err := json.Unmarshal([]byte(c.ok("search", q, "--mode", "lexical", "--json")), &res); err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Results {
			paths = append(paths, h.Path)
			scores = append(scores, h.Score)
		}
		return paths, scores
	}
	bare, bareScores := search("timeout:5000")
	quoted, quotedScores := search(`"timeout:5000"`)
	slices.Sort(bare)
	if want := []string{"cairn://notes/client.md", "cairn://notes/server.md"}; !slices.Equal(bare, want) {
		t.Errorf("search timeout:5000 = %v, want %v", bare, want)
	}
	slices.Sort(quoted)
	if !slices.Equal(bare, quoted) || !slices.Equal(bareScores, quotedScores) {
		t.Errorf("timeout:5000 gives %v %v, quoted %v %v", bare, bareScores, quoted, quotedScores)
	}
}
