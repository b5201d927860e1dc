package engine

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

// tinyNotes are a new user's first five notes, on five topics, written as
// people write notes: headings, lists, a code line.
var tinyNotes = map[string]string{
	"redis.md": "# Caching with Redis\n\nThe API keeps session tokens in Redis with a TTL of 30 minutes.\n\n" +
		"- eviction policy: allkeys-lru, maxmemory 2gb\n- `redis-cli --latency` showed 0.3 ms from the app servers\n\n" +
		"When the cache misses, the handler reads Postgres and writes the key back.\n",
	"bike.md": "# Bike maintenance\n\nChain cleaned and lubed every 300 km; the rear derailleur needed a quarter turn on the\n" +
		"barrel adjuster. Tubeless sealant topped up in April. Brake pads at 2 mm: order new ones.\n",
	"kyoto.md": "# Kyoto trip\n\nTrain from Tokyo on the 7th, three nights at a ryokan in Gion.\n\n" +
		"- Fushimi Inari before 7 am\n- ask Kenji about the izakaya near Pontocho\n- temple pass for Kiyomizu-dera\n",
	"budget.md": "# Q3 budget review\n\nMarketing overspent by 12% on events; engineering under by 4%.\n" +
		"Finance wants a hiring freeze until the November forecast. Action: Tom drafts the revised plan.\n",
	"generics.md": "# Go generics notes\n\nType parameters with constraints: `func Map[T, U any](xs []T, f func(T) U) []U`.\n" +
		"The comparable constraint allows == but not <; use cmp.Ordered for sorting.\n",
}

// hashEmbedder is a deterministic stand-in for a sentence encoder: each
// word adds to one of 256 dimensions by its hash, so texts that share words
// point the same way and the rest are near orthogonal.
type hashEmbedder struct{}

func (hashEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "fake", Model: "hash256", Dimension: 256, Normalized: true}
}

func (hashEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 256)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%256]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n) + 1e-9)
		}
		out[i] = v
	}
	return out, nil
}

// TestTinyIndexScores: in a new user's index of five notes, a score still
// means "how likely this hit is relevant". Nonsense and markup return
// nothing at the default minimum score in every mode, and a query that one
// note matches scores that note clearly above the others, which fall under
// the minimum score. Each lane holds the whole index here, so the query's
// signals (its best cosine, its best term share) are shared by every note;
// before the models weighed a hit's own evidence against them, every note
// scored 0.99 for "<script>alert(1)</script>" (USE-lite, hybrid) and 0.59
// to 0.93 for "redis". Runs with the deterministic hashEmbedder always and
// with USE-lite when shared/ holds it.
func TestTinyIndexScores(t *testing.T) {
	embedders := map[string]cairn.Embedder{"hash": hashEmbedder{}}
	if emb := sharedEmbedder(t); emb != nil {
		embedders["use-lite"] = emb
	}
	ctx := context.Background()
	for name, emb := range embedders {
		f := newFixture(t, tinyNotes, Options{Embedder: emb})
		if _, err := f.eng.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid} {
			for _, q := range []string{"<script>alert(1)</script>", "xyzzyplugh qwertyuiop", "asdf", "' OR 1=1 --"} {
				hits, err := f.eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, MinScore: cairn.DefaultMinScore, Explain: true})
				if err != nil && !strings.Contains(err.Error(), "only common words") && !strings.Contains(err.Error(), "no words") {
					t.Fatalf("%s %s %q: %v", name, mode, q, err)
				}
				for _, h := range hits {
					t.Errorf("%s %s %q: %s scores %.3f, want nothing (%s)", name, mode, q, h.Path, h.Score, strings.Join(h.Explain, "; "))
				}
			}
			for q, want := range map[string]string{"redis": "redis.md", "redis eviction policy": "redis.md", "derailleur": "bike.md",
				"hiring freeze": "budget.md", "ryokan in gion": "kyoto.md", "comparable constraint": "generics.md"} {
				hits, err := f.eng.Search(ctx, q, &cairn.SearchOptions{Mode: mode, Limit: 10, Explain: true})
				if err != nil {
					t.Fatalf("%s %s %q: %v", name, mode, q, err)
				}
				// Vector mode keeps the encoder's order, and a note it ranks
				// above the answer scores at least the answer's score (scores
				// never rise down the list): only the notes below are held to
				// the cut there.
				checkCut(t, name, mode, q, want, hits, mode != cairn.ModeVector)
			}
		}
	}
}

// checkCut fails unless want is returned at a score of at least the
// default minimum score and every other note scores below it and clearly
// below want; with first, want must be the first hit, else (vector mode)
// the notes ranked above it are not checked.
func checkCut(t *testing.T, name, mode, q, want string, hits []cairn.Hit, first bool) {
	t.Helper()
	top, at := -1.0, -1
	for i, h := range hits {
		if h.Path == "cairn://notes/"+want {
			top, at = h.Score, i
		}
	}
	if first && at != 0 {
		t.Errorf("%s %s %q: %s is not first (%d hits)", name, mode, q, want, len(hits))
	}
	if top < cairn.DefaultMinScore {
		t.Errorf("%s %s %q: %s scores %.3f, under the default minimum score", name, mode, q, want, top)
	}
	for i, h := range hits {
		if h.Path == "cairn://notes/"+want || !first && i < at {
			continue
		}
		if h.Score >= cairn.DefaultMinScore || h.Score > top-0.2 {
			t.Errorf("%s %s %q: %s scores %.3f beside %s's %.3f, want under %.2f and clearly below (%s)", name, mode, q, h.Path, h.Score, want, top,
				cairn.DefaultMinScore, strings.Join(h.Explain, "; "))
		}
	}
}
