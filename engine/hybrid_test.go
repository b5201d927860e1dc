package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/vector"
	"github.com/google/go-cmp/cmp"
)

// conceptEmbedder is a hand-written fake: words map to concept buckets
// through a synonym table, so paraphrases that share no word land close.
type conceptEmbedder struct {
	model string
	down  atomic.Bool
	calls atomic.Int32
}

var concepts = map[string]int{
	"support": 0, "group": 0, "meetup": 0, "lgbtq": 0, "community": 0,
	"garden": 1, "compost": 1, "soil": 1, "tomatoes": 1,
	"budget": 2, "quarterly": 2, "finance": 2, "spending": 2,
}

func (f *conceptEmbedder) Identity() cairn.EmbedderIdentity {
	return cairn.EmbedderIdentity{Provider: "fake", Model: f.model, Dimension: 16, Normalized: true}
}

func (f *conceptEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	if f.down.Load() {
		return nil, errors.New("fake embedder: " + cairn.ErrUnavailable.Error())
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = bagOfWords(t, concepts, 16, false)
	}
	return out, nil
}

// bagOfWords is the fake embedders' vector of text: each word (letters,
// and digits too when digits is set) counts in its bucket of buckets, a
// bucket's index or, for a word not in it, one of the dim-len(distinct
// buckets) past them chosen by its hash; normalized.
func bagOfWords(text string, buckets map[string]int, dim int, digits bool) []float32 {
	named := 0
	for _, b := range buckets {
		named = max(named, b+1)
	}
	v := make([]float32, dim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return (r < 'a' || r > 'z') && (!digits || r < '0' || r > '9')
	}) {
		b, ok := buckets[w]
		if !ok {
			h := fnv.New32a()
			h.Write([]byte(w))
			b = named + int(h.Sum32()%uint32(dim-named))
		}
		v[b]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for j := range v {
		v[j] /= float32(math.Sqrt(n) + 1e-9)
	}
	return v
}

func TestHybridSearch(t *testing.T) {
	emb := &conceptEmbedder{model: "v1"}
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
		"c.md": "# Money\n\nQuarterly budget review with the finance team.\n",
	}, Options{Embedder: emb})
	res, err := f.eng.Sync(context.Background(), nil)
	if err != nil || res.Embedded == 0 || res.PendingEmbeddings != 0 {
		t.Fatalf("sync = %+v, %v; want every chunk embedded", res, err)
	}
	search := func(q, mode string) []cairn.Hit {
		t.Helper()
		hits, err := f.eng.Search(context.Background(), q, &cairn.SearchOptions{Mode: mode, Explain: true})
		if err != nil {
			t.Fatalf("search %q %s: %v", q, mode, err)
		}
		return hits
	}
	// A paraphrase sharing no word with the note: the vector lane finds it.
	if hits := search("LGBTQ meetup", cairn.ModeLexical); len(hits) != 0 {
		t.Fatalf("lexical found %v; the fixture should share no word", hits)
	}
	for _, mode := range []string{cairn.ModeVector, cairn.ModeHybrid, ""} {
		hits := search("LGBTQ meetup", mode)
		if len(hits) == 0 || hits[0].Path != "cairn://notes/a.md" {
			t.Fatalf("%q: hits %+v; want a.md first", mode, hits)
		}
		// The hit came from the vector lane alone; its text is read
		// after fusion, for the hits returned.
		for _, h := range hits {
			if h.Snippet == "" {
				t.Errorf("%q: %s has no snippet", mode, h.Path)
			}
		}
		if !strings.Contains(hits[0].Snippet, "Caroline went to the support group") {
			t.Errorf("%q: snippet %q is not a.md's text", mode, hits[0].Snippet)
		}
		if mode != cairn.ModeVector && !strings.Contains(strings.Join(hits[0].Explain, " "), "fused:") {
			t.Errorf("%q explain = %v", mode, hits[0].Explain)
		}
	}
	// Both lanes agree on an exact word: fused score 1.
	if hits := search("compost", cairn.ModeHybrid); len(hits) == 0 || hits[0].Path != "cairn://notes/b.md" || hits[0].Score < 0.99 {
		t.Errorf("compost: %+v", hits)
	}
	// One best chunk per document in hybrid mode.
	seen := map[string]bool{}
	for _, h := range search("budget finance garden support", cairn.ModeHybrid) {
		if seen[h.Path] {
			t.Errorf("document %s twice", h.Path)
		}
		seen[h.Path] = true
	}
	if _, err := f.eng.Search(context.Background(), "x", &cairn.SearchOptions{Mode: "fuzzy"}); !errors.Is(err, cairn.ErrInvalid) {
		t.Errorf("bad mode: %v", err)
	}
}

