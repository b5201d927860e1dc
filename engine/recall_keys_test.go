package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/chunk"
	"github.com/cairnmemory/cairn/consolidate"
)

func keyMemory() cairn.Memory {
	return cairn.Memory{ID: "m-keys", Kind: "procedure", Title: "Release the deploy pipeline",
		Summary: "Tag the release branch, wait for the pipeline, then promote the build.",
		Body:    "1. git tag vX\n2. watch the pipeline\n\nPromote from the console.", AppliesWhen: "When shipping a release.",
		About: "", Scope: "project", Cues: []string{"compost soil garden", "how do we ship"}, Concepts: []string{"release"},
		Thread: "sessions/t.md", ToldAt: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC), Status: cairn.StatusActive,
		Provenance: []cairn.Provenance{{Record: "r1", Corpus: "sessions", Path: "cairn://sessions/t.md", StartLine: 1, EndLine: 9}}}
}

// TestMemoryKeysChunks: a memory document is cut into its retrieval
// keys: the content key (title to summary), the body, one chunk per cue,
// and the concepts and sources as noise.
func TestMemoryKeysChunks(t *testing.T) {
	m := keyMemory()
	text := consolidate.Document(&m)
	cs := memoryChunker{body: chunk.New()}.Chunk(text)
	var got []string
	lines := strings.Split(text, "\n")
	for i, c := range cs {
		s := text[c.Pos : c.Pos+c.Len]
		if c.Seq != i {
			t.Errorf("chunk %d has seq %d", i, c.Seq)
		}
		if first := strings.Join(lines[c.StartLine-1:c.EndLine], "\n"); first != s {
			t.Errorf("chunk %d lines %d-%d are %q, its text %q", i, c.StartLine, c.EndLine, first, s)
		}
		if c.Noise {
			s = "noise: " + s
		}
		got = append(got, s)
	}
	want := []string{
		"# Release the deploy pipeline\n\nprocedure · active · told 2026-05-04 09:00 · project\n\nTag the release branch, wait for the pipeline, then promote the build.",
		"1. git tag vX\n2. watch the pipeline\n\nPromote from the console.\n\nApplies when: When shipping a release.",
		"Cues:\n- compost soil garden",
		"- how do we ship",
		"noise: Concepts: release\n\nSources:\n- cairn://sessions/t.md lines 1-9",
	}
	if !slices.Equal(got, want) {
		t.Errorf("chunks:\n%q\nwant\n%q", got, want)
	}
	if cs := (memoryChunker{body: chunk.New()}).Chunk("plain text\n"); len(cs) != 1 || cs[0].Len != len("plain text\n") {
		t.Errorf("a text not shaped as a memory: %+v", cs)
	}
}

// TestMemoryKeysEmbeddedAtOnce: memories committed and indexed as
// consolidation does (Worker.Index is indexAndEmbed) have their vectors
// before any sync, and a memory is found by its best key: a query that
// only one cue answers meets that cue's vector.
func TestMemoryKeysEmbeddedAtOnce(t *testing.T) {
	ctx := context.Background()
	emb := &conceptEmbedder{model: "v1"}
	f := newFixture(t, map[string]string{"a.md": "# Notes\n\nNothing about it.\n"}, Options{Embedder: emb})
	f.sync()
	m := keyMemory()
	res, err := f.eng.store.CommitWindow(ctx, cairn.WindowCommit{Corpus: "sessions", Thread: "t.md", Pass: "main",
		Records: []string{"r1"}, Hashes: []string{""}, Memories: []cairn.Memory{m}})
	if err != nil {
		t.Fatal(err)
	}
	// Reopen so that the memories corpus is configured (Open adds it when
	// memories are stored).
	opts := f.eng.opts
	f.eng.Close(ctx)
	eng, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(ctx) })
	if err := eng.indexAndEmbed(ctx, []cairn.Memory{m}, res); err != nil {
		t.Fatal(err)
	}
	if n, err := eng.PendingEmbeddings(ctx); err != nil || n != 0 {
		t.Fatalf("%d chunks wait for vectors after the memories were written (%v), want 0", n, err)
	}
	hits, err := eng.Search(ctx, "garden compost", &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Mode: cairn.ModeVector, Limit: 5})
	if err != nil || len(hits) != 1 {
		t.Fatalf("vector search: %v %v", hits, err)
	}
	h := hits[0]
	if h.Memory == nil || h.Memory.ID != "m-keys" || !strings.Contains(h.Snippet, "compost soil garden") || h.Signals == nil || h.Signals.Cosine < 0.9 {
		t.Errorf("hit by the cue key: memory %+v, snippet %q, signals %+v", h.Memory, h.Snippet, h.Signals)
	}
	// Lexically, words of the body and of a cue find it; a concept alone
	// (noise) does not.
	for q, want := range map[string]bool{"console": true, "ship": true, "promote build": true, "release": true, "cairn sessions lines": false} {
		hits, err := eng.Search(ctx, q, &cairn.SearchOptions{Corpora: []string{cairn.MemoriesCorpus}, Mode: cairn.ModeLexical})
		if err != nil || (len(hits) > 0) != want {
			t.Errorf("lexical %q: %d hits (%v), want found %v", q, len(hits), err, want)
		}
	}
}
