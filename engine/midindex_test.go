package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
)

// midNotes are real notes of a mid-sized index, beside tinyNotes and the
// generated filler of TestMidIndexScores: one of them, quokka.md, is the
// only note that holds "quokka".
var midNotes = map[string]string{
	"quokka.md": "# Rottnest Island\n\nFerry from Fremantle at 8:30. We saw a quokka near the bakery in Thomson Bay;\n" +
		"they are not afraid of people. Do not feed them. Hired bikes for the loop around the salt lakes.\n",
	"standup.md": "# Standup notes, week 41\n\n- Priya: migration of the billing tables done, backfill tomorrow\n" +
		"- Marco: flaky test in the checkout service, retries hide it\n- me: review the on-call handbook\n",
	"dentist.md": "# Dentist\n\nCheck-up on 14 November at 9:15. Bring the insurance card; the crown on the lower left\n" +
		"molar is covered at 80%.\n",
}

// TestMidIndexScores: in an index of a few thousand chunks (the notes of
// TestTinyIndexScores and midNotes, plus 300 generated notes, about 3,200
// chunks), a score still means "how likely this hit is relevant". The 30
// nonsense and off-topic queries of testdata/offtopic.txt return nothing at
// the default minimum score in every mode; for a query of which one note
// holds the rare words, that note stays at 0.3 or more, and no hit that
// holds none of the query's words is returned (in vector mode: below the
// note). Before the models took the query's
// signals only as factors of a hit's own evidence, hybrid search of
// "zanzibar quokka flamingo handshake" returned quokka.md at 0.99 and six
// chunks holding none of the words at 0.78 to 0.88 (USE-lite; cosines 0.36
// to 0.40): the query's best term share and best cosine were added to every
// hit alike. Runs with the deterministic hashEmbedder always and with
// USE-lite when shared/ holds it.
func TestMidIndexScores(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes about 3,200 chunks")
	}
	embedders := map[string]cairn.Embedder{"hash": hashEmbedder{}}
	if emb := sharedEmbedder(t); emb != nil {
		embedders["use-lite"] = emb
	}
	notes := map[string]string{}
	for name, text := range tinyNotes {
		notes[name] = text
	}
	for name, text := range midNotes {
		notes[name] = text
	}
	offTopic := offTopicQueries(t)
	ctx := context.Background()
	for name, emb := range embedders {
		f := newFixture(t, notes, Options{Embedder: emb})
		if _, _, err := corpus.Generate(filepath.Join(f.notes, "gen"), corpus.Options{Notes: 300, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
			for _, q := range offTopic {
				hits, err := f.eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, MinScore: cairn.DefaultMinScore, Explain: true})
				if err != nil && !strings.Contains(err.Error(), "only common words") && !strings.Contains(err.Error(), "no words") {
					t.Fatalf("%s %s %q: %v", name, mode, q, err)
				}
				for _, h := range hits {
					t.Errorf("%s %s %q: %s scores %.3f, want nothing (%s)", name, mode, q, h.Path, h.Score, strings.Join(h.Explain, "; "))
				}
			}
			// Queries of which one note holds the rare words: that note is
			// returned at the default minimum score (lexical and hybrid;
			// vector mode only where the encoder brings it), and no hit
			// that holds none of the query's words is.
			for q, want := range map[string]string{
				"quokka":                "quokka.md",
				"derailleur":            "bike.md",
				"ryokan in gion":        "kyoto.md",
				"redis eviction policy": "redis.md",
				"molar crown insurance": "dentist.md",
				// One word of four held, the rest in no chunk: the shape of
				// an off-topic question that meets a conversation on one
				// word ("how to knit a scarf"), which the fit's negatives
				// hold; quokka.md may fall under the cut (it scores about
				// 0.05), the chunks holding no word must.
				"zanzibar quokka flamingo handshake": "",
			} {
				hits, err := f.eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, MinScore: cairn.DefaultMinScore, Explain: true})
				if err != nil {
					t.Fatalf("%s %s %q: %v", name, mode, q, err)
				}
				// Vector mode keeps the encoder's order, and a hit it ranks
				// above the answer scores at least the answer's score (scores
				// never rise down the list, search.Calibrate): only the hits
				// below the answer are held to the rule there.
				at := -1
				for i, h := range hits {
					if want != "" && h.Path == "cairn://notes/"+want {
						at = i
					}
				}
				found := at >= 0
				for i, h := range hits {
					if i == at || mode == cairn.ModeVector && i < at {
						continue
					}
					if !holdsAnyWord(t, f, h, q) {
						t.Errorf("%s %s %q: %s (lines %d-%d) holds none of the words and scores %.3f (%s)", name, mode, q, h.Path,
							h.StartLine, h.EndLine, h.Score, strings.Join(h.Explain, "; "))
					}
				}
				if found || want == "" {
					continue
				}
				all, _ := f.eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, Limit: 20, Explain: true})
				why, brought := "not among the first 20 at any score", false
				for _, h := range all {
					if h.Path == "cairn://notes/"+want {
						why, brought = strings.Join(h.Explain, "; "), true
					}
				}
				if mode != cairn.ModeVector || brought {
					t.Errorf("%s %s %q: %s not returned at the default minimum score (%d hits; %s)", name, mode, q, want, len(hits), why)
				}
			}
		}
	}
}

// holdsAnyWord reports whether the chunk of hit h holds a word of query q
// (any case, as a substring: a generous reading, so only hits with none of
// the words fail).
func holdsAnyWord(t *testing.T, f *fixture, h cairn.Hit, q string) bool {
	t.Helper()
	doc, err := f.eng.Get(context.Background(), h.Path, &cairn.GetOptions{From: h.StartLine, Lines: h.EndLine - h.StartLine + 1})
	if err != nil {
		t.Fatalf("get %s: %v", h.Path, err)
	}
	low := strings.ToLower(doc.Text)
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}
