package engine

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/tokenize"
)

// offTopicQueries reads testdata/offtopic.txt: 30 queries nothing in the
// fixture or the LoCoMo development conversations answers.
func offTopicQueries(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/offtopic.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if len(out) != 30 {
		t.Fatalf("testdata/offtopic.txt holds %d queries, want 30", len(out))
	}
	return out
}

// sharedEmbedder is the USE-lite encoder from the workplace's shared/
// folder, nil without it (a failure with CAIRN_REQUIRE_SHARED=1).
func sharedEmbedder(t *testing.T) cairn.Embedder {
	t.Helper()
	shared, ok := testshared.Find(testshared.Model, testshared.Library)
	if !ok {
		if testshared.Required("SHARED") {
			t.Fatal("shared/ not found and CAIRN_REQUIRE_SHARED=1")
		}
		t.Log("shared/ with models/use-lite not found: lexical mode only")
		return nil
	}
	emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

func rankFixture(t *testing.T, emb cairn.Embedder) *Engine {
	t.Helper()
	notes, err := filepath.Abs("testdata/rank/notes")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := Open(ctx, Options{Dir: t.TempDir(), Embedder: emb, Corpora: []cairn.Corpus{{Name: "rank", Kind: cairn.KindFiles, Paths: []string{notes}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestOffTopicFixture: at the default minimum score, none of the 30
// nonsense and off-topic queries returns a hit from the ranking fixture in
// the default modes (hybrid with an embedder, lexical without), while the
// fixture's questions keep their answers: all 20 in hybrid, 18 in lexical
// ("startup time improvement" and "which days can we deploy" match their
// notes on one word). Before the calibrated score, hybrid returned hits for all 30 (the
// fused score was at least 0.339). Vector mode alone is not held to this:
// it has no term signals of its hits, and USE-lite's cosines of off-topic
// queries overlap those of real ones (eval TestOffTopicLocomo counts what
// it still answers; bench/RESULTS.md, "Calibrated scores").
func TestOffTopicFixture(t *testing.T) {
	// Lexical 18: "startup time improvement" (one word of three held,
	// "startup") and "which days can we deploy" are the shape of an
	// off-topic question meeting a note on one word, since the models
	// were fitted with mid-sized indexes too (19 before).
	keep := map[string]int{cairn.ModeLexical: 18, cairn.ModeHybrid: 20}
	modes := []string{cairn.ModeLexical}
	emb := sharedEmbedder(t)
	if emb != nil {
		modes = append(modes, cairn.ModeHybrid)
	}
	eng := rankFixture(t, emb)
	ctx := context.Background()
	for _, mode := range modes {
		for _, q := range offTopicQueries(t) {
			hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, MinScore: cairn.DefaultMinScore, Explain: true})
			if err != nil && !strings.Contains(err.Error(), "only common words") {
				t.Fatalf("%s %q: %v", mode, q, err)
			}
			for _, h := range hits {
				t.Errorf("%s %q: hit %s score %.3f (%s)", mode, q, h.Path, h.Score, strings.Join(h.Explain, "; "))
			}
		}
		kept := 0
		for _, line := range fixtureQuestions(t) {
			query, want, _ := strings.Cut(line, "\t")
			hits, err := eng.Search(ctx, query, &cairn.SearchOptions{Mode: mode, MinScore: cairn.DefaultMinScore})
			if err != nil {
				t.Fatalf("%s %q: %v", mode, query, err)
			}
			found := false
			for _, h := range hits {
				found = found || h.Path == "cairn://rank/"+want
			}
			if found {
				kept++
			} else {
				t.Logf("%s %q: %s not returned at the default minimum score (%d hits)", mode, query, want, len(hits))
			}
		}
		if kept < keep[mode] {
			t.Errorf("%s: %d fixture questions keep their answer at the default minimum score, want %d", mode, kept, keep[mode])
		}
	}
}

func fixtureQuestions(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/rank/queries.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// TestQuerySignals: a vector search knows how much of the query the index
// holds (Known, from the lexical lane's term counts; it was 0 in vector
// mode), how large the index is (Rows, which weighs the words it lacks)
// and how flat its cosines run (CosGap), and a hybrid hit says which
// of the query's terms its chunk holds.
func TestQuerySignals(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	ctx := context.Background()
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// "support" is in the index, "zorblax" nowhere.
	for _, mode := range []string{cairn.ModeVector, cairn.ModeHybrid} {
		hits, err := f.eng.Search(ctx, "support zorblax", &cairn.SearchOptions{Mode: mode})
		if err != nil || len(hits) == 0 {
			t.Fatalf("%s: %v, %v", mode, hits, err)
		}
		if len(hits) != 3 {
			t.Fatalf("%s: %d hits, want all 3 notes (the vector lane brings every one)", mode, len(hits))
		}
		last := 1.0 // the lane's last (third) cosine
		for _, h := range hits {
			if h.Signals.Known != 0.5 {
				t.Errorf("%s %s: known %.3f, want 0.5", mode, h.Path, h.Signals.Known)
			}
			if h.Signals.Rows != 3 {
				t.Errorf("%s %s: rows %d, want the index's 3 chunks", mode, h.Path, h.Signals.Rows)
			}
			last = min(last, h.Signals.Cosine)
		}
		if gap := hits[0].Signals.TopCosine - last; hits[0].Signals.CosGap <= 0 || math.Abs(hits[0].Signals.CosGap-gap) > 1e-6 {
			t.Errorf("%s: cosgap %.4f, want the first cosine less the last, %.4f", mode, hits[0].Signals.CosGap, gap)
		}
		if mode != cairn.ModeHybrid {
			continue
		}
		s := hits[0].Signals
		if hits[0].Path != "cairn://notes/a.md" || s.Terms != 0.5 || s.Miss != 1 || s.Cover <= 0 || s.Cover >= 0.5 {
			t.Errorf("hybrid first %s: terms %.3f cover %.3f miss %.3f; want a.md holding one of two terms, missing the heavier", hits[0].Path, s.Terms, s.Cover, s.Miss)
		}
	}
}

// TestParaphraseKept: at the default minimum score, a paraphrase that
// shares no word with a note still finds it, in an index so small that
// none of the query's words is in it: all three in vector mode, two in
// hybrid mode ("a meetup for queer people" is cut there, as it was by the
// first model too: a hybrid hit from the vector lane alone needs a cosine
// the off-topic queries rarely reach). Models with the query's share of
// known words (known 0 here) returned nothing in either mode: this is
// what the vector lane is for.
func TestParaphraseKept(t *testing.T) {
	emb := sharedEmbedder(t)
	if emb == nil {
		t.Skip("needs USE-lite")
	}
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the LGBTQ support group on Tuesday evening.\n",
		"b.md": "# Garden\n\nThe tomatoes need more compost and water.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}, Options{Embedder: emb})
	ctx := context.Background()
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for mode, keep := range map[string]int{cairn.ModeVector: 3, cairn.ModeHybrid: 2} {
		kept := 0
		for query, want := range map[string]string{
			"a meetup for queer people": "a.md",
			"vegetables in my backyard": "b.md",
			"how much money we spend":   "c.md",
		} {
			hits, err := f.eng.Search(ctx, query, &cairn.SearchOptions{Mode: mode, MinScore: cairn.DefaultMinScore})
			if err != nil {
				t.Fatalf("%s %q: %v", mode, query, err)
			}
			if len(hits) > 0 && hits[0].Path == "cairn://notes/"+want {
				kept++
			} else {
				t.Logf("%s %q: %d hits, not %s first", mode, query, len(hits), want)
			}
		}
		if kept < keep {
			t.Errorf("%s: %d of 3 paraphrases find their note at the default minimum score, want %d", mode, kept, keep)
		}
	}
}

// TestPartialTermsCapped: in the quickstart's index (this repository's
// docs/, a few hundred chunks), a hit holding half the query's words or
// fewer scores clearly below the hit that holds them all, where no hit
// ranked below it holds more (scores never rise down the list, so such a
// hit is raised to the best score below it). Before the partial-term caps
// (search.Model.TermsCap), "how does sync skip unchanged files" gave three
// hits at 0.99 in hybrid mode, one a parameter table of docs/mcp.md
// holding "sync" and "files" (terms 0.5). Such a hit is held to 0.75 or
// less, and to 0.2 under the first hit where that hit holds every word,
// in lexical and hybrid mode. Runs with the deterministic
// hashEmbedder always and with USE-lite when shared/ holds it.
func TestPartialTermsCapped(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("glob ../docs/*.md: %d files, %v", len(docs), err)
	}
	notes := map[string]string{}
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		notes[filepath.Base(p)] = string(b)
	}
	embedders := map[string]cairn.Embedder{"hash": hashEmbedder{}}
	if emb := sharedEmbedder(t); emb != nil {
		embedders["use-lite"] = emb
	}
	ctx := context.Background()
	for name, emb := range embedders {
		f := newFixture(t, notes, Options{Embedder: emb})
		if _, err := f.eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		// Vector mode keeps the encoder's order: its first hit need not
		// hold the words, and it is held only to its caps (search tests).
		for _, mode := range []string{cairn.ModeLexical, cairn.ModeHybrid} {
			for _, q := range []string{"how does sync skip unchanged files", "how are secrets redacted before indexing", "which embedder does vector search use"} {
				hits, err := f.eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, Limit: 10, Explain: true})
				if err != nil {
					t.Fatalf("%s %s %q: %v", name, mode, q, err)
				}
				if len(hits) == 0 {
					continue
				}
				partial := 0
				for i := len(hits) - 1; i >= 1; i-- {
					s := hits[i].Signals
					if s.Held == 0 {
						continue
					}
					if s.Terms >= 0.625 {
						break // a hit holding more lies at or below this one
					}
					partial++
					if hits[i].Score > 0.75 || hits[0].Signals.Terms == 1 && hits[i].Score > hits[0].Score-0.2 {
						t.Errorf("%s %s %q: %s:%d-%d holds %.2f of the terms and scores %.3f beside the first hit's %.3f, want 0.75 or less and clearly below (%s)",
							name, mode, q, hits[i].Path, hits[i].StartLine, hits[i].EndLine, s.Terms, hits[i].Score, hits[0].Score, strings.Join(hits[i].Explain, "; "))
					}
				}
				t.Logf("%s %s %q: %d partial hits checked, first %.3f", name, mode, q, partial, hits[0].Score)
			}
		}
	}
}