func TestEmbedderUnavailablePausesAndResumes(t *testing.T) {
	emb := &conceptEmbedder{model: "v1"}
	emb.down.Store(true)
	f := newFixture(t, map[string]string{"a.md": "# A\n\nsupport group notes\n"}, Options{Embedder: emb})
	res, err := f.eng.Sync(context.Background(), nil)
	if err == nil || res.PendingEmbeddings == 0 {
		t.Fatalf("sync with the embedder down = %+v, %v; want an error and pending work", res, err)
	}
	// Lexical results still come; hybrid says its vector lane is off.
	hits, err := f.eng.Search(context.Background(), "support", &cairn.SearchOptions{Mode: cairn.ModeHybrid, Explain: true})
	if err != nil || len(hits) != 1 || !strings.Contains(strings.Join(hits[0].Explain, " "), "vector lane off") {
		t.Fatalf("hybrid while pending = %+v, %v", hits, err)
	}
	if _, err := f.eng.Search(context.Background(), "support", &cairn.SearchOptions{Mode: cairn.ModeVector}); err == nil {
		t.Error("vector mode answered without vectors")
	}
	emb.down.Store(false)
	res, err = f.eng.Sync(context.Background(), nil)
	if err != nil || res.Embedded == 0 || res.PendingEmbeddings != 0 {
		t.Fatalf("resumed sync = %+v, %v", res, err)
	}
	if hits := f.searchMode("LGBTQ meetup", cairn.ModeVector); len(hits) != 1 {
		t.Errorf("after resuming: %v", hits)
	}
}

