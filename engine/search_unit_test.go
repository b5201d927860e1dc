package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestOneChunkPerDocument: every mode returns a document once, at its
// best chunk, and that chunk's snippet shows the match (issue 14 item 8).
// Lexical mode returned each of the long note's chunks before.
func TestOneChunkPerDocument(t *testing.T) {
	var long strings.Builder
	long.WriteString("# Deploy guide\n\n")
	for i := range 40 {
		fmt.Fprintf(&long, "Paragraph %d covers the rollout and its canary step, with more words to fill the chunk up.\n\n", i)
	}
	f := newFixture(t, map[string]string{
		"deploy.md": long.String(),
		"other.md":  "# Birds\n\nThe canary sings in the morning.\n",
		"third.md":  "# Mines\n\nMiners took a canary underground.\n",
	}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	f.sync()
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
		hits, err := f.eng.Search(context.Background(), "canary", &cairn.SearchOptions{Mode: mode, Limit: 3, MinScore: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, h := range hits {
			if seen[h.Path] {
				t.Errorf("%s: %s returned twice: %v", mode, h.Path, hitPaths(hits))
			}
			seen[h.Path] = true
			if !strings.Contains(strings.ToLower(h.Snippet), "canary") {
				t.Errorf("%s: %s:%d-%d snippet %q does not show the match", mode, h.Path, h.StartLine, h.EndLine, h.Snippet)
			}
		}
		if len(hits) != 3 {
			t.Errorf("%s: %d hits %v, want the three documents", mode, len(hits), hitPaths(hits))
		}
	}
}

// TestOneChunkPerDocumentVectorsOff: hybrid search answering from the
// lexical lane alone, while vectors are incomplete, also returns a document
// once.
func TestOneChunkPerDocumentVectorsOff(t *testing.T) {
	var long strings.Builder
	long.WriteString("# Deploy guide\n\n")
	for i := range 40 {
		fmt.Fprintf(&long, "Paragraph %d covers the rollout and its canary step, with more words to fill the chunk up.\n\n", i)
	}
	emb := &conceptEmbedder{model: "v1"}
	emb.down.Store(true)
	f := newFixture(t, map[string]string{"deploy.md": long.String(), "other.md": "# Birds\n\nThe canary sings.\n"}, Options{Embedder: emb})
	if _, err := f.eng.Sync(context.Background(), nil); err == nil {
		t.Fatal("sync with the embedder down succeeded; want the chunks left waiting for vectors")
	}
	hits, err := f.eng.Search(context.Background(), "canary", &cairn.SearchOptions{Mode: cairn.ModeHybrid, Limit: 5, MinScore: 0.01, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Path == hits[1].Path || !strings.Contains(strings.Join(hits[0].Explain, " "), "vector lane off") {
		t.Errorf("hybrid with vectors off = %v (%+v), want the two documents once each from the lexical lane", hitPaths(hits), hits)
	}
}

func hitPaths(hits []cairn.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine))
	}
	return out
}
