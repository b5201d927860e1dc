package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	goldenfile "github.com/cairnmemory/cairn/internal/golden"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/tokenize"
)

// TestRankStats is the retrieval-quality regression suite: fixed questions
// over a fixed corpus, each with the note that answers it. A ranking change
// that moves these numbers must update testdata/rank/stats.txt on purpose
// (go test -tags sqlite_fts5 ./engine -run TestRankStats -update).
func TestRankStats(t *testing.T) {
	rankStats(t, nil, cairn.ModeLexical, "testdata/rank/stats.txt")
}

// TestRankStatsHybrid runs the same questions in hybrid mode with the real
// USE-lite encoder (from the workplace's shared/ folder).
func TestRankStatsHybrid(t *testing.T) {
	shared := testshared.Dir(t, testshared.Model, testshared.Library)
	emb, err := onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
	if err != nil {
		t.Fatal(err)
	}
	rankStats(t, emb, cairn.ModeHybrid, "testdata/rank/stats-hybrid.txt")
}

func rankStats(t *testing.T, emb cairn.Embedder, mode, golden string) {
	notes, err := filepath.Abs("testdata/rank/notes")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng, err := Open(ctx, Options{Dir: t.TempDir(), Embedder: emb, Corpora: []cairn.Corpus{{Name: "rank", Kind: cairn.KindFiles, Paths: []string{notes}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/rank/queries.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	var n, at1, at3, at5 int
	var mrr float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		query, want, _ := strings.Cut(line, "\t")
		hits, err := eng.Search(ctx, query, &cairn.SearchOptions{Limit: 10, Mode: mode})
		if err != nil {
			t.Fatalf("search %q: %v", query, err)
		}
		rank := 0
		for i, h := range hits {
			if h.Path == "cairn://rank/"+want {
				rank = i + 1
				break
			}
		}
		n++
		if rank > 0 {
			mrr += 1 / float64(rank)
			at1 += b2i(rank <= 1)
			at3 += b2i(rank <= 3)
			at5 += b2i(rank <= 5)
		}
		fmt.Fprintf(&b, "%-45s rank %d\n", query, rank)
	}
	fmt.Fprintf(&b, "\nqueries %d  recall@1 %.3f  recall@3 %.3f  recall@5 %.3f  MRR %.3f\n",
		n, float64(at1)/float64(n), float64(at3)/float64(n), float64(at5)/float64(n), mrr/float64(n))
	goldenfile.Check(t, golden, []byte(b.String()))

}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
