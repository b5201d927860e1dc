package eval

import (
	"bufio"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/tokenize"
)

// sharedDir is the workplace's shared/ folder with the model, the runtime
// and the LoCoMo development split (testshared: skipped without it, failed
// under CAIRN_REQUIRE_SHARED=1).
func sharedDir(t *testing.T) string {
	t.Helper()
	return testshared.Dir(t, testshared.Model, testshared.Library, testshared.LocomoDev)
}

// TestOffTopicLocomo asks the 30 nonsense and off-topic queries of
// engine/testdata/offtopic.txt of each LoCoMo development conversation and
// of all of them at once, at the default minimum score, in every mode.
// Before the calibrated score, hybrid answered every one of the 210
// searches with hits at 0.34 or more. Now hybrid answers none (the last was
// "how to bake sourdough bread" with conv-42's chunk on dairy-free baking
// tips, a conversation about baking); lexical and vector mode the few the
// constants below name. The test holds the counts measured
// when the models were fitted (bench/RESULTS.md, "Calibrated scores at
// every index size") so that they can only fall.
func TestOffTopicLocomo(t *testing.T) {
	if testing.Short() {
		t.Skip("imports and embeds six conversations")
	}
	shared := sharedDir(t)
	emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	samples, _, err := loadLocomo(LocomoOptions{Data: filepath.Join(shared, "data", "locomo", "locomo-dev.json")})
	if err != nil {
		t.Fatal(err)
	}
	eng, closeEng, err := openEval(ctx, t.TempDir(), emb)
	if err != nil {
		t.Fatal(err)
	}
	defer closeEng()
	convs := []string{""} // "": every conversation
	for _, s := range samples {
		sessions, _, _, err := locomoSessions(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.ImportSessions(ctx, "sessions", "locomo:"+s.SampleID, sessions); err != nil {
			t.Fatal(err)
		}
		convs = append(convs, s.SampleID)
	}
	queries := readOffTopic(t)
	allowed := map[string]int{cairn.ModeLexical: lexicalOffTopicAnswered, cairn.ModeVector: vectorOffTopicAnswered, cairn.ModeHybrid: hybridOffTopicAnswered}
	for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
		answered := 0
		for _, q := range queries {
			for _, conv := range convs {
				o := &cairn.SearchOptions{Mode: mode, MinScore: cairn.DefaultMinScore, Explain: true}
				if conv != "" {
					o.Sessions = &cairn.SessionFilter{ConversationID: conv}
				}
				hits, err := eng.Search(ctx, q, o)
				if err != nil && !strings.Contains(err.Error(), "only common words") {
					t.Fatalf("%s %q in %q: %v", mode, q, conv, err)
				}
				if len(hits) > 0 {
					answered++
					h := hits[0]
					t.Logf("%s %q in %q: %d hits, first %s:%d score %.3f (%s)", mode, q, conv, len(hits), h.Path, h.StartLine, h.Score, strings.Join(h.Explain, "; "))
				}
			}
		}
		t.Logf("%s: %d of %d searches returned hits", mode, answered, len(queries)*len(convs))
		if answered > allowed[mode] {
			t.Errorf("%s: %d of %d off-topic searches returned hits, at most %d before", mode, answered, len(queries)*len(convs), allowed[mode])
		}
	}
}

// The off-topic searches of TestOffTopicLocomo that still return hits.
const (
	// Lexical 5 and vector 4 since the models take the query's signals
	// only as factors of a hit's own evidence (were 0 and 2): "how do
	// airplanes fly" meets chunks holding "fly" ("airplanes" is in no
	// chunk) in four conversations and all at once at 0.33, the shape of
	// "quokka" in an index that knows no other word of the query; vector
	// mode that query in two conversations and all at once, and "how to
	// bake sourdough bread" in conv-42.
	lexicalOffTopicAnswered = 5 // was 7, then 0
	vectorOffTopicAnswered  = 4 // was 158 with cosine signals only, then 2
	hybridOffTopicAnswered  = 0 // was 16, then 4 (equal-weight RRF, no unknown), 2, 1; 0 refitted over ce521c9's fusion
)

func readOffTopic(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../engine/testdata/offtopic.txt")
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
	return out
}

// TestFitLogistic recovers the weights that generated the labels.
func TestFitLogistic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	want := []float64{-1, 2, -3}
	var x [][]float64
	var y []bool
	var w []float64
	for range 20000 {
		a, b := r.NormFloat64(), r.NormFloat64()
		p := 1 / (1 + math.Exp(-(want[0] + want[1]*a + want[2]*b)))
		x = append(x, []float64{a, b})
		y = append(y, r.Float64() < p)
		w = append(w, 1)
	}
	got := FitLogistic(x, y, w, 0)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.15 {
			t.Fatalf("FitLogistic = %.3f, want about %v", got, want)
		}
	}
}