func TestEmbedderChangeReembeds(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, map[string]string{"a.md": "# A\n\nsupport group notes\n"}, Options{Dir: dir, Embedder: &conceptEmbedder{model: "v1"}})
	f.sync()
	f.eng.Close(context.Background())
	eng, err := Open(context.Background(), Options{Dir: dir, Corpora: f.eng.Corpora(), Embedder: &conceptEmbedder{model: "v2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	if _, err := eng.Search(context.Background(), "meetup", &cairn.SearchOptions{Mode: cairn.ModeVector}); err == nil {
		t.Error("vector search answered with another model's vectors")
	}
	res, err := eng.Sync(context.Background(), nil)
	if err != nil || res.Embedded != 1 {
		t.Fatalf("re-embed after a model change = %+v, %v", res, err)
	}
}

func (f *fixture) searchMode(q, mode string) []cairn.Hit {
	f.t.Helper()
	hits, err := f.eng.Search(context.Background(), q, &cairn.SearchOptions{Mode: mode})
	if err != nil {
		f.t.Fatalf("search %q: %v", q, err)
	}
	return hits
}

func TestFuseKeepsLaneScores(t *testing.T) {
	lex := []cairn.Hit{
		{Path: "cairn://n/a.md", StartLine: 1, Score: 0.8},
		{Path: "cairn://n/b.md", StartLine: 1, Score: 0.5},
	}
	vec := []cairn.Hit{
		{Path: "cairn://n/b.md", StartLine: 1, Score: 0.61},
		{Path: "cairn://n/c.md", StartLine: 4, Score: 0.40},
	}
	hits := fuse(lex, vec, &cairn.SearchOptions{Limit: 10}, func(h cairn.Hit) string { return h.Path }, rrfFusion)
	got := map[string][2]float64{}
	for _, h := range hits {
		v := [2]float64{-1, -1}
		if h.TextScore != nil {
			v[0] = *h.TextScore
		}
		if h.VectorScore != nil {
			v[1] = *h.VectorScore
		}
		got[h.Path] = v
	}
	want := map[string][2]float64{
		"cairn://n/a.md": {0.8, -1},
		"cairn://n/b.md": {0.5, 0.61},
		"cairn://n/c.md": {-1, 0.40},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lane scores (-want +got):\n%s", diff)
	}
	if hits[0].Path != "cairn://n/b.md" {
		t.Errorf("first hit %s, want b.md: it is in both lanes", hits[0].Path)
	}
}

// TestVectorLaneSurvivesNoOpSync checks that a sync that changes no chunk
// keeps the loaded vector lane, and that one that does rebuilds it.
func TestVectorLaneSurvivesNoOpSync(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
	}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	loaded := func() bool {
		f.eng.vec.mu.RLock()
		defer f.eng.vec.mu.RUnlock()
		return f.eng.vec.loaded
	}
	if _, err := f.eng.Search(ctx, "meetup", &cairn.SearchOptions{Mode: cairn.ModeVector}); err != nil || !loaded() {
		t.Fatalf("vector search: %v, loaded %v", err, loaded())
	}
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !loaded() {
		t.Error("a sync that changed nothing dropped the vector lane")
	}
	index := func() *vector.Index {
		f.eng.vec.mu.RLock()
		defer f.eng.vec.mu.RUnlock()
		return f.eng.vec.index
	}
	before := index()
	f.write("c.md", "# Money\n\nQuarterly budget review with the finance team.\n")
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !loaded() || index() == before {
		t.Error("a sync that added chunks kept the old vector lane instead of reloading it")
	}
	hits, err := f.eng.Search(ctx, "spending", &cairn.SearchOptions{Mode: cairn.ModeVector})
	if err != nil || len(hits) == 0 || hits[0].Path != "cairn://notes/c.md" {
		t.Errorf("after reload: %+v, %v; want c.md first", hits, err)
	}
}

// TestVectorFile checks the index file: written after a sync, used by a
// new engine on the same data, and rebuilt when the vectors changed or
// the file is damaged.
func TestVectorFile(t *testing.T) {
	ctx := context.Background()
	emb := &conceptEmbedder{model: "v1"}
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
		"b.md": "# Garden\n\nThe tomatoes need compost and better soil.\n",
	}, Options{Embedder: emb})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(f.eng.opts.Dir, VectorFile)
	first, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no index file after a sync that embedded: %v", err)
	}
	reopen := func() *Engine {
		t.Helper()
		eng, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close(ctx) })
		return eng
	}
	top := func(eng *Engine, q string) string {
		t.Helper()
		hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Mode: cairn.ModeVector})
		if err != nil || len(hits) == 0 {
			t.Fatalf("search %q: %v, %v", q, hits, err)
		}
		return hits[0].Path
	}
	if got := top(reopen(), "LGBTQ meetup"); got != "cairn://notes/a.md" {
		t.Errorf("from the file: top hit %s, want a.md", got)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(first.ModTime()) {
		t.Error("a matching file was rewritten")
	}
	// Another process adds a note: the file is stale for a third one.
	f.write("c.md", "# Money\n\nQuarterly budget review with the finance team.\n")
	other := reopen()
	if _, err := other.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := top(reopen(), "spending"); got != "cairn://notes/c.md" {
		t.Errorf("after another process synced: top hit %s, want c.md", got)
	}
	// A damaged file is rebuilt, not trusted.
	if err := os.WriteFile(path, []byte("CAIRNVX1 but not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := top(reopen(), "compost soil"); got != "cairn://notes/b.md" {
		t.Errorf("with a damaged file: top hit %s, want b.md", got)
	}
	if st, err := os.Stat(path); err != nil || st.Size() < 64 {
		t.Errorf("the damaged file was not rewritten: %v", err)
	}
}

// TestVectorLaneSeesOtherProcesses: vectors another engine on the same
// data writes reach a lane loaded before them.
func TestVectorLaneSeesOtherProcesses(t *testing.T) {
	ctx := context.Background()
	emb := &conceptEmbedder{model: "v1"}
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
	}, Options{Embedder: emb})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Search(ctx, "meetup", &cairn.SearchOptions{Mode: cairn.ModeVector}); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, Options{Dir: f.eng.opts.Dir, Corpora: f.eng.opts.Corpora, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	f.write("c.md", "# Money\n\nQuarterly budget review with the finance team.\n")
	if _, err := other.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hits, err := f.eng.Search(ctx, "spending", &cairn.SearchOptions{Mode: cairn.ModeVector})
	if err != nil || len(hits) == 0 || hits[0].Path != "cairn://notes/c.md" {
		t.Errorf("after another engine synced: %+v, %v; want c.md first", hits, err)
	}
}

