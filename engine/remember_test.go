package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/consolidate"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/internal/testshared"
	"github.com/cairnmemory/cairn/redact/redacttest"
	"github.com/cairnmemory/cairn/tokenize"
)

// rememberFixture is an engine with a notes corpus and a sessions corpus
// (so the memories corpus is part of it from Open on).
func rememberFixture(t *testing.T, emb cairn.Embedder) *fixture {
	t.Helper()
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Garden\n\nThe tomatoes need compost.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, nil, Options{Embedder: emb, Corpora: []cairn.Corpus{
		{Name: "notes", Kind: cairn.KindFiles, Paths: []string{notes}, Glob: cairn.DefaultGlob},
		{Name: "sessions", Kind: cairn.KindSessions}}})
	f.notes = notes
	if _, err := f.eng.Sync(context.Background(), nil); err != nil && !strings.Contains(err.Error(), "embed chunks") {
		t.Fatal(err) // an embedder down leaves the notes indexed, unembedded
	}
	return f
}

func memoryIDs(t *testing.T, e *Engine, query, mode string) []string {
	t.Helper()
	hits, err := e.Search(context.Background(), query, &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Mode: mode})
	if err != nil {
		t.Fatalf("search %q (%s): %v", query, mode, err)
	}
	var ids []string
	for _, h := range hits {
		if h.Memory != nil {
			ids = append(ids, h.Memory.ID)
		}
	}
	return ids
}

