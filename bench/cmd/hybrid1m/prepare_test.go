package main

import (
	"context"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/bench/corpus"
	"github.com/cairnmemory/cairn/bench/hashembed"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/search"
	"github.com/cairnmemory/cairn/sqlite"
)

// countingEmbedder is hashembed recording what it was asked to embed.
type countingEmbedder struct {
	hashembed.Embedder
	mu    sync.Mutex
	texts []string
	kinds map[string]int
}

func (c *countingEmbedder) Embed(ctx context.Context, kind string, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.texts = append(c.texts, texts...)
	if c.kinds == nil {
		c.kinds = map[string]int{}
	}
	c.kinds[kind] += len(texts)
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, kind, texts)
}

// TestPrepare syncs a small corpus without an embedder, prepares it in
// rounds smaller than the index, and checks what the store holds: every
// chunk has a vector of the embedder's identity; the chunks at ordinals
// 0, every, 2 every, ... (id order) hold the embedder's own vector of
// their text, which were the only texts embedded; every other chunk a
// unit neighbour of the last real one before it. Then the engine with the
// embedder answers a hybrid search with its vector lane on.
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notes, data := filepath.Join(dir, "notes"), filepath.Join(dir, "data")
	if _, _, err := corpus.Generate(notes, corpus.Options{Notes: 120, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	corp := cairn.Corpus{Name: "bench", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob}
	eng, err := local.Open(ctx, engine.Options{Dir: data, Corpora: []cairn.Corpus{corp}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { prepareBatch = n }(prepareBatch)
	prepareBatch = 37
	const every = 5
	emb := &countingEmbedder{}
	if err := prepare(ctx, data, emb, every, 0.1, 1); err != nil {
		t.Fatal(err)
	}

	st, err := sqlite.Backend{}.Open(ctx, data, cairn.StorageOptions{FeatureVersion: engine.FeatureVersion, Ident: search.IdentText})
	if err != nil {
		t.Fatal(err)
	}
	// Every chunk in id order with its text: the listing under an
	// identity nothing was written with.
	chunks, err := st.(vectorStore).PendingChunksAfter(ctx, "no such identity", 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][]float32{}
	err = st.(*sqlite.Store).EachVector(ctx, emb.Identity().Key(), func(id int64, v []float32) error {
		got[id] = append([]float32(nil), v...)
		return nil
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 3*prepareBatch {
		t.Fatalf("only %d chunks: the rounds are not exercised", len(chunks))
	}
	if len(got) != len(chunks) {
		t.Fatalf("%d vectors for %d chunks", len(got), len(chunks))
	}
	wantReal := (len(chunks) + every - 1) / every
	if len(emb.texts) != wantReal || emb.kinds[cairn.EmbedDocument] != wantReal {
		t.Fatalf("embedded %d texts (%v), want %d documents", len(emb.texts), emb.kinds, wantReal)
	}
	want := 1 / math.Sqrt(1+0.1*0.1)
	var base []float32
	for i, c := range chunks {
		v := got[c.ID]
		own, _ := emb.Embedder.Embed(ctx, cairn.EmbedDocument, []string{c.Text})
		if i%every == 0 {
			if emb.texts[i/every] != c.Text {
				t.Fatalf("real text %d is not chunk %d's (ordinal %d)", i/every, c.ID, i)
			}
			if d := dot(v, own[0]); math.Abs(d-1) > 1e-5 {
				t.Fatalf("chunk %d (ordinal %d, real): cosine %.6f to its own embedding", c.ID, i, d)
			}
			base = own[0]
			continue
		}
		if l := math.Sqrt(dot(v, v)); math.Abs(l-1) > 1e-5 {
			t.Fatalf("chunk %d: length %v", c.ID, l)
		}
		if d := dot(v, base); math.Abs(d-want) > 0.03 {
			t.Fatalf("chunk %d (ordinal %d): cosine %.4f to the last real vector, want about %.4f", c.ID, i, d, want)
		}
	}

	emb.texts = nil
	eng, err = local.Open(ctx, engine.Options{Dir: data, Corpora: []cairn.Corpus{corp}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	if n, err := eng.PendingEmbeddings(ctx); err != nil || n != 0 {
		t.Fatalf("PendingEmbeddings %d, %v after prepare", n, err)
	}
	if _, err := eng.Search(ctx, corpus.Queries(1, 1)[0], &cairn.SearchOptions{Mode: cairn.ModeHybrid}); err != nil {
		t.Fatal(err)
	}
	if emb.kinds[cairn.EmbedQuery] != 1 {
		t.Fatalf("the hybrid search embedded %d queries: the vector lane is off", emb.kinds[cairn.EmbedQuery])
	}
}