// TestSearchDuringReload: while another goroutine reloads a stale lane,
// a vector search answers from the lane it has instead of waiting (the
// reload of 100k vectors takes seconds). If it waited, this test would
// hang: the reload lock is held for its whole length.
func TestSearchDuringReload(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{
		"a.md": "# Week\n\nCaroline went to the support group on Tuesday.\n",
	}, Options{Embedder: &conceptEmbedder{model: "v1"}})
	if _, err := f.eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Search(ctx, "meetup", &cairn.SearchOptions{Mode: cairn.ModeVector}); err != nil {
		t.Fatal(err)
	}
	f.eng.afterSync(0, true) // stale
	f.eng.vec.loadMu.Lock()  // a reload under way
	hits, err := f.eng.Search(ctx, "LGBTQ meetup", &cairn.SearchOptions{Mode: cairn.ModeVector})
	f.eng.vec.loadMu.Unlock()
	if err != nil || len(hits) == 0 || hits[0].Path != "cairn://notes/a.md" {
		t.Errorf("search during a reload: %+v, %v", hits, err)
	}
}

// TestFuseRanksDocuments checks that each lane ranks documents: extra
// chunks of one document do not push another down, a document found by
// both lanes through different chunks gets both contributions, and it
// shows the chunk of the lane that ranks it higher.
func TestFuseRanksDocuments(t *testing.T) {
	lex := []cairn.Hit{
		{Path: "cairn://n/answer.md", StartLine: 1, EndLine: 4, Score: 0.9},
		{Path: "cairn://n/other.md", StartLine: 1, EndLine: 6, Score: 0.6},
	}
	vec := []cairn.Hit{
		{Path: "cairn://n/noisy.md", StartLine: 3, EndLine: 4, Score: 0.42},
		{Path: "cairn://n/other.md", StartLine: 1, EndLine: 6, Score: 0.41},
		{Path: "cairn://n/noisy.md", StartLine: 1, EndLine: 2, Score: 0.40},
		{Path: "cairn://n/noisy.md", StartLine: 5, EndLine: 6, Score: 0.36},
		{Path: "cairn://n/answer.md", StartLine: 9, EndLine: 12, Score: 0.35},
	}
	hits := fuse(lex, vec, &cairn.SearchOptions{Limit: 10, Explain: true}, func(h cairn.Hit) string { return h.Path }, rrfFusion)
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s:%d %s", h.Path, h.StartLine, strings.Join(h.Explain, " ")))
	}
	want := []string{
		// 1/61 + 1/63 beats other.md's 1/62 + 1/62: answer.md is third in
		// the vector lane as a document, not fifth as a chunk.
		"cairn://n/answer.md:1 bm25(0.9000):rank 1 rrf 0.0164 vec(0.3500):rank 3 rrf 0.0159 (lines 9-12) fused:0.9841",
		"cairn://n/other.md:1 bm25(0.6000):rank 2 rrf 0.0161 vec(0.4100):rank 2 rrf 0.0161 fused:0.9839",
		"cairn://n/noisy.md:3 vec(0.4200):rank 1 rrf 0.0164 fused:0.5000",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fused hits (-want +got):\n%s", diff)
	}
	if h := hits[0]; *h.TextScore != 0.9 || *h.VectorScore != 0.35 {
		t.Errorf("answer.md lane scores %v %v, want its best chunk in each lane", *h.TextScore, *h.VectorScore)
	}
}