// TestRemember: a told memory is stored redacted with its provenance,
// found by a lexical search in the same call's aftermath, and telling it
// again replaces it.
func TestRemember(t *testing.T) {
	f := rememberFixture(t, nil)
	ctx := context.Background()
	secrets := redacttest.Samples()
	var body strings.Builder
	for _, s := range secrets {
		body.WriteString(s.Line + "\n")
	}
	req := &cairn.RememberRequest{Kind: "decision", Title: "Staging uses Postgres 16", Summary: "We moved the staging database to Postgres 16 on db-stage-2.",
		Body: body.String(), Cues: []string{"which postgres on staging?"}, Concepts: []string{"postgres", "staging"}, Agent: "claude"}
	res, err := f.eng.Remember(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Memory
	if !res.Created || !strings.HasPrefix(res.Provenance, "told by claude at ") || m.Provenance[0].Record != res.Provenance {
		t.Fatalf("result %+v", res)
	}
	if res.Embedded != 0 || res.EmbedError != "" {
		t.Fatalf("embedded %d (%s) without an embedder", res.Embedded, res.EmbedError)
	}
	stored, err := f.eng.Memory(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(stored)
	doc, _ := os.ReadFile(filepath.Join(f.eng.memoriesRoot(), filepath.FromSlash(consolidate.DocumentPath(&stored))))
	if leaked := redacttest.Leaked(string(b) + string(doc)); len(leaked) > 0 {
		t.Fatalf("stored secrets of %d kinds: %v", len(leaked), leaked)
	}
	if !strings.Contains(string(doc), "- "+res.Provenance+"\n") {
		t.Fatalf("document lacks the provenance:\n%s", doc)
	}
	if ids := memoryIDs(t, f.eng, "staging postgres", cairn.ModeLexical); len(ids) != 1 || ids[0] != m.ID {
		t.Fatalf("lexical search found %v, want [%s]", ids, m.ID)
	}
	if ids := memoryIDs(t, f.eng, "which postgres on staging", cairn.ModeLexical); len(ids) != 1 {
		t.Fatalf("a cue finds %v", ids)
	}
	again, err := f.eng.Remember(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := f.eng.Memories(ctx, cairn.MemoryFilter{})
	if again.Created || again.Memory.ID != m.ID || len(ms) != 1 {
		t.Fatalf("told again: created %v id %s, %d memories stored", again.Created, again.Memory.ID, len(ms))
	}
	_, err = f.eng.Remember(ctx, &cairn.RememberRequest{Kind: "rumour", Summary: "x", Agent: "claude"})
	if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), `kind "rumour": allowed`) {
		t.Fatalf("bad kind: %v", err)
	}
}

// TestRememberEmbedded: with an embedder the memory's chunks are embedded
// in the call (and only they: the backlog of other chunks waits), so a
// vector search finds it at once; an embedder that fails leaves it stored
// and found lexically.
func TestRememberEmbedded(t *testing.T) {
	emb := &conceptEmbedder{model: "v1"}
	f := rememberFixture(t, emb)
	ctx := context.Background()
	res, err := f.eng.Remember(ctx, &cairn.RememberRequest{Kind: "observation", About: "Maya", Summary: "Maya joined the community garden group.",
		EventDate: "2026-11", Agent: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded == 0 || res.Pending != 0 || res.EmbedError != "" {
		t.Fatalf("embedded %d, pending %d, %s", res.Embedded, res.Pending, res.EmbedError)
	}
	if ids := memoryIDs(t, f.eng, "meetup support compost", cairn.ModeVector); len(ids) != 1 || ids[0] != res.Memory.ID {
		t.Fatalf("vector search found %v, want [%s]", ids, res.Memory.ID)
	}

	// A backlog (a note synced while the embedder was down) is left to
	// the sync: only the memory's chunks are embedded.
	emb.down.Store(true)
	f.write("b.md", "# Budget\n\nThe quarterly finance numbers.\n")
	if _, err := f.eng.Sync(ctx, nil); err == nil {
		t.Fatal("sync with the embedder down: no error")
	}
	emb.down.Store(false)
	backlog, err := f.eng.PendingEmbeddings(ctx)
	if err != nil || backlog == 0 {
		t.Fatalf("backlog %d: %v", backlog, err)
	}
	second, err := f.eng.Remember(ctx, &cairn.RememberRequest{Kind: "fact", Title: "Compost bins", Summary: "The garden has three compost bins.", Agent: "cli"})
	if err != nil || second.Embedded == 0 {
		t.Fatalf("second: %+v, %v", second, err)
	}
	if after, _ := f.eng.PendingEmbeddings(ctx); after != backlog {
		t.Fatalf("pending embeddings %d before, %d after: only the memory's chunks should be embedded", backlog, after)
	}

	emb.down.Store(true)
	down, err := f.eng.Remember(ctx, &cairn.RememberRequest{Kind: "fact", Title: "Quarterly budget", Summary: "The quarterly budget review is on Fridays.", Agent: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if down.Embedded != 0 || down.Pending == 0 || !strings.Contains(down.EmbedError, "unavailable") {
		t.Fatalf("embedder down: %+v", down)
	}
	if ids := memoryIDs(t, f.eng, "quarterly budget review", cairn.ModeLexical); len(ids) != 1 || ids[0] != down.Memory.ID {
		t.Fatalf("lexical search found %v after the embedder failed", ids)
	}
}

// TestRememberHybridShared: with the shared sentence encoder, a hybrid
// search finds a remembered memory at once by a paraphrase.
func TestRememberHybridShared(t *testing.T) {
	emb := sharedEmbedder(t)
	if emb == nil {
		t.Skip("no shared model")
	}
	f := rememberFixture(t, emb)
	ctx := context.Background()
	res, err := f.eng.Remember(ctx, &cairn.RememberRequest{Kind: "preference", Title: "Dark editor theme",
		Summary: "Dana prefers a dark colour theme in every editor.", Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded == 0 {
		t.Fatalf("nothing embedded: %+v", res)
	}
	for _, mode := range []string{cairn.ModeHybrid, cairn.ModeVector} {
		if ids := memoryIDs(t, f.eng, "which theme does Dana like in editors", mode); len(ids) == 0 || ids[0] != res.Memory.ID {
			t.Fatalf("%s search found %v, want %s first", mode, ids, res.Memory.ID)
		}
	}
}

// BenchmarkRemember: one told memory stored, indexed and (with the shared
// encoder, -tags and shared/ present) embedded, into an index that already
// holds b.N earlier ones.
func BenchmarkRemember(b *testing.B) {
	for _, name := range []string{"lexical", "shared"} {
		b.Run(name, func(b *testing.B) {
			var emb cairn.Embedder
			if name == "shared" {
				dir, ok := testshared.Find(testshared.Model, testshared.Library)
				if !ok {
					b.Skip("no shared model")
				}
				var err error
				emb, err = onnx.New(onnx.Options{ModelDir: filepath.Join(dir, testshared.ModelDir), Library: filepath.Join(dir, testshared.Library),
					LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
				if err != nil {
					b.Fatal(err)
				}
			}
			e, err := Open(context.Background(), Options{Dir: b.TempDir(), Embedder: emb, Corpora: []cairn.Corpus{{Name: "sessions", Kind: cairn.KindSessions}}})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close(context.Background())
			b.ResetTimer()
			for i := range b.N {
				if _, err := e.Remember(context.Background(), &cairn.RememberRequest{Kind: "fact", Title: fmt.Sprintf("Fact %d", i),
					Summary: fmt.Sprintf("Service %d listens on port %d behind the proxy.", i, 8000+i), Agent: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
