package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// TestFuseFileChunks: with fusionWeights.FileChunks hybrid search over
// files fuses each chunk's own lanes and keeps each document's best chunk.
// Fused by document (the default, which the hand-judged queries kept:
// FileChunks), ws.md shows its lexical chunk (67-97) with a vector part
// taken from another of its chunks (133-163), and b.md's lexical chunk
// takes a vector part from its line 30 and passes a.md, whose BM25 is
// higher and which the vector lane did not bring: the shapes of two
// hand-judged documentation queries ("run a command in every workspace of
// a monorepo", "mock HTTP requests in tests": bench/RESULTS.md, "Lexical
// against hybrid on real documentation").
func TestFuseFileChunks(t *testing.T) {
	hit := func(path string, start, end int, bm25, cos float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://docs/" + path, Corpus: "docs", StartLine: start, EndLine: end, Score: max(bm25, cos),
			Signals: &cairn.HitSignals{BM25: bm25, Cosine: cos}}
	}
	key := func(h cairn.Hit) string { return h.Path } // files: a unit is the document
	shown := func(hits []cairn.Hit) string {
		var s []string
		for _, h := range hits {
			s = append(s, fmt.Sprintf("%s:%d", strings.TrimPrefix(h.Path, "cairn://docs/"), h.StartLine))
		}
		return strings.Join(s, " ")
	}
	chunks := fusion
	chunks.FileChunks = true
	for _, c := range []struct {
		name       string
		lex, vec   []cairn.Hit
		want       string
		byDocument string // the default fusion's
	}{
		{"the vector lane's chunk is the better one",
			[]cairn.Hit{hit("stage.md", 1, 20, 10, 0), hit("ws.md", 67, 97, 9.7, 0), hit("ws.md", 133, 163, 6, 0)},
			[]cairn.Hit{hit("ws.md", 133, 163, 0, 0.5), hit("x.md", 1, 5, 0, 0.45), hit("stage.md", 40, 50, 0, 0.2)},
			// ws.md:133 0.6 + 0.5; stage.md:1 1.0; x.md 0.5 × 0.83; ws.md:67
			// (0.97) and stage.md:40 (0) stand behind their documents' best.
			"ws.md:133 stage.md:1 x.md:1", "ws.md:67 stage.md:1 x.md:1"},
		{"a vector part of another chunk lifts nothing",
			[]cairn.Hit{hit("a.md", 1, 10, 10, 0), hit("b.md", 1, 10, 9.8, 0)},
			[]cairn.Hit{hit("b.md", 30, 40, 0, 0.3), hit("c.md", 1, 10, 0, 0.29), hit("d.md", 1, 10, 0, 0.1)},
			// b.md:1 0.98 (b.md:30 0.5 stands behind it), c.md 0.5 × 0.95.
			"a.md:1 b.md:1 c.md:1 d.md:1", "b.md:1 a.md:1 c.md:1 d.md:1"},
	} {
		if got := shown(fuse(c.lex, c.vec, &cairn.SearchOptions{Limit: 10}, key, fusion)); got != c.byDocument {
			t.Errorf("%s, by document: hits %s, want %s", c.name, got, c.byDocument)
		}
		hits := fuse(c.lex, c.vec, &cairn.SearchOptions{Limit: 10}, key, chunks)
		if got := shown(hits); got != c.want {
			t.Errorf("%s, by chunk: hits %s, want %s", c.name, got, c.want)
		}
		// Each hit's lane scores are its own chunk's.
		for _, h := range hits {
			for _, lane := range [][]cairn.Hit{c.lex, c.vec} {
				for _, l := range lane {
					if l.Path == h.Path && l.StartLine != h.StartLine {
						continue
					}
					if l.Path == h.Path && l.Signals.BM25 > 0 && (h.TextScore == nil || *h.TextScore != l.Score) {
						t.Errorf("%s: %s:%d text score %v, want its chunk's %v", c.name, h.Path, h.StartLine, h.TextScore, l.Score)
					}
					if l.Path == h.Path && l.Signals.Cosine > 0 && (h.VectorScore == nil || *h.VectorScore != l.Score) {
						t.Errorf("%s: %s:%d vector score %v, want its chunk's %v", c.name, h.Path, h.StartLine, h.VectorScore, l.Score)
					}
				}
			}
		}
	}
}