// TestFuseExplainNamesOtherLanesLines checks the explanation when the
// vector lane's chunk is the one shown: the lexical part names the lines
// it scored.
func TestFuseExplainNamesOtherLanesLines(t *testing.T) {
	lex := []cairn.Hit{
		{Path: "cairn://n/x.md", StartLine: 1, EndLine: 2, Score: 0.9},
		{Path: "cairn://n/y.md", StartLine: 1, EndLine: 2, Score: 0.8},
		{Path: "cairn://n/doc.md", StartLine: 1, EndLine: 4, Score: 0.7},
	}
	vec := []cairn.Hit{{Path: "cairn://n/doc.md", StartLine: 20, EndLine: 24, Score: 0.5}}
	hits := fuse(lex, vec, &cairn.SearchOptions{Limit: 10, Explain: true}, func(h cairn.Hit) string { return h.Path }, rrfFusion)
	want := "cairn://n/doc.md:20 bm25(0.7000):rank 3 rrf 0.0159 (lines 1-4) vec(0.5000):rank 1 rrf 0.0164 fused:0.9841"
	if got := fmt.Sprintf("%s:%d %s", hits[0].Path, hits[0].StartLine, strings.Join(hits[0].Explain, " ")); got != want {
		t.Errorf("first hit\n got %s\nwant %s", got, want)
	}
}

