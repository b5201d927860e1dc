package engine

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
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
	shared := os.Getenv("CAIRN_SHARED")
	if shared == "" {
		if _, err := os.Stat("../../shared/models/use-lite/model.onnx"); err == nil {
			shared = "../../shared"
		}
	}
	if shared == "" {
		if os.Getenv("CAIRN_REQUIRE_SHARED") == "1" {
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
// fixture's questions keep their answers: all 20 in hybrid, 19 in lexical
// ("startup time improvement" matches parser-refactor.md on one common
// word). Before the calibrated score, hybrid returned hits for all 30 (the
// fused score was at least 0.339). Vector mode alone is not held to this:
// USE-lite's cosines of off-topic queries overlap those of real ones
// (bench/RESULTS.md, "Calibrated scores").
func TestOffTopicFixture(t *testing.T) {
	keep := map[string]int{cairn.ModeLexical: 19, cairn.ModeHybrid: 20}
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