// TestVectorSnippetSameStartLine: a paragraph longer than a chunk is cut
// into chunks that all start on its line. The snippet of a vector hit must
// come from the chunk that scored, not from another chunk of the same line
// (found in review: the lowest-ranked one used to win).
func TestVectorSnippetSameStartLine(t *testing.T) {
	emb := &conceptEmbedder{model: "v1"}
	support := strings.Repeat("Caroline went to the support group again on Tuesday evening. ", 40)
	garden := strings.Repeat("The tomatoes need compost and better soil in the garden bed. ", 40)
	for name, text := range map[string]string{"support first": support + garden, "garden first": garden + support} {
		f := newFixture(t, map[string]string{"a.md": "# Notes\n\n" + text + "\n"}, Options{Embedder: emb})
		if _, err := f.eng.Sync(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{cairn.ModeVector, cairn.ModeHybrid} {
			hits, err := f.eng.Search(context.Background(), "LGBTQ meetup", &cairn.SearchOptions{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || !strings.Contains(hits[0].Snippet, "support group") {
				t.Errorf("%s, %s: hits %+v; want the support-group chunk's text first", name, mode, hits)
			}
		}
	}
}

// TestFuseScores: hybrid search fuses the lanes' normalized scores (BM25
// over the lane's best, cosine over the lane's range, the vector lane at
// half weight). A lexical hit far ahead in BM25 keeps first place against
// one the vector lane ranks first, which equal-weight reciprocal-rank
// fusion put first (it sees ranks only); with BM25 close, the vector lane
// decides.
func TestFuseScores(t *testing.T) {
	hit := func(path string, bm25, cos float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://n/" + path, StartLine: 1, EndLine: 2, Score: max(bm25, cos),
			Signals: &cairn.HitSignals{BM25: bm25, Cosine: cos}}
	}
	vec := []cairn.Hit{hit("b.md", 0, 0.6), hit("c.md", 0, 0.55), hit("a.md", 0, 0.3)}
	key := func(h cairn.Hit) string { return h.Path }
	order := func(hits []cairn.Hit) string {
		var s []string
		for _, h := range hits {
			s = append(s, strings.TrimPrefix(h.Path, "cairn://n/"))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name     string
		lex      []cairn.Hit
		fw       fusionWeights
		want     string
		wantHead string // the first hit's explanation
	}{
		// a: 1 + 0.5×0; b: 0.2 + 0.5×1; c: 0.5×0.833.
		{"lead kept", []cairn.Hit{hit("a.md", 10, 0), hit("b.md", 2, 0)}, fusion, "a.md b.md c.md",
			"bm25(10.0000):rank 1 part 1.0000 vec(0.3000):rank 3 part 0.0000 fused:0.6667"},
		// RRF: b 1/62 + 1/61 beats a 1/61 + 1/63.
		{"rrf", []cairn.Hit{hit("a.md", 10, 0), hit("b.md", 2, 0)}, rrfFusion, "b.md a.md c.md", ""},
		// b: 0.95 + 0.5 beats a: 1 + 0.
		{"close", []cairn.Hit{hit("a.md", 10, 0), hit("b.md", 9.5, 0)}, fusion, "b.md a.md c.md",
			"bm25(9.5000):rank 2 part 0.9500 vec(0.6000):rank 1 part 0.5000 fused:0.9667"},
	} {
		hits := fuse(c.lex, vec, &cairn.SearchOptions{Limit: 10, Explain: true}, key, c.fw)
		if got := order(hits); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
		if got := strings.Join(hits[0].Explain, " "); c.wantHead != "" && got != c.wantHead {
			t.Errorf("%s: first hit explained\n got %s\nwant %s", c.name, got, c.wantHead)
		}
	}
}

// TestFuseLean: with Lean the vector lane's weight falls as the lexical
// lane grows sure of its answer. A query whose best BM25 stands far above
// the rest (a name, an identifier) keeps BM25's first hit against the
// vector lane's; one whose BM25 is flat is fused as before.
func TestFuseLean(t *testing.T) {
	hit := func(path string, bm25, cos float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://n/" + path, StartLine: 1, EndLine: 2, Score: max(bm25, cos),
			Signals: &cairn.HitSignals{BM25: bm25, Cosine: cos}}
	}
	vec := []cairn.Hit{hit("b.md", 0, 0.6), hit("c.md", 0, 0.55), hit("a.md", 0, 0.3)}
	key := func(h cairn.Hit) string { return h.Path }
	plain := fusionWeights{Lex: 1, Vec: 0.5, Convex: true} // score fusion, no knob
	lean := plain
	lean.Lean, lean.LeanBy = 1, leanGap
	for _, c := range []struct {
		name string
		lex  []cairn.Hit
		fw   fusionWeights
		want string
	}{
		// a: 1 + 0; b: 0.6 + 0.5: b first without Lean.
		{"sure, plain", []cairn.Hit{hit("a.md", 10, 0), hit("b.md", 6, 0)}, plain, "b.md"},
		// Gap 0.4: the vector weight is 0.5 × 0.6 = 0.3; b: 0.6 + 0.3 < 1.
		{"sure, lean", []cairn.Hit{hit("a.md", 10, 0), hit("b.md", 6, 0)}, lean, "a.md"},
		// Gap 0.05: b 0.95 + 0.475 beats a's 1, as without Lean.
		{"flat, lean", []cairn.Hit{hit("a.md", 10, 0), hit("b.md", 9.5, 0)}, lean, "b.md"},
	} {
		hits := fuse(c.lex, vec, &cairn.SearchOptions{Limit: 10}, key, c.fw)
		if got := strings.TrimPrefix(hits[0].Path, "cairn://n/"); got != c.want {
			t.Errorf("%s: first %s, want %s", c.name, got, c.want)
		}
	}
	if got := lexConfidence(nil, leanGap); got != 0 {
		t.Errorf("confidence of an empty lane %v, want 0", got)
	}
}

// TestFuseDiverse: the diversity pass spreads the list over documents
// below its first places: a third chunk of one session yields to another
// session's chunk whose score is within the penalty, and the first places
// keep their order.
func TestFuseDiverse(t *testing.T) {
	hit := func(path string, line int, bm25 float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://s/" + path, StartLine: line, EndLine: line + 1, Score: bm25,
			Signals: &cairn.HitSignals{BM25: bm25}}
	}
	lex := []cairn.Hit{hit("d1.md", 1, 10), hit("d1.md", 5, 9.5), hit("d1.md", 9, 9), hit("d2.md", 1, 8.5), hit("d2.md", 5, 4)}
	plain := fusionWeights{Lex: 1, Vec: 0.5, Convex: true}
	div := plain
	div.Diverse, div.DiverseAfter = 0.1, 1
	for _, c := range []struct {
		name string
		fw   fusionWeights
		want string
	}{
		{"plain", plain, "d1.md:1 d1.md:5 d1.md:9 d2.md:1 d2.md:5"},
		// Penalty 0.15 a chunk of a session above: place 2 is d1:5 (0.95
		// − 0.15 = 0.8) against d2:1 (0.85): d2:1; place 3 d1:5 (0.8)
		// against d1:9 (0.75) and d2:5 (0.4 − 0.15).
		{"diverse", div, "d1.md:1 d2.md:1 d1.md:5 d1.md:9 d2.md:5"},
	} {
		if got := fusedOrder(fuse(lex, nil, &cairn.SearchOptions{Limit: 10}, fuseKey, c.fw)); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
	}
}

// TestFuseContext: with Context a chunk is lifted by the best fused score
// of a chunk right beside it in its document (the line before its first,
// the line after its last): the reply after a turn that matches the query
// rises above an unrelated chunk elsewhere. Chunks of other documents, and
// of one document but not adjacent, lend nothing.
func TestFuseContext(t *testing.T) {
	hit := func(path string, start, end int, bm25 float64) cairn.Hit {
		return cairn.Hit{Path: "cairn://s/" + path, StartLine: start, EndLine: end, Score: bm25,
			Signals: &cairn.HitSignals{BM25: bm25}}
	}
	lex := []cairn.Hit{
		hit("d1.md", 7, 10, 10),   // the question that names the topic
		hit("d2.md", 1, 6, 4),     // another session
		hit("d1.md", 11, 14, 3),   // the reply right after it
		hit("d2.md", 11, 14, 3.5), // not beside d2's first chunk
		hit("d3.md", 7, 10, 3.2),  // a chunk of a third session
	}
	plain := fusionWeights{Lex: 1, Vec: 0.5, Convex: true}
	ctx := plain
	ctx.Context = 0.2
	for _, c := range []struct {
		name string
		fw   fusionWeights
		want string
	}{
		{"plain", plain, "d1.md:7 d2.md:1 d2.md:11 d3.md:7 d1.md:11"},
		// d1:11 0.3 + 0.2 × 1; d1:7 1 + 0.2 × 0.3: the reply passes d2:1.
		{"context", ctx, "d1.md:7 d1.md:11 d2.md:1 d2.md:11 d3.md:7"},
	} {
		if got := fusedOrder(fuse(lex, nil, &cairn.SearchOptions{Limit: 10}, fuseKey, c.fw)); got != c.want {
			t.Errorf("%s: order %s, want %s", c.name, got, c.want)
		}
	}
}

// fuseKey and fusedOrder serve the fusion tests of session chunks under
// cairn://s/: a hit's key is its path and first line, and an order is
// those, path without the prefix, in the fused order.
func fuseKey(h cairn.Hit) string { return fmt.Sprintf("%s#%d", h.Path, h.StartLine) }

func fusedOrder(hits []cairn.Hit) string {
	var s []string
	for _, h := range hits {
		s = append(s, fmt.Sprintf("%s:%d", strings.TrimPrefix(h.Path, "cairn://s/"), h.StartLine))
	}
	return strings.Join(s, " ")
}
